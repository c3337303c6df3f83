"""Two firms on one server, fuzzed from the API's own schema (issue 11 target: 0 5xx in a
stateful two-tenant run, 0 cross-tenant leaks).

Firm A (``owner`` in Demo) holds a privileged memo, a finished session about it and an
export; firm B (``outsider`` in Other firm) holds the Docks ordinance and a finished
session. Every request is sent with a fresh token of B's (the logout endpoints revoke
the one they are sent) and, when "aimed at A", carries A's real ids: A's document or
session in the ``{id}`` of the path, A's workspace in a ``workspace`` query parameter or
body field, A's turn in the ledger's ``turn``.

- **Every operation, aimed at A**: each of the 17 operations, ``EXAMPLES_PER_OPERATION``
  positive and negative examples, all aimed at A.
- **Stateful**: schemathesis's state machine (``schema.as_state_machine()``; it infers
  links from the list endpoints to the detail, events, ledger, export, follow-up and
  delete operations) walks sequences as B — B lists, creates, reads and deletes its own
  objects — and every other step is aimed at A, so an attack follows B's own state.

Checked on every answer: never a 5xx; never A's memo code name (``CANARY``, in A's
document, question, answer, events and export), never a row of A's workspace; no 2xx
to a request whose path names A's object, which answers exactly as an object that does
not exist (the same request with a missing id: same status, same body). Afterwards A's
data is as it was: documents and their chunk texts, sessions, turns and answers, events,
claims, exports, members, audit events and A's own token.
"""

from __future__ import annotations

import hashlib
import json

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from knox.models import AuthToken
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from ciq.api.tokens import token_create
from ciq.models import AuditEvent, Membership, Workspace
from exports.models import ExportRecord
from exports.services import session_export
from retrieval.models import Chunk, Document
from retrieval.services import document_ingest, documents_ingest
from sessions.models import ResearchSession, SessionEvent, Turn
from tests.api_support import session_run, token_client
from tests.conftest import SAMPLES_DIR, SAMPLES_MANIFEST
from verification.models import Claim, LedgerEntry

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = 25
STATEFUL_EXAMPLES = 30  # scenarios of the state machine
STATEFUL_STEPS = 8  # steps per scenario

CANARY = "Kestrel-7731"  # A's matter code name: in A's memo, question, answer and export
MEMO = (f"# Privileged memo: Project {CANARY}\n\n"
        f"The settlement offer in Project {CANARY} is 4.2 million dollars. The client must "
        "approve the settlement offer in writing before 1 May 2025.\n")
DOCKS = SAMPLES_DIR / "municipal" / "us-or-rivergrove" / "ordinances" / "2017-Ord-88-2017-Docks.md"


@pytest.fixture
def firms(owner, outsider, demo_workspace, other_workspace, tmp_path,
          django_capture_on_commit_callbacks):
    """A's and B's data through the real services and API; returns A's ids."""
    memo = tmp_path / f"project-{CANARY.lower()}-memo.md"
    memo.write_text(MEMO)
    result = document_ingest(workspace=demo_workspace, path=memo)
    assert result.status == "created", result
    a_session = session_run(token_client(owner), django_capture_on_commit_callbacks,
                            demo_workspace, query=f"What is the settlement offer in Project {CANARY}?")
    session = ResearchSession.objects.get(pk=a_session["id"])
    assert CANARY in session.turns.get().answer_markdown
    session_export(session=session, fmt="md", user=owner)

    assert documents_ingest(workspace=other_workspace, paths=[DOCKS],
                            manifest=SAMPLES_MANIFEST).failed == 0
    session_run(token_client(outsider), django_capture_on_commit_callbacks, other_workspace)
    token_create(user=owner)  # A's own token: B's logoutall must not revoke it
    return {
        "workspace": demo_workspace.pk,
        "document": result.document.pk,
        "session": session.pk,
        "turn": session.turns.get().index,
    }


def firm_state(workspace: Workspace) -> dict:
    """What A holds, in a form to compare before and after."""
    documents = Document.objects.filter(workspace=workspace).order_by("pk")
    chunks = hashlib.sha256()
    for text in Chunk.objects.filter(document__workspace=workspace).order_by("pk").values_list(
            "chunk_id", "text"):
        chunks.update(json.dumps(text).encode())
    sessions = ResearchSession.objects.filter(workspace=workspace)
    turns = Turn.objects.filter(session__workspace=workspace).order_by("pk")
    return {
        "documents": list(documents.values_list("pk", "status", "sha256", "error", "title",
                                                "size_bytes", "file")),
        "chunks": (Chunk.objects.filter(document__workspace=workspace).count(), chunks.hexdigest()),
        "sessions": list(sessions.order_by("pk").values_list("pk", "title", "user_id", "status")),
        "turns": list(turns.values_list("pk", "index", "question", "answer_markdown", "status",
                                        "log_hash")),
        "events": list(SessionEvent.objects.filter(session__workspace=workspace)
                       .order_by("pk").values_list("pk", "hash")),
        "claims": Claim.objects.filter(turn__session__workspace=workspace).count(),
        "ledger": list(LedgerEntry.objects.filter(claim__turn__session__workspace=workspace)
                       .order_by("pk").values_list("pk", "verdict")),
        "exports": ExportRecord.objects.filter(session__workspace=workspace).count(),
        "members": list(Membership.objects.filter(workspace=workspace)
                        .order_by("pk").values_list("user_id", "role")),
        "audit": AuditEvent.objects.filter(workspace=workspace).count(),
        "tokens": AuthToken.objects.filter(
            user__membership__workspace=workspace).count(),
    }


def aim_at_a(case, a: dict) -> bool:
    """Put A's ids into ``case``; returns whether its path now names A's object."""
    if "id" in (case.path_parameters or {}):
        case.path_parameters["id"] = (a["document"] if "/documents/" in case.path
                                      else a["session"])
    if isinstance(case.query, dict):
        if "workspace" in case.query:
            case.query["workspace"] = a["workspace"]
        if "turn" in case.query:
            case.query["turn"] = a["turn"]
    if isinstance(case.body, dict) and "workspace" in case.body:
        case.body["workspace"] = a["workspace"]
    return "id" in (case.path_parameters or {})


def rows_of(data, workspace_id: int):
    """Every object in a JSON answer that says it belongs to ``workspace_id``."""
    if isinstance(data, dict):
        if data.get("workspace") == workspace_id:
            yield data
        for value in data.values():
            yield from rows_of(value, workspace_id)
    elif isinstance(data, list):
        for value in data:
            yield from rows_of(value, workspace_id)


def check_no_leak(response, case, a: dict, *, aimed_at_object: bool) -> None:
    status = response.status_code
    where = f"{case.method} {case.formatted_path} {case.query} -> {status}"
    text = response.content.decode("utf-8", "replace") if response.content else ""
    assert CANARY not in text, f"A's code name in B's answer: {where}: {text[:300]}"
    if aimed_at_object:
        assert not 200 <= status < 300, f"B reached A's object: {where}: {text[:300]}"
    if "json" in response.headers.get("Content-Type", [""])[0] and text:
        leaked = list(rows_of(json.loads(text), a["workspace"]))
        assert not leaked, f"A's rows in B's answer: {where}: {leaked[:2]}"


MISSING_ID = 2_000_000_000  # no row has it


def check_same_as_missing(response, case, headers: dict) -> None:
    """A's object answers B exactly as an object that does not exist (STYLE.md habit 3):
    the same request with a missing id gets the same status and body."""
    real = case.path_parameters["id"]
    case.path_parameters["id"] = MISSING_ID
    try:
        missing = case.call(headers=headers)
    finally:
        case.path_parameters["id"] = real
    where = f"{case.method} {case.path} {case.query}"
    assert (response.status_code, response.content.replace(str(real).encode(), b"<id>")) == (
        missing.status_code, missing.content.replace(str(MISSING_ID).encode(), b"<id>")), where


def api_schema(user):
    return schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json", get_wsgi_application(),
        headers={"Authorization": f"Token {token_create(user=user)[1]}"})


def b_headers(outsider) -> dict:
    return {"Authorization": f"Token {token_create(user=outsider)[1]}"}


def test_firm_b_reaches_nothing_of_firm_a_through_any_operation(firms, outsider, demo_workspace):
    before = firm_state(demo_workspace)
    sent = {}
    for result in api_schema(outsider).get_all_operations():
        operation = result.ok()
        count = 0
        strategy = st.one_of(*(operation.as_strategy(generation_mode=mode)
                               for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)))

        @given(case=strategy)
        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                  derandomize=True, suppress_health_check=list(HealthCheck))
        def run(case):
            nonlocal count
            count += 1
            aimed = aim_at_a(case, firms)
            headers = b_headers(outsider)
            response = case.call(headers=headers)
            case.validate_response(response, checks=[not_a_server_error],
                                   transport_kwargs={"headers": headers})
            check_no_leak(response, case, firms, aimed_at_object=aimed)
            if aimed:
                check_same_as_missing(response, case, b_headers(outsider))

        run()
        sent[operation.label] = count
    assert len(sent) == 17 and all(n > 0 for n in sent.values()), sent
    assert firm_state(demo_workspace) == before
    print(f"two tenants: {len(sent)} operations, {sum(sent.values())} requests aimed at A, "
          "no 5xx, no leak")


def test_a_stateful_run_as_firm_b_never_fails_or_reaches_firm_a(firms, outsider, demo_workspace):
    before = firm_state(demo_workspace)
    stats = {"steps": 0, "aimed": 0, "statuses": {}}

    class TwoFirms(api_schema(outsider).as_state_machine()):
        def setup(self):
            self.aimed_at_object = False

        def before_call(self, case):
            stats["steps"] += 1
            self.aimed_at_object = False
            if stats["steps"] % 2 == 0:  # every other step: B's own flow, aimed at A
                stats["aimed"] += 1
                self.aimed_at_object = aim_at_a(case, firms)

        def get_call_kwargs(self, case):
            return {"headers": b_headers(outsider)}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            key = f"{case.method} {case.operation.path} {response.status_code}"
            stats["statuses"][key] = stats["statuses"].get(key, 0) + 1
            case.validate_response(response, checks=[not_a_server_error], transport_kwargs=kwargs)
            check_no_leak(response, case, firms, aimed_at_object=self.aimed_at_object)
            if self.aimed_at_object:
                check_same_as_missing(response, case, b_headers(outsider))

    TwoFirms.run(settings=settings(max_examples=STATEFUL_EXAMPLES,
                                   stateful_step_count=STATEFUL_STEPS, deadline=None,
                                   database=None, derandomize=True,
                                   suppress_health_check=list(HealthCheck)))
    assert stats["aimed"] > 0
    assert firm_state(demo_workspace) == before
    print(f"stateful two tenants: {stats['steps']} steps, {stats['aimed']} aimed at A: "
          f"{dict(sorted(stats['statuses'].items()))}")
