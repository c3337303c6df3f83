"""``manage.py export``: files written with a timing table; bad input refused."""

import io

import pytest
from django.core.management import CommandError, call_command

from exports.models import ExportRecord
from sessions.services import session_ask

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(demo_workspace):
    return session_ask(workspace=demo_workspace, jurisdictions=["US-OR-Rivergrove"],
                       question="What permits are needed to build or replace a dock in Rivergrove?").session


def test_it_writes_the_files_and_prints_timings(session, tmp_path):
    out = io.StringIO()
    call_command("export", str(session.pk), "--format", "md", "--format", "json",
                 "--out", str(tmp_path), stdout=out)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"ciq-session-{session.pk}.json", f"ciq-session-{session.pk}.md"]
    table = out.getvalue()
    assert "ms" in table and "bytes" in table and f"Session {session.pk}: 1 turn(s)" in table
    assert set(ExportRecord.objects.values_list("format", flat=True)) == {"md", "json"}
    assert ExportRecord.objects.filter(user=None).count() == 2


def test_it_refuses_an_unknown_session(tmp_path):
    with pytest.raises(CommandError, match="No research session 999999"):
        call_command("export", "999999", "--out", str(tmp_path))


def test_it_refuses_a_missing_directory(session, tmp_path):
    with pytest.raises(CommandError, match="No directory"):
        call_command("export", str(session.pk), "--out", str(tmp_path / "nope"))
    assert not ExportRecord.objects.exists()


def test_the_benchmark_prints_median_and_p95_per_format_with_the_session_size(session):
    out = io.StringIO()
    call_command("export_benchmark", str(session.pk), "--format", "md", "--format", "pdf",
                 "--repeat", "2", "--warmup", "0", stdout=out)
    text = out.getvalue()
    claims = sum(t.claims.filter(revision=t.revisions.order_by("-cycle").first()).count()
                 for t in session.turns.all())
    assert f"Session {session.pk}: 1 turn(s), {claims} claim(s)" in text
    assert "median ms" in text and "p95 ms" in text and "median cpu ms" in text
    rows = {line.split()[1]: line for line in text.splitlines() if line.split()[1:2] in (["md"], ["pdf"])}
    assert set(rows) == {"md", "pdf"}
    assert not ExportRecord.objects.exists()  # it only renders


def test_the_benchmark_refuses_an_unknown_session():
    with pytest.raises(CommandError, match="No research session 999999"):
        call_command("export_benchmark", "999999")
