"""Forms of the web workbench. They parse input; the services validate it (question
length, known jurisdictions, file checks) and their ``ValidationError`` is attached to
the form, so a refused submission is shown again with everything the person typed."""

from __future__ import annotations

import re

from django import forms

from retrieval.models import JurisdictionLevel
from sessions.models import Mode, VerificationMode
from sessions.services import JURISDICTION_RE


def codes_split(value: str) -> list[str]:
    """Jurisdiction codes from free text separated by commas, semicolons or spaces."""
    return [c for c in re.split(r"[\s,;]+", value or "") if c]


class AskForm(forms.Form):
    """A new session: the question and how to answer it. Field names match the keys
    of ``sessions.services.session_create``'s ``ValidationError``."""

    question = forms.CharField(
        required=False, strip=False, help_text="Ctrl+Enter (⌘+Enter) asks.",
        widget=forms.Textarea(attrs={
            "rows": 4, "placeholder": "Ask a question, or describe the document to draft",
        }),
    )
    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.ANSWER, widget=forms.RadioSelect)
    verification_mode = forms.ChoiceField(
        label="Verification", choices=VerificationMode.choices, initial=VerificationMode.STRICT,
        widget=forms.RadioSelect,
        help_text="Strict rejects uncited claims; helpful accepts minor uncited statements.",
    )
    jurisdictions = forms.CharField(
        label="Target jurisdictions", required=False,
        help_text="Codes separated by commas, e.g. US-OR-Rivergrove. Empty: all documents.",
    )

    def clean_jurisdictions(self) -> list[str]:
        return codes_split(self.cleaned_data["jurisdictions"])


class FollowupForm(forms.Form):
    """A follow-up question in an existing session."""

    question = forms.CharField(
        required=False, strip=False, label="Follow-up question", help_text="Ctrl+Enter (⌘+Enter) asks.",
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field; cleans to a list of uploads (possibly empty: the
    upload service reports "Choose at least one file")."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        # No per-file checks here: ``documents_upload`` checks every file and names
        # each bad one (an empty file included) in one message list.
        items = data if isinstance(data, list | tuple) else [data]
        return [d for d in items if d]


class UploadForm(forms.Form):
    """Files and the metadata they share (``retrieval.uploads.metadata_for``)."""

    files = MultipleFileField(
        required=False, help_text=".txt, .md, .html, .pdf or .docx; one or several files.",
    )
    title = forms.CharField(required=False, max_length=500,
                            help_text="Used for a single file; default: the file name.")
    jurisdiction = forms.CharField(required=False, max_length=100,
                                   help_text="e.g. US, US-OR, US-OR-Rivergrove; default: private.")
    jurisdiction_level = forms.ChoiceField(
        label="Level", choices=JurisdictionLevel.choices, initial=JurisdictionLevel.PRIVATE,
    )
    source_type = forms.CharField(required=False, max_length=50,
                                  help_text="e.g. ordinance, statute, contract.")
    citation_label = forms.CharField(required=False, max_length=300,
                                     help_text="e.g. Rivergrove Ord. No. 88-2017.")
    last_updated = forms.DateField(required=False, label="Date",
                                   widget=forms.DateInput(attrs={"type": "date"}))

    def clean_jurisdiction(self) -> str:
        code = self.cleaned_data["jurisdiction"].strip()
        if code and not JURISDICTION_RE.match(code):
            raise forms.ValidationError(f"Malformed jurisdiction code “{code}”: use e.g. US-OR.")
        return code

    def metadata(self) -> dict:
        """The cleaned metadata as keyword arguments of ``metadata_for``."""
        return {k: v for k, v in self.cleaned_data.items() if k != "files"}


class SessionSearchForm(forms.Form):
    """Search box of the session history."""

    q = forms.CharField(required=False, label="Search", max_length=200)
