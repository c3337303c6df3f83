"""The ``ask`` and ``evaluate`` commands, run as a user would run them."""

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import SAMPLES_DIR

pytestmark = pytest.mark.django_db
BENCH = SAMPLES_DIR / "bench"


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_ask_prints_answer_sources_ledger_and_confidences():
    out = run("ask", "What are the standards for constructing a dock?", "--workspace", "Demo",
              "--jurisdiction", "US-OR-Rivergrove")
    assert "[1]" in out and "[cite:" not in out
    assert "Sources" in out
    assert re.search(r"Rivergrove Ord\. No\. 88-2017 § \d \(US-OR-Rivergrove, municipal\)", out)
    assert "Evidence ledger" in out
    assert "Retrieval confidence:" in out and "Claim confidence:" in out


def test_ask_json_holds_the_whole_turn():
    data = json.loads(run("ask", "How does a state apply for an exemption from Regulation F?",
                          "--workspace", "Demo", "--json"))
    assert data["status"] == "completed"
    assert data["ledger"] and {"claim", "verdict", "score", "snippet"} <= data["ledger"][0].keys()
    assert data["citations"][0]["number"] == 1
    assert data["events"][0]["type"] == "session_created"
    assert data["metrics"]["evidence_coverage"] >= 0


def test_ask_records_the_session_as_a_members(member, outsider):
    from sessions.models import ResearchSession

    run("ask", "What are the park hours?", "--workspace", "Demo", "--user", "member")
    assert ResearchSession.objects.latest("created").user == member
    with pytest.raises(CommandError, match="No member 'outsider' in workspace 'Demo'"):
        run("ask", "What are the park hours?", "--workspace", "Demo", "--user", "outsider")


def test_ask_refuses_an_unknown_workspace_and_bad_input():
    with pytest.raises(CommandError, match="No workspace named"):
        run("ask", "anything", "--workspace", "Nope")
    with pytest.raises(CommandError, match="question: The question is empty"):
        run("ask", "  ", "--workspace", "Demo")
    with pytest.raises(CommandError, match="Unknown jurisdiction"):
        run("ask", "docks", "--workspace", "Demo", "--jurisdiction", "US-TX")


def test_evaluate_verification_reports_balanced_accuracy_per_dataset():
    report = json.loads(run("evaluate", "verification", "--data", str(BENCH / "verify_samples.jsonl"),
                            "--json"))
    text = json.dumps(report)
    assert "contractnli" in text and "halueval_qa" in text
    assert "balanced_accuracy" in text


def test_evaluate_retrieval_reports_recall_mrr_and_latency():
    report = json.loads(run("evaluate", "retrieval", "--data",
                            str(BENCH / "retrieval_samples.jsonl"), "--corpus", str(SAMPLES_DIR),
                            "--k", "1,5,10", "--json"))
    overall = report["groups"]["overall"]["all"]
    assert overall["n"] == 22
    assert overall["doc_recall@10"] >= 0.9
    assert 0 < overall["span_recall@10"] <= overall["doc_recall@10"]
    assert overall["span_recall@1"] <= overall["span_recall@5"] <= overall["span_recall@10"]
    assert 0 < overall["mrr"] <= 1 and overall["p95_ms"] > 0
    assert set(report["groups"]["source"]) == {
        "constructed_section_heading", "contractnli_evidence", "cuad_master_clauses"}
    assert "US-OR-Rivergrove" in report["groups"]["jurisdiction"]


def test_evaluate_answers_runs_the_pipeline_per_question():
    report = json.loads(run("evaluate", "answers", "--data", str(BENCH / "retrieval_samples.jsonl"),
                            "--corpus", str(SAMPLES_DIR), "--limit", "3", "--json"))
    overall = report["groups"]["overall"]["all"]
    assert overall["n"] == 3 and overall["errors"] == 0
    assert 0 <= overall["cites_gold_document"] <= 1
    assert overall["total"]["median_ms"] > 0


def test_evaluate_answers_scores_user_questions_by_outcome():
    report = json.loads(run("evaluate", "answers", "--data", str(BENCH / "user_questions_samples.jsonl"),
                            "--corpus", str(SAMPLES_DIR), "--json"))
    answerable = report["groups"]["overall"]["answerable"]
    unanswerable = report["groups"]["overall"]["unanswerable"]
    assert (answerable["n"], unanswerable["n"]) == (4, 4)
    assert answerable["correct"] == 1.0 and answerable["false_decline"] == 0.0
    assert unanswerable["declined"] == 1.0 and unanswerable["false_assurance"] == 0.0
    assert set(report["groups"]["kind"]) >= {"deadline/answerable", "amount/unanswerable"}
    assert answerable["total"]["median_ms"] > 0


def test_evaluate_retrieval_measures_each_step_on_user_questions():
    args = ["evaluate", "retrieval", "--data", str(BENCH / "user_questions_samples.jsonl"),
            "--corpus", str(SAMPLES_DIR), "--json"]
    full = json.loads(run(*args))["groups"]["overall"]["all"]
    bare = json.loads(run(*args, "--no-routing", "--no-rerank"))["groups"]["overall"]["all"]
    assert full["n"] == bare["n"] == 4
    assert full["gold_in_context"] == 1.0 and full["gold_in_context"] >= bare["gold_in_context"]


def test_evaluate_plain_output_is_tables():
    out = run("evaluate", "retrieval", "--data", str(BENCH / "retrieval_samples.jsonl"),
              "--corpus", str(SAMPLES_DIR), "--k", "5")
    assert "Retrieval — overall" in out and "span_recall@5" in out


def test_evaluate_refuses_a_missing_file_and_bad_k():
    with pytest.raises(CommandError, match="no such file"):
        run("evaluate", "verification", "--data", "/nonexistent.jsonl")
    with pytest.raises(CommandError, match="--k"):
        run("evaluate", "retrieval", "--data", str(BENCH / "retrieval_samples.jsonl"),
            "--corpus", str(SAMPLES_DIR), "--k", "a,b")
