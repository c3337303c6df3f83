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


# Per-file rows of the upload form (built by static/ciq/documents.js once several files
# are chosen): parallel lists, one item per file, "" for "as the shared field says".
PER_FILE_FIELDS = {"title": "per_file_title", "jurisdiction": "per_file_jurisdiction",
                   "jurisdiction_level": "per_file_level", "citation_label": "per_file_citation"}


class UploadForm(forms.Form):
    """Files, the metadata they share (``retrieval.uploads.metadata_for``) and, per file,
    optional overrides of the title, jurisdiction, level and citation label."""

    files = MultipleFileField(
        required=False, help_text=".txt, .md, .html, .pdf or .docx; one or several files. "
                                  "The fields below apply to every file of the upload; with "
                                  "several files, a row per file lets you change them file by file.",
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

    def clean(self) -> dict:
        cleaned = super().clean()
        names = self.data.getlist("per_file_name") if hasattr(self.data, "getlist") else []
        rows: dict[str, dict] = {}
        errors = []
        for key, field in PER_FILE_FIELDS.items():
            values = self.data.getlist(field) if names else []
            if len(values) != len(names):
                errors.append("The per-file rows are incomplete: choose the files again.")
                break
            for name, value in zip(names, values, strict=True):
                value = value.strip()
                if not value:
                    continue
                if key == "jurisdiction" and not JURISDICTION_RE.match(value):
                    errors.append(f"{name}: malformed jurisdiction code “{value}”: use e.g. US-OR.")
                elif key == "jurisdiction_level" and value not in JurisdictionLevel.values:
                    errors.append(f"{name}: unknown level “{value}”.")
                elif key != "jurisdiction_level" and len(value) > self.fields[key].max_length:
                    errors.append(f"{name}: the {key.replace('_', ' ')} is too long.")
                else:
                    rows.setdefault(name, {})[key] = value
        if errors:
            raise forms.ValidationError(errors)
        cleaned["per_file"] = rows
        return cleaned

    def metadata(self) -> dict:
        """The cleaned shared metadata as keyword arguments of ``metadata_for``."""
        return {k: v for k, v in self.cleaned_data.items() if k not in ("files", "per_file")}

    def per_file(self) -> dict[str, dict]:
        """Per file name, the metadata its row changes (``title``, ``jurisdiction``,
        ``jurisdiction_level``, ``citation_label``; only the cells filled in)."""
        return self.cleaned_data.get("per_file", {})


class SessionSearchForm(forms.Form):
    """Search box of the session history."""

    q = forms.CharField(required=False, label="Search", max_length=200)
