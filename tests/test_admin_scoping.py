"""The admin per firm (issue 11): a staff user who is no superuser sees, opens, filters,
picks and acts on only the rows of the workspaces they belong to; a superuser sees every
firm; a document never moves to another workspace from the admin."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from knox.models import AuthToken

from ciq.models import AuditEvent, Membership, Workspace
from ciq.services import membership_add
from exports.models import ExportRecord
from exports.services import session_export
from retrieval.models import Chunk, ChunkVector, Document
from retrieval.services import documents_ingest
from sessions.models import ResearchSession, Revision, SessionEvent, Turn
from sessions.services import session_ask
from tests.conftest import SAMPLES_DIR, SAMPLES_MANIFEST
from verification.models import Claim, LedgerEntry

pytestmark = pytest.mark.django_db

QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"
DOCKS = SAMPLES_DIR / "municipal" / "us-or-rivergrove" / "ordinances" / "2017-Ord-88-2017-Docks.md"

# (admin URL prefix, model, path from the model to its workspace)
SCOPED = [
    ("ciq_workspace", Workspace, "pk"),
    ("ciq_membership", Membership, "workspace"),
    ("retrieval_document", Document, "workspace"),
    ("retrieval_chunk", Chunk, "document__workspace"),
    ("retrieval_chunkvector", ChunkVector, "workspace"),
    ("ciq_sessions_researchsession", ResearchSession, "workspace"),
    ("ciq_sessions_turn", Turn, "session__workspace"),
    ("ciq_sessions_revision", Revision, "turn__session__workspace"),
    ("ciq_sessions_sessionevent", SessionEvent, "session__workspace"),
    ("verification_claim", Claim, "turn__session__workspace"),
    ("verification_ledgerentry", LedgerEntry, "claim__turn__session__workspace"),
    ("exports_exportrecord", ExportRecord, "session__workspace"),
]
IDS = [prefix for prefix, _, _ in SCOPED]
WITH_WORKSPACE_FILTER = ["ciq_membership", "retrieval_document", "retrieval_chunkvector",
                         "ciq_sessions_researchsession"]


def vector_add(chunk: Chunk) -> ChunkVector:
    return ChunkVector.objects.create(chunk=chunk, workspace=chunk.document.workspace, model="test",
                                      dims=1, vector=b"\x00\x00\x80\x3f")


@pytest.fixture
def firms(demo_workspace, other_workspace, owner, outsider):
    """A researched, exported session with a stored vector in each of the two firms."""
    summary = documents_ingest(workspace=other_workspace, paths=[DOCKS], manifest=SAMPLES_MANIFEST)
    assert summary.failed == 0
    for workspace, user in [(demo_workspace, owner), (other_workspace, outsider)]:
        turn = session_ask(workspace=workspace, user=user, question=QUESTION)
        assert LedgerEntry.objects.filter(claim__turn=turn).exists()
        session_export(session=turn.session, fmt="md", user=user)
        vector_add(Chunk.objects.filter(document__workspace=workspace).first())
    return demo_workspace, other_workspace


@pytest.fixture
def auditor(client, django_user_model, other_workspace):
    """Staff, no superuser, with every model permission, a member of "Other firm" only."""
    user = django_user_model.objects.create_user("auditor", password="pw-auditor-123", is_staff=True)
    user.user_permissions.set(Permission.objects.all())
    membership_add(user=user, workspace=other_workspace)
    client.force_login(user)
    return client


@pytest.fixture
def root(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    return client


def rows(model, path: str, workspace: Workspace) -> set[int]:
    return set(model.objects.filter(**{path: workspace.pk}).values_list("pk", flat=True))


def listed(client, prefix: str, query: str = "") -> set[int]:
    response = client.get(reverse(f"admin:{prefix}_changelist") + query)
    assert response.status_code == 200
    return set(response.context["cl"].queryset.values_list("pk", flat=True))


def workspace_choices(client, prefix: str) -> list[str]:
    cl = client.get(reverse(f"admin:{prefix}_changelist")).context["cl"]
    [spec] = [s for s in cl.filter_specs if str(s.title) == "workspace"]
    return [str(choice["display"]) for choice in spec.choices(cl)]


@pytest.mark.parametrize(("prefix", "model", "path"), SCOPED, ids=IDS)
def test_an_auditor_lists_only_the_rows_of_their_firm(auditor, firms, prefix, model, path):
    demo, other = firms
    assert rows(model, path, demo) and rows(model, path, other)
    assert listed(auditor, prefix) == rows(model, path, other)


@pytest.mark.parametrize(("prefix", "model", "path"), SCOPED, ids=IDS)
def test_a_superuser_lists_the_rows_of_every_firm(root, firms, prefix, model, path):
    demo, other = firms
    assert listed(root, prefix) >= rows(model, path, demo) | rows(model, path, other)


@pytest.mark.parametrize(("prefix", "model", "path"), SCOPED, ids=IDS)
def test_another_firms_row_does_not_exist_for_an_auditor(auditor, firms, prefix, model, path):
    demo, other = firms
    theirs = model.objects.filter(**{path: demo.pk}).first()
    for view in ["change", "history"]:
        response = auditor.get(reverse(f"admin:{prefix}_{view}", args=[theirs.pk]))
        assert response.status_code == 302 and response["Location"] == reverse("admin:index")
    # Audit rows refuse every deletion (403) before looking the row up.
    response = auditor.post(reverse(f"admin:{prefix}_delete", args=[theirs.pk]), {"post": "yes"})
    assert response.status_code == 403 or response["Location"] == reverse("admin:index")
    assert model.objects.filter(pk=theirs.pk).exists()
    mine = model.objects.filter(**{path: other.pk}).first()
    assert auditor.get(reverse(f"admin:{prefix}_change", args=[mine.pk])).status_code == 200


@pytest.mark.parametrize("prefix", WITH_WORKSPACE_FILTER)
def test_the_workspace_filter_offers_only_the_auditors_firm(auditor, firms, prefix):
    assert workspace_choices(auditor, prefix) == ["All", "Other firm"]


@pytest.mark.parametrize("prefix", WITH_WORKSPACE_FILTER)
def test_the_workspace_filter_offers_every_firm_to_a_superuser(root, firms, prefix):
    assert {"Demo", "Other firm"} <= set(workspace_choices(root, prefix))


def test_the_workspace_filter_narrows_a_superusers_list(root, firms):
    demo, other = firms
    query = f"?workspace={other.pk}"
    assert listed(root, "ciq_sessions_researchsession", query) == rows(ResearchSession, "workspace", other)


def test_the_workspace_filter_cannot_reach_another_firm(auditor, firms):
    demo, _ = firms
    assert listed(auditor, "retrieval_document", f"?workspace={demo.pk}") == set()
    assert listed(auditor, "retrieval_document", f"?workspace__id__exact={demo.pk}") == set()


def test_an_auditor_picks_only_their_firms_workspace_when_adding(auditor, firms):
    for prefix in ["retrieval_document", "ciq_membership"]:
        form = auditor.get(reverse(f"admin:{prefix}_add")).context["adminform"].form
        assert list(form.fields["workspace"].queryset) == [firms[1]]


def test_an_auditor_cannot_add_a_member_to_another_firm(auditor, firms, django_user_model):
    demo, _ = firms
    newcomer = django_user_model.objects.create_user("newcomer")
    response = auditor.post(reverse("admin:ciq_membership_add"),
                            {"user": newcomer.pk, "workspace": demo.pk, "role": "member"})
    assert response.status_code == 200 and "workspace" in response.context["adminform"].form.errors
    assert not Membership.objects.filter(user=newcomer).exists()


def document_post(client, document: Document, **changes) -> dict:
    """The change form of ``document`` as the admin shows it, with ``changes``."""
    form = client.get(reverse("admin:retrieval_document_change", args=[document.pk])).context[
        "adminform"].form
    data = {name: form[name].value() for name in form.fields if name != "file"}
    return {key: "" if value is None else value for key, value in {**data, **changes}.items()}


@pytest.mark.parametrize("who", ["auditor", "root"])
def test_a_documents_workspace_cannot_be_changed(request, firms, who):
    client = request.getfixturevalue(who)
    demo, other = firms
    document = Document.objects.filter(workspace=other).first()
    target = demo if who == "auditor" else Workspace.objects.create(name="Third firm")
    page = client.get(reverse("admin:retrieval_document_change", args=[document.pk]))
    assert 'name="workspace"' not in page.content.decode()
    data = document_post(client, document, title="Retitled", workspace=target.pk)
    response = client.post(reverse("admin:retrieval_document_change", args=[document.pk]), data)
    assert response.status_code == 302
    document.refresh_from_db()
    assert document.title == "Retitled" and document.workspace == other


def test_a_membership_stays_in_its_workspace(root, firms, outsider):
    demo, other = firms
    membership = Membership.objects.get(user=outsider, workspace=other)
    change = reverse("admin:ciq_membership_change", args=[membership.pk])
    response = root.post(change, {"user": outsider.pk, "workspace": demo.pk, "role": "viewer"})
    assert response.status_code == 302
    membership.refresh_from_db()
    assert membership.workspace == other and membership.role == "viewer"


def test_actions_skip_sessions_of_another_firm(auditor, firms):
    demo, _ = firms
    theirs = ResearchSession.objects.get(workspace=demo)
    changelist = reverse("admin:ciq_sessions_researchsession_changelist")
    exported = ExportRecord.objects.count()
    for action in ["export_md", "verify_event_log"]:
        response = auditor.post(changelist, {"action": action, "_selected_action": [theirs.pk]},
                                follow=True)
        assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
        assert theirs.title not in " ".join(str(m) for m in response.context["messages"])
    assert ExportRecord.objects.count() == exported


def test_actions_still_run_on_the_auditors_own_sessions(auditor, firms):
    _, other = firms
    mine = ResearchSession.objects.get(workspace=other)
    changelist = reverse("admin:ciq_sessions_researchsession_changelist")
    response = auditor.post(changelist, {"action": "verify_event_log", "_selected_action": [mine.pk]},
                            follow=True)
    [message] = [str(m) for m in response.context["messages"]]
    assert message.startswith(f"Session {mine.pk} “{mine}”: event log intact")
    download = auditor.post(changelist, {"action": "export_md", "_selected_action": [mine.pk]})
    assert download["Content-Type"].startswith("text/markdown")


def test_the_session_page_of_the_auditors_firm_links_its_own_sources(auditor, firms):
    _, other = firms
    mine = ResearchSession.objects.get(workspace=other)
    html = auditor.get(reverse("admin:ciq_sessions_researchsession_change", args=[mine.pk])).content
    chunk = LedgerEntry.objects.filter(claim__turn__session=mine).exclude(evidence=None).first().evidence
    assert reverse("admin:retrieval_chunk_change", args=[chunk.pk]).encode() in html
    assert auditor.get(reverse("admin:retrieval_chunk_change", args=[chunk.pk])).status_code == 200


def test_a_staff_user_sees_only_their_own_api_tokens(auditor, owner, django_user_model):
    auditor_user = django_user_model.objects.get(username="auditor")
    mine, _ = AuthToken.objects.create(auditor_user)
    theirs, _ = AuthToken.objects.create(owner)
    prefix = "knox_authtoken"
    assert listed(auditor, prefix) == {mine.pk}
    response = auditor.get(reverse(f"admin:{prefix}_change", args=[theirs.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("admin:index")
    auditor.post(reverse(f"admin:{prefix}_delete", args=[theirs.pk]), {"post": "yes"})
    assert AuthToken.objects.filter(pk=theirs.pk).exists()


def test_a_superuser_sees_every_api_token(root, owner, outsider):
    tokens = {AuthToken.objects.create(user)[0].pk for user in [owner, outsider]}
    assert listed(root, "knox_authtoken") >= tokens


def workspace_add(client, name: str):
    return client.post(reverse("admin:ciq_workspace_add"), {
        "name": name,
        "membership_set-TOTAL_FORMS": "0", "membership_set-INITIAL_FORMS": "0",
        "membership_set-MIN_NUM_FORMS": "0", "membership_set-MAX_NUM_FORMS": "1000",
    })


def test_a_staff_user_who_adds_a_workspace_owns_it_and_sees_it(auditor, firms):
    response = workspace_add(auditor, "New firm")
    assert response.status_code == 302, response.context and response.context["errors"]
    created = Workspace.objects.get(name="New firm")
    assert created.pk in listed(auditor, "ciq_workspace")
    assert auditor.get(reverse("admin:ciq_workspace_change", args=[created.pk])).status_code == 200
    membership = Membership.objects.get(workspace=created)
    assert (membership.user.username, membership.role) == ("auditor", Membership.Role.OWNER)
    event = AuditEvent.objects.get(workspace=created)
    assert (event.action, event.actor_name, event.target) == (
        AuditEvent.Action.MEMBER_ADDED, "auditor", "auditor")


def test_a_staff_user_who_adds_a_workspace_can_add_its_members(auditor, firms, django_user_model):
    newcomer = django_user_model.objects.create_user("newcomer")
    response = auditor.post(reverse("admin:ciq_workspace_add"), {
        "name": "New firm",
        "membership_set-TOTAL_FORMS": "1", "membership_set-INITIAL_FORMS": "0",
        "membership_set-MIN_NUM_FORMS": "0", "membership_set-MAX_NUM_FORMS": "1000",
        "membership_set-0-user": newcomer.pk, "membership_set-0-role": "member",
    })
    assert response.status_code == 302
    assert set(Membership.objects.filter(workspace__name="New firm")
               .values_list("user__username", "role")) == {("auditor", "owner"),
                                                           ("newcomer", "member")}


def test_a_superuser_who_adds_a_workspace_is_not_made_a_member(root, firms):
    assert workspace_add(root, "New firm").status_code == 302
    assert not Membership.objects.filter(workspace__name="New firm").exists()
