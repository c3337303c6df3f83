"""Generated training pairs for the Judge's classifier (issue 10).

Real sentences of the corpus (with a modal verb, 60–280 characters) are perturbed the
ways a Writer misstates a rule: a number or period changed, the modality flipped, a
negation added or removed, two parties swapped, a detail added, or a nearby sentence of
the same document stated as if the passage said it; and reworded the ways it restates a
rule faithfully (modal phrases, plain words for legal ones, clauses reordered, numbering
and parenthesised numerals dropped, a fragment). The evidence is the sentence with one
neighbour on each side, as in the validation set.

Documents of the hand-written validation set and the ContractNLI documents (whose NDAs the
benchmark's dev items are drawn from) are left out, so the validation figures measure
passages the classifier never saw. Everything is seeded: the same corpus gives the same
pairs.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from verification.evidence import quantities
from verification.reading import parties
from verification.training.corpus import (
    LABEL_OF_KIND,
    document_sentences,
    manifest,
    passage_around,
)
from verification.training.legal_set import CLAIMS_FILE

SEED = 20240610
PER_DOCUMENT = 14
_MODAL_RE = re.compile(r"\b(shall|must|may)\b")

_PLAIN = [
    (r"\bprior to\b", "before"), (r"\bpursuant to\b", "under"), (r"\bin accordance with\b", "under"),
    (r"\bin the event that\b", "if"), (r"\bupon\b", "on"), (r"\bcommence\b", "begin"),
    (r"\bterminate\b", "end"), (r"\bobtain\b", "get"), (r"\bnotify\b", "tell"),
    (r"\bshall be deemed\b", "is treated as"), (r"\bwithin\b", "no later than"),
    (r"\bsuch\b", "that"), (r"\badditional\b", "further"), (r"\bprovided that\b", "as long as"),
    (r"\bthereof\b", "of it"), (r"\bherein\b", "in this agreement"), (r"\bnot less than\b", "at least"),
    (r"\bnot more than\b", "at most"), (r"\bpromptly\b", "quickly"), (r"\bsubsequent to\b", "after"),
    (r"\bprovide\b", "give"), (r"\bsubmit\b", "send in"), (r"\bdesignate\b", "name"),
    (r"\beach\b", "every"), (r"\bentire\b", "whole"), (r"\bsufficient\b", "enough"),
    (r"\bexceed\b", "go over"), (r"\breceive\b", "get"), (r"\bperform\b", "carry out"),
    (r"\bdetermine\b", "decide"), (r"\bestablish\b", "set up"), (r"\bappropriate\b", "proper"),
    (r"\bmaintain\b", "keep"), (r"\bexecute\b", "sign"), (r"\butilize\b", "use"),
    (r"\bindividual\b", "person"), (r"\bprohibited\b", "not allowed"), (r"\bremove\b", "take away"),
    (r"\bis effective\b", "takes effect"), (r"\bapprove\b", "agree to"), (r"\bassist\b", "help"),
]
_OPENERS = ["In short, ", "As a rule, ", "Put simply, ", "In practice, ", "Generally, ", ""]
_MODAL_SWAPS = {
    "shall not": ["must not", "may not", "cannot"], "may not": ["must not", "cannot", "shall not"],
    "must not": ["shall not", "may not"], "shall": ["must", "is required to", "has to"],
    "must": ["shall", "is required to", "has to"], "may": ["can", "is allowed to", "is permitted to"],
}
_FLIPS = {"shall not": "may", "must not": "may", "may not": "must", "shall": "may", "must": "may",
          "may": "shall"}
_EXTRAS = [
    "by certified mail", "at its own expense", "within ten business days", "after a public hearing",
    "unless the parties agree otherwise in writing", "and must keep a copy for five years",
    "subject to a fee of $75", "with the approval of the state treasurer",
    "and the decision is final", "in the presence of a notary", "for a period of 90 days",
    "before the end of each fiscal quarter", "and must publish it in a newspaper",
    "except on weekends and holidays", "and no appeal is allowed", "at least twice a year",
    "with a copy to the county clerk", "upon payment of a $250 deposit",
]


def _modal_phrase(sentence: str) -> str | None:
    m = re.search(r"\b(shall not|must not|may not|shall|must|may)\b", sentence)
    return m.group(1) if m else None


def _sub_modal(sentence: str, old: str, new: str) -> str:
    return re.sub(rf"\b{old}\b", new, sentence, count=1)


def paraphrase(sentence: str, rng: random.Random) -> str:
    """A faithful rewording: numbering dropped, modal phrase and plain words swapped,
    "If X, Y" reordered to "Y if X", "five (5)" to "five"."""
    out = re.sub(r"^(?:\(?[0-9a-zA-Z]{1,3}[.)]\s*)+", "", sentence).strip()
    out = re.sub(r"\s\(\d+\)", "", out)
    modal = _modal_phrase(out)
    if modal:
        out = _sub_modal(out, modal, rng.choice(_MODAL_SWAPS[modal]))
    swaps = [(a, b) for a, b in _PLAIN if re.search(a, out, re.IGNORECASE)]
    for a, b in rng.sample(swaps, min(len(swaps), 4)):
        out = re.sub(a, b, out, count=1, flags=re.IGNORECASE)
    m = re.match(r"^(If|When|Unless|Upon|Where)\s+([^,]{10,120}),\s+(.+?)\.?$", out)
    if m and rng.random() < 0.7:
        main = m.group(3)
        out = f"{main[0].upper()}{main[1:]} {m.group(1).lower()} {m.group(2)}."
    if not out:
        return out
    opener = rng.choice(_OPENERS)
    return opener + (out[0].lower() if opener else out[0].upper()) + out[1:]


def _fragment(sentence: str) -> str | None:
    modal = _MODAL_RE.search(sentence)
    if not modal:
        return None
    head = sentence[: modal.start()].split(",")[-1].strip()
    tail = sentence[modal.start() :].split(",")[0].strip()
    frag = f"{head} {tail}".strip()
    return frag if len(frag.split()) >= 6 and frag != sentence else None


def _number_changed(sentence: str, rng: random.Random) -> str | None:
    qs = [q for q in quantities(sentence) if q.unit and q.unit not in ("year_date",)]
    qs += [q for q in quantities(sentence) if not q.unit and q.text.isdigit() and len(q.text) <= 3]
    if not qs:
        return None
    q = rng.choice(qs)
    written = q.value / q.per  # "5 years" is valued as 60 months: change the 5
    value = int(written) if written == int(written) else written
    new = rng.choice([v for v in (value * 2, value * 3, value + 5, max(1, value // 2), value * 10)
                      if v != value])
    m = re.search(r"\d[\d,]*(?:\.\d+)?", q.text)
    if not m:
        return None
    new_text = q.text[: m.start()] + (f"{new:,}" if "," in m.group() else str(new)) + q.text[m.end() :]
    # Drop "five (5)"-style number words so the changed digit is the only number said.
    out = sentence.replace(q.text, new_text, 1)
    return re.sub(r"\b[a-z]+(?:-[a-z]+)?\s\((\d+)\)", r"\1", out) if out != sentence else None


def _negated(sentence: str) -> str | None:
    modal = _modal_phrase(sentence)
    if modal is None:
        return None
    if modal.endswith(" not"):
        return _sub_modal(sentence, modal, modal[:-4])
    return _sub_modal(sentence, modal, modal + " not")


def _party_swapped(sentence: str) -> str | None:
    found = [p for p in parties(sentence)]
    words = re.findall(r"\b[\w'’]+\b", sentence)
    surface = {}
    for w in words:
        from verification.evidence import token_term

        t = token_term(w.lower())
        if t in found and t not in surface:
            surface[t] = w
    names = [surface[p] for p in found if p in surface]
    if len(names) < 2:
        return None
    a, b = names[0], names[1]
    if a.lower() == b.lower():
        return None
    out = re.sub(rf"\b({re.escape(a)}|{re.escape(b)})\b", lambda m: b if m.group() == a else a,
                 sentence)
    return out if out != sentence else None


def _with_extra(sentence: str, rng: random.Random, passage: str) -> str:
    extras = [e for e in _EXTRAS if e.split()[-1].lower() not in passage.lower()]
    return sentence.rstrip(" .;:") + " " + rng.choice(extras) + "."


def _validation_documents() -> set[str]:
    return {p["doc"] for p in json.loads(CLAIMS_FILE.read_text(encoding="utf-8"))}


def generate_pairs(corpus: Path, *, seed: int = SEED) -> list[dict]:
    """Training pairs ``{"id", "dataset": "generated", "doc", "kind", "source", "claim",
    "label"}`` from the corpus, deterministic for one corpus and seed."""
    held_out = _validation_documents()
    items: list[dict] = []
    for path, row in sorted(manifest(corpus).items()):
        if (path in held_out or "/contractnli/" in path
                or not path.endswith((".txt", ".md", ".html"))):
            continue
        rng = random.Random(f"{seed}:{path}")
        sentences = document_sentences(corpus / path)
        eligible = [i for i, s in enumerate(sentences)
                    if 60 <= len(s) <= 280 and _MODAL_RE.search(s) and not s.isupper()]
        for i in rng.sample(eligible, min(PER_DOCUMENT, len(eligible))):
            sent = sentences[i]
            passage = passage_around(sentences, i)
            made: list[tuple[str, str | None]] = [
                ("verbatim", sent if rng.random() < 0.4 else _fragment(sent) or sent),
                ("paraphrase", paraphrase(sent, rng)),
                ("number", _number_changed(sent, rng)),
                ("modality", (lambda m: _sub_modal(sent, m, _FLIPS[m]) if m else None)(
                    _modal_phrase(sent))),
                ("negated", _negated(sent)),
                ("party", _party_swapped(sent)),
                ("extra", _with_extra(sent, rng, passage)),
            ]
            far = [j for j in eligible if abs(j - i) > 2]
            if far:
                made.append(("unrelated", sentences[rng.choice(far)]))
            for kind, claim in made:
                if not claim or (kind not in ("verbatim",) and claim == sent):
                    continue
                items.append({
                    "id": f"gen-{len(items) + 1:05d}", "dataset": "generated", "doc": path,
                    "level": row["jurisdiction_level"], "kind": kind, "source": passage,
                    "claim": claim, "label": LABEL_OF_KIND[kind],
                })
    return items
