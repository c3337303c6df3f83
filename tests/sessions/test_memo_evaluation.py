"""``evaluate memos``: the memo rubric (issue 13, Targets) scores real drafts of the
shipped samples, and each check fails on the memo that breaks it."""

import json

import pytest
from django.core.management import CommandError, call_command

from sessions.memo_evaluation import evaluate_memos, has_structure, memo_score, pinpointed
from sessions.services import session_ask

pytestmark = pytest.mark.django_db

TREES = "Draft a memo on tree removal permits and penalties in Rivergrove"


def request_line(**fields) -> dict:
    return {"id": "t-1", "source": "municipal", "request": TREES, "answer_keys": ["$5,000.00"],
            "excluded": ["US-MO-Ray", "private"], **fields}


def test_a_sample_memo_passes_every_check(demo_workspace):
    turn = session_ask(workspace=demo_workspace, mode="draft", question=TREES)
    row = memo_score(request_line(), turn)
    assert row["structure"] and row["excluded"] and row["keys"] and row["pinpoints"], row
    assert row["passed"] and row["citations"] >= 2 and row["total_ms"] > 0


def test_each_check_fails_on_the_memo_that_breaks_it(demo_workspace):
    turn = session_ask(workspace=demo_workspace, mode="draft", question=TREES)
    assert not memo_score(request_line(answer_keys=["$9,999"]), turn)["keys"]
    assert not memo_score(request_line(excluded=["US-OR-Rivergrove"]), turn)["excluded"]
    text = turn.answer_markdown
    assert has_structure(text)
    assert not has_structure(text.replace("## Open questions", "## Remarks"))
    emptied = text.split("## Discussion")[0] + "## Discussion\n\n## Requirements and permits" \
        + text.split("## Requirements and permits")[1]
    assert not has_structure(emptied)  # a section heading with nothing under it
    assert not has_structure(text.replace("**To:**", "To"))


def test_a_pinpoint_must_name_a_section_or_heading():
    assert pinpointed({"pinpoint": "12 CFR § 1006.8"})
    assert pinpointed({"pinpoint": "Rivergrove Council Minutes 2018-08-13, “CALL TO ORDER”, p. 1"})
    assert not pinpointed({"pinpoint": "Rivergrove Ord. No. 89-2018"})


def test_the_command_prints_the_rubric_and_its_json(demo_workspace, tmp_path, capsys):
    data = tmp_path / "memos.jsonl"
    data.write_text(json.dumps(request_line()) + "\n")
    report = evaluate_memos(data=data, workspace_name=demo_workspace.name)
    assert report["summary"]["n"] == 1 and report["summary"]["passed"] == 1
    call_command("evaluate", "memos", "--data", str(data), "--workspace", demo_workspace.name)
    out = capsys.readouterr().out
    assert "Memo rubric" in out and "1/1 memos pass every check" in out
    with pytest.raises(ValueError, match="No workspace"):
        evaluate_memos(data=data, workspace_name="no such workspace")
    with pytest.raises(CommandError, match="give --corpus"):
        call_command("evaluate", "memos", "--data", str(data), "--workspace", "no such workspace")
