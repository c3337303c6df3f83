"""What the session page shows of one turn, built from the stored turn and its events.

The same data drives the page on load and the fragment the page swaps in when a live
run ends, so a reload and a live run end looking the same.
"""

from __future__ import annotations

from collections import Counter

from ciq.web.citations import citation_cards, claim_per_marker
from ciq.web.rendering import answer_html
from ciq.web.selectors import UNFINISHED
from sessions.models import EventType, Outcome, RunStatus, Turn
from sessions.run_state import ERROR_WORDS, run_state
from sessions.selectors import turn_as_dict

TRACE_LABELS = {
    EventType.REASONING_THOUGHT: "Thinking",
    EventType.REASONING_ACTION: "Planning action",
    EventType.REASONING_OBSERVATION: "Observing",
    EventType.REASONING_CONCLUSION: "Concluding",
}


def turn_view(*, turn: Turn, events: list[dict]) -> dict:
    """Template data for ``turn``: everything of ``turn_as_dict`` plus ``live`` (the run
    has not finished: the page fills it from events), ``answer_html``, ``trace`` (label,
    text, elapsed ms), ``lanes`` (per-lane found/kept/top titles), ``revision_notes``,
    per-claim ``unsupported`` flags and ``evidence_number`` (its citation number),
    ``outcome_label``, ``open_facets`` (the parts of the question left unanswered) and
    ``cards`` (the citations' hover cards, ``web.citations.citation_cards``),
    ``run_state`` (``sessions.run_state.run_state``, live turns only), ``error_words``
    (the failure's code in words) and ``retryable`` (ended in error or cancelled).
    ``events``: the turn's stored event messages."""
    data = turn_as_dict(turn=turn, with_events=False)
    data["live"] = turn.status in UNFINISHED
    data["answer_html"] = answer_html(
        turn.answer_markdown, session_id=turn.session_id,
        claims=claim_per_marker(turn.answer_markdown, data["ledger"]))
    data["cards"] = citation_cards(data)
    data["trace"] = [
        {"label": TRACE_LABELS[e["type"]], "kind": e["type"].removeprefix("reasoning_"),
         "text": e.get("text", ""), "elapsed_ms": e.get("elapsed_ms")}
        for e in events if e["type"] in TRACE_LABELS
    ]
    retrieval = [e for e in events if e["type"] == EventType.RETRIEVAL_COMPLETED]
    data["lanes"] = retrieval[-1]["lanes"] if retrieval else {}
    data["revision_notes"] = {
        e["cycle"]: e.get("reason", "") for e in events if e["type"] == EventType.REVISION_STARTED
    }
    for r in data["revisions"]:  # the Critic's revision (sessions/critic.py)
        if r.get("author") == "critic" and r.get("edits"):
            actions = Counter(e["action"] for e in r["edits"])
            data["revision_notes"][r["cycle"]] = "the Critic tightened it (" + ", ".join(
                f"{n} {action}" for action, n in actions.items()) + ")"
    numbers = {c["chunk_id"]: c["number"] for c in data["citations"]}
    for row in data["ledger"]:
        row["unsupported"] = row["verdict"] != "supported"
        row["evidence_number"] = numbers.get(row["evidence_chunk_id"])
    data["outcome_label"] = Outcome(turn.outcome).label if turn.outcome else ""
    data["open_facets"] = [f["text"] for f in (turn.answerability or {}).get("facets", [])
                           if not f.get("addressed")]
    errors = [e for e in events if e["type"] == EventType.ERROR]
    data["error_message"] = errors[-1]["message"] if errors else turn.error
    data["error_words"] = ERROR_WORDS.get(errors[-1].get("code", ""), "") if errors else ""
    data["run_state"] = run_state(turn=turn) if data["live"] else None
    data["retryable"] = turn.status in (RunStatus.ERROR, RunStatus.CANCELLED)
    return data
