"""Roles inside a workspace (issue 11): a viewer reads, a member asks and uploads, only
admins and owners delete documents and manage members; a colleague's follow-up is
recorded as theirs; deletions and role changes are audit events."""

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from ciq.models import AuditEvent, Membership
from ciq.services import membership_add, membership_remove
from retrieval.models import Document
from sessions.models import ResearchSession, Turn
from sessions.services import session_ask
from tests.api_support import token_client

pytestmark = pytest.mark.django_db

QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"


@pytest.fixture
def viewer(demo_workspace, django_user_model):
    user = django_user_model.objects.create_user("viewer", password="pw-viewer-123")
    membership_add(user=user, workspace=demo_workspace, role=Membership.Role.VIEWER)
    return user


@pytest.fixture
def admin_member(demo_workspace, django_user_model):
    user = django_user_model.objects.create_user("firm-admin", password="pw-admin-123")
    membership_add(user=user, workspace=demo_workspace, role=Membership.Role.ADMIN)
    return user


@pytest.fixture
def answered(demo_workspace, owner):
    return session_ask(workspace=demo_workspace, user=owner, question=QUESTION,
                       jurisdictions=["US-OR-Rivergrove"]).session


def logged_in(client, user):
    client.force_login(user)
    return client


def docks(workspace) -> Document:
    return Document.objects.get(workspace=workspace, title__contains="Docks")


def test_a_viewer_reads_everything_but_cannot_ask_follow_up_or_upload(client, viewer, answered,
                                                                      demo_workspace):
    web = logged_in(client, viewer)
    assert web.get(reverse("session", args=[answered.pk])).status_code == 200
    assert web.get(reverse("documents", args=[demo_workspace.pk])).status_code == 200
    page = web.get(reverse("ask", args=[demo_workspace.pk])).content.decode()
    assert 'data-role="role-notice"' in page and "ask-form" not in page
    assert "Ask a follow-up" not in web.get(reverse("session", args=[answered.pk])).content.decode()
    sessions_before = ResearchSession.objects.count()
    asked = {"question": QUESTION, "mode": "answer", "verification_mode": "strict"}
    assert web.post(reverse("ask", args=[demo_workspace.pk]), asked).status_code == 403
    followup = {"question": "And a boathouse?"}
    assert web.post(reverse("followup", args=[answered.pk]), followup).status_code == 403
    upload = SimpleUploadedFile("memo.md", b"# Memo\n\nA dock permit memo.")
    assert web.post(reverse("documents", args=[demo_workspace.pk]), {"files": [upload]}).status_code == 403
    assert ResearchSession.objects.count() == sessions_before and answered.turns.count() == 1
    assert not Document.objects.filter(workspace=demo_workspace, title__icontains="memo").exists()


def test_a_viewer_is_refused_by_the_api_with_403(viewer, answered, demo_workspace):
    api = token_client(viewer)
    assert api.get(f"/api/v1/sessions/{answered.pk}/").status_code == 200
    created = api.post("/api/v1/sessions/", {"workspace": demo_workspace.pk, "query": QUESTION},
                       format="json")
    assert created.status_code == 403 and "(viewer)" in created.json()["detail"]
    assert api.post(f"/api/v1/sessions/{answered.pk}/turns/", {"query": "And a boathouse?"},
                    format="json").status_code == 403
    upload = SimpleUploadedFile("memo.md", b"# Memo\n\nA dock permit memo.")
    assert api.post("/api/v1/documents/", {"workspace": demo_workspace.pk, "files": [upload]},
                    format="multipart").status_code == 403
    assert answered.turns.count() == 1


def test_a_member_cannot_delete_the_firms_documents(client, member, demo_workspace):
    document = docks(demo_workspace)
    web = logged_in(client, member)
    assert "Delete" not in web.get(reverse("document", args=[document.pk])).content.decode()
    assert web.get(reverse("document-delete", args=[document.pk])).status_code == 403
    assert web.post(reverse("document-delete", args=[document.pk])).status_code == 403
    assert token_client(member).delete(f"/api/v1/documents/{document.pk}/").status_code == 403
    assert Document.objects.filter(pk=document.pk).exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.DOCUMENT_DELETED).exists()


def test_an_admins_deletion_is_an_audit_event_naming_who_and_what(client, admin_member, demo_workspace):
    document = docks(demo_workspace)
    response = logged_in(client, admin_member).post(reverse("document-delete", args=[document.pk]))
    assert response.status_code == 302 and not Document.objects.filter(pk=document.pk).exists()
    event = AuditEvent.objects.get(action=AuditEvent.Action.DOCUMENT_DELETED)
    assert (event.workspace, event.actor, event.action) == (
        demo_workspace, admin_member, AuditEvent.Action.DOCUMENT_DELETED)
    assert event.target == document.title and event.detail["sha256"] == document.sha256


def test_a_colleagues_follow_up_is_recorded_and_shown_as_theirs(
        client, member, answered, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(client, member).post(reverse("followup", args=[answered.pk]),
                                                  {"question": "Where is the application filed?"})
    assert response.status_code == 302 and response["Location"].endswith("#turn-2")  # opens at it
    turns = {t.index: t.asked_by for t in Turn.objects.filter(session=answered)}
    assert turns == {1: answered.user, 2: member}
    page = client.get(reverse("session", args=[answered.pk])).content.decode()
    assert "asked by member" in page and "asked by owner" in page
    body = token_client(member).get(f"/api/v1/sessions/{answered.pk}/").json()
    assert [t["asked_by"] for t in body["turns"]] == ["owner", "member"]


def test_role_changes_follow_the_rules_and_are_audit_events(owner, admin_member, member, demo_workspace):
    membership_add(user=member, workspace=demo_workspace, role=Membership.Role.VIEWER, actor=admin_member)
    with pytest.raises(PermissionDenied):  # only an owner makes an owner
        membership_add(user=member, workspace=demo_workspace, role=Membership.Role.OWNER, actor=admin_member)
    with pytest.raises(PermissionDenied):  # an admin cannot demote an owner
        membership_add(user=owner, workspace=demo_workspace, role=Membership.Role.MEMBER, actor=admin_member)
    with pytest.raises(PermissionDenied):  # a viewer manages nobody
        membership_add(user=admin_member, workspace=demo_workspace, role=Membership.Role.VIEWER, actor=member)
    membership_remove(membership=Membership.objects.get(user=member, workspace=demo_workspace), actor=owner)
    events = [(e.action, e.actor_name, e.target, e.detail)
              for e in AuditEvent.objects.filter(workspace=demo_workspace).order_by("pk")
              if e.target == "member"]
    assert events[-2:] == [
        (AuditEvent.Action.ROLE_CHANGED, "firm-admin", "member", {"before": "member", "after": "viewer"}),
        (AuditEvent.Action.MEMBER_REMOVED, "owner", "member", {"role": "viewer"}),
    ]
    assert Membership.objects.get(user=owner, workspace=demo_workspace).role == Membership.Role.OWNER


def test_admin_edits_of_members_and_documents_follow_the_roles_and_are_audited(
        client, django_user_model, admin_member, member, demo_workspace):
    """The Django admin goes through the same services: role rules and audit events."""
    root = django_user_model.objects.create_superuser("root", password="pw-root-123")
    web = logged_in(client, root)
    membership = Membership.objects.get(user=member, workspace=demo_workspace)
    response = web.post(reverse("admin:ciq_membership_change", args=[membership.pk]), {
        "user": member.pk, "workspace": demo_workspace.pk, "role": Membership.Role.VIEWER})
    assert response.status_code == 302
    document = docks(demo_workspace)
    response = web.post(reverse("admin:retrieval_document_delete", args=[document.pk]), {"post": "yes"})
    assert response.status_code == 302 and not Document.objects.filter(pk=document.pk).exists()
    events = {(e.action, e.actor_name, e.target) for e in AuditEvent.objects.filter(actor=root)}
    assert events == {(AuditEvent.Action.ROLE_CHANGED, "root", "member"),
                      (AuditEvent.Action.DOCUMENT_DELETED, "root", document.title)}
    page = web.get(reverse("admin:ciq_auditevent_changelist")).content.decode()
    assert "Role changed" in page and "Document deleted" in page
