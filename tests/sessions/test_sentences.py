"""What the extractive Writer and the Skeptic take for one sentence: pinpoints that pysbd
splits, lists whose labels change style, and schedules laid out with tabs (issue 9)."""

from ciq.text import sentence_spans
from retrieval.search import RetrievedChunk
from sessions.writer import _chunk_sentences, clean_sentence, tabbed_sentences
from verification.skeptic import RuleSkeptic

PINPOINTS = ("A public body that registers one or more unmanned aircraft systems under subsection "
             "(2)(a) of this section shall provide an annual report to the department [cite:0b14c0ee55f0]. "
             "The owner of a civil aircraft shall register it within 60 days [cite:0b14c0ee55f1]. "
             "A school that registers under subsection (2) (b) of this section shall keep records "
             "[cite:0b14c0ee55f2].")


def test_a_pinpoint_with_two_labels_stays_in_its_sentence():
    sentences = [PINPOINTS[s:e] for s, e in sentence_spans(PINPOINTS)]
    assert len(sentences) == 3
    assert sentences[0].startswith("A public body") and sentences[0].endswith("[cite:0b14c0ee55f0].")
    # Every claim keeps the citation of the sentence it came from.
    claims = RuleSkeptic().extract(PINPOINTS)
    assert [c.cited_chunk_ids for c in claims] == [("0b14c0ee55f0",), ("0b14c0ee55f1",), ("0b14c0ee55f2",)]


def test_a_label_before_a_capital_still_starts_an_item():
    text = "Heading of the section\n(a) The owner shall register. The rule applies (see below). (b) Next."
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Heading of the section", "(a) The owner shall register.", "The rule applies (see below).",
        "(b) Next."]


def _chunk(text: str) -> RetrievedChunk:
    return RetrievedChunk(chunk_pk=1, chunk_id="0b14c0ee55f0", document_id=1, document_title="ORS ch. 837",
                          citation_label="ORS 837.360", jurisdiction="US-OR", jurisdiction_level="state",
                          lane="statewide", heading="837.360", text=text, char_start=0, char_end=len(text),
                          page_start=None, page_end=None, last_updated=None, bm25=1.0)


def test_a_list_ends_where_its_labels_change_style():
    text = ("(2) A public body that registers one or more drones shall provide an annual report to the "
            "department that:\n(A) Summarizes the frequency of use of the drones during the year;\n"
            "(B) Indicates how the public can access the policies of the public body;\n"
            "(3) The State Aviation Board may adopt all rules necessary for the registration of drones.")
    sentences, _ = _chunk_sentences(_chunk(text))
    joined = [s for s in sentences if s.count("annual report") and "Board" in s]
    items = [s for s in sentences if s.startswith("(2) A public body") and len(s) > 120]
    assert not joined  # "(3)" is the next subsection, not an item of the (A), (B) list
    assert len(items) == 2 and items[1].endswith("policies of the public body;")


SCHEDULE = ("160 Fee Schedule\n\nZoning & Subdivision\n\t\n\n\t   Rezoning\n\t\n\n\t      R-A, R-1\n\t$100\n"
            "\t      PUD, B-2\n\t$250\n\t              + Certified mailings*\n\tPer adjoiner, @ $2.79\n"
            "\tBuilding Fees & Permits\n\t\n\n\t Dwelling or Addition  \n\t$0.20/sq ft-$75 Minimum\n"
            "\t Garages      \n\t$50\n\t   Farm and Accessory Buildings\n\t\n\n"
            "\t        20+ acres for agriculture use only\n        (permit is still required to build\n"
            "         any structure over 125 sq. ft.)\n\tN/C\n\tFinal Plat (each phase)\n\tNo P&Z charge\n")


def test_a_schedule_laid_out_with_tabs_reads_as_rows_under_their_group():
    rows = tabbed_sentences(SCHEDULE)
    assert "Building Fees & Permits — Dwelling or Addition: $0.20/sq ft-$75 Minimum." in rows
    assert "Rezoning — PUD, B-2: $250." in rows
    assert "Rezoning — + Certified mailings*: Per adjoiner, @ $2.79." in rows
    assert ("Farm and Accessory Buildings — 20+ acres for agriculture use only (permit is still required "
            "to build any structure over 125 sq. ft.): N/C.") in rows
    assert rows[-1].endswith("Final Plat (each phase): No P&Z charge.")
    # Every word of a row is in the chunk, so the Judge can match it to its evidence.
    words = set(SCHEDULE.replace("\n", " ").replace("\t", " ").split())
    assert all(w in words for row in rows for w in row.rstrip(".").replace(" — ", " ").split()
               if w not in {"—"} and not w.endswith(":"))


def test_prose_with_a_stray_tab_has_no_schedule():
    assert tabbed_sentences("The fee is due.\n\t$75 is charged for a permit.\nThat is all.") == []


def test_a_schedule_row_that_opens_with_its_amount_is_quotable():
    row = "$50.00 per Lot fronting on existing County or Special Road District maintained gravel road."
    assert clean_sentence(row) == row
    assert clean_sentence("per Lot fronting on an existing County maintained gravel road.") is None


# Ray County Zoning Regulations: a numbered rule and its lettered exceptions, wide spacing
# after each label.
FENCES = ("7.        No fence shall be constructed of a height greater than 8 feet, except:\n\n\n"
          "                a.        fences erected upon public or parochial school grounds or in "
          "public parks, in public playgrounds or on other public lands; and\n\n\n"
          "                b.        fence heights of greater than 8 feet  authorized by Conditional "
          "Use Permit (See Article 30.9).")


def test_a_label_alone_belongs_to_the_sentence_after_it():
    assert [FENCES[s:e].split()[0] for s, e in sentence_spans(FENCES)] == ["7.", "a.", "b."]
    # so the rule is quoted with each exception, which pysbd had cut off from it
    raw, _ = _chunk_sentences(_chunk(FENCES))
    assert any(clean_sentence(s) == "No fence shall be constructed of a height greater than 8 feet, except: "
               "fence heights of greater than 8 feet authorized by Conditional Use Permit (See Article 30.9)."
               for s in raw)
