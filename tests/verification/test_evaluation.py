"""The offline Judge evaluation: metrics formulas, claim construction and the report."""

import io
import json

import pytest
from rich.console import Console

from verification.evaluation import (
    binary_and_class_metrics,
    claim_from_item,
    evaluate_verification,
    render_verification_report,
)

SOURCE = (
    "The Receiving Party shall return or destroy all Confidential Information within 30 days "
    "after termination of this Agreement. The Receiving Party shall not disclose Confidential "
    "Information to any third party. This Agreement is governed by the laws of Oregon."
)
RETURN = (
    "The Receiving Party shall return {} Confidential Information within {} days after termination."
)
ITEMS = [
    {"id": "1", "source": SOURCE, "label": "supported", "dataset": "legal",
     "claim": RETURN.format("or destroy", 30)},
    {"id": "2", "source": SOURCE, "label": "contradicted", "dataset": "legal",
     "claim": RETURN.format("all", 90)},
    {"id": "3", "source": SOURCE, "label": "not_supported", "dataset": "legal",
     "claim": "The Receiving Party must pay a fee of $5,000 for each audit of its programs."},
    {"id": "4", "label": "supported",
     "source": "Gillette Stadium is home to the New England Patriots.",
     "claim": "Question: Where do the Patriots play?\nAnswer: Gillette Stadium"},
]


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "verify.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in ITEMS) + "\n", encoding="utf-8")
    return path


def test_evaluation_reports_overall_and_per_dataset_metrics(data_file):
    report = evaluate_verification(data_file)
    assert report["overall"]["n"] == 4
    assert set(report["datasets"]) == {"legal", "all"}
    assert report["datasets"]["legal"]["n"] == 3
    assert report["overall"]["balanced_accuracy"] == pytest.approx(1.0)
    assert report["overall"]["confusion"]["contradicted"]["contradicted"] == 1
    assert report["overall"]["median_ms"] >= 0.0
    assert report["overall"]["p95_ms"] >= report["overall"]["median_ms"]


def test_helpful_mode_can_be_chosen(data_file):
    assert evaluate_verification(data_file, mode="helpful")["mode"] == "helpful"


def test_a_bad_label_is_an_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"source": "x", "claim": "y", "label": "maybe"}) + "\n")
    with pytest.raises(ValueError):
        evaluate_verification(path)


def test_balanced_accuracy_and_f1_follow_their_definitions():
    gold = ["supported", "supported", "not_supported", "contradicted"]
    pred = ["supported", "not_supported", "not_supported", "supported"]
    m = binary_and_class_metrics(gold, pred)
    # TPR = 1/2, TNR = 1/2 (one of the two negatives predicted negative).
    assert m["balanced_accuracy"] == pytest.approx(0.5)
    sup = m["per_class"]["supported"]
    assert (sup["precision"], sup["recall"], sup["f1"]) == pytest.approx((0.5, 0.5, 0.5))
    ns = m["per_class"]["not_supported"]
    assert (ns["precision"], ns["recall"]) == pytest.approx((0.5, 1.0))
    assert m["per_class"]["contradicted"]["f1"] == 0.0
    assert m["macro_f1"] == pytest.approx((0.5 + 2 / 3 + 0.0) / 3)
    assert m["confusion"]["contradicted"]["supported"] == 1


def qa(question: str, answer: str) -> str:
    return claim_from_item({"claim": f"Question: {question}\nAnswer: {answer}"})


def test_a_qa_claim_is_judged_by_its_answer():
    assert qa("Who?", "Carl Orff wrote it.") == "Carl Orff wrote it."


def test_a_yes_answer_asserts_the_question_and_a_no_answer_denies_it():
    question = "Are Calochone and Adlumia both plants?"
    assert qa(question, "yes") == "Are Calochone and Adlumia both plants"
    assert qa(question, "No") == "Are not Calochone and Adlumia both plants"


def test_a_pronoun_answer_borrows_the_names_of_the_question():
    assert qa("Alan Furst and Lee Child are what?", "Both are authors.") == (
        "Alan Furst Lee Child: Both are authors."
    )


def test_a_plain_claim_is_used_as_written():
    assert claim_from_item({"claim": "A plain claim. "}) == "A plain claim."


def test_the_report_renders_as_tables(data_file):
    console = Console(file=io.StringIO(), width=160)
    render_verification_report(evaluate_verification(data_file), console)
    out = console.file.getvalue()
    assert "balanced acc." in out and "legal" in out and "contradicted" in out
