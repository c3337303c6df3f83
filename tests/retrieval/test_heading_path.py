"""Heading paths (issue 13, item 2): each chunk stores the headings that enclose it at
ingest, the pinpoint cites the enclosing section with them, and over the whole shared
corpus every chunk with a heading is cited with its section or heading.

The corpus-wide share chunks every document without the database (extract → chunk →
pinpoint, the metadata from the corpus manifest): about 10 s on the 172 documents."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from retrieval.chunking import chunk_text, heading_rank
from retrieval.extract import extract_text
from retrieval.heading_paths import heading_paths_backfill
from retrieval.manifest import read_manifest
from retrieval.models import Chunk, heading_for_pinpoint
from retrieval.pinpoint import pinpoint_label
from retrieval.search import Budget, chunks_retrieve
from sessions.selectors import source_pinpoint
from tests.conftest import CORPUS_DIR, SAMPLES_DIR

needs_corpus = pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason=f"no shared corpus at {CORPUS_DIR}")

RAY = "county/us-mo-ray-county/ray_county_planning_and_zoning_regulations_2005.txt"
CFR_1006 = "federal/us-cfr-12/12cfr1006_fair_debt_collection_practices_act.txt"
CFR_1022 = "federal/us-cfr-12/12cfr1022_fair_credit_reporting.txt"


def spans_of(relative: str, root=SAMPLES_DIR):
    extracted = extract_text(root / relative)
    return extracted.text, chunk_text(extracted.text, extracted.page_starts)


def test_heading_ranks_follow_how_codes_nest():
    order = ["# Title", "## Chapter", "PART 1005—ELECTRONIC FUND TRANSFERS", "Subpart A—General",
             "CALL TO ORDER", "§ 1005.3 Coverage.", "10.10 Word Usage", "10.10.1 More",
             "A. Meanings and Intent", "1. Applications Submitted", "(a) General."]
    ranks = [heading_rank(line) for line in order]
    assert ranks == sorted(ranks)
    assert heading_rank("Section 4.2 Term") == heading_rank("837.380 Registration.")


def test_a_county_code_chunk_names_its_article_section_and_subsection():
    _, spans = spans_of(RAY)
    span = next(s for s in spans if s.heading.startswith("A. Meanings and Intent"))
    assert span.heading_path == ("Article 10 Introductory Provisions",
                                 "10.10 Word Usage and Construction of Language",
                                 "A. Meanings and Intent")
    # The next section closes the lettered subsection and the section before it.
    after = next(s for s in spans if s.heading.startswith("B. District Boundaries"))
    assert after.heading_path == ("Article 10 Introductory Provisions", "10.11 Zoning District Map",
                                  "B. District Boundaries")
    # Every path ends with the chunk's own heading, and only an empty heading has none.
    assert all((s.heading_path[-1] == s.heading) if s.heading else not s.heading_path
               for s in spans)


def test_a_cfr_section_sits_under_its_part():
    _, spans = spans_of(CFR_1006)
    span = next(s for s in spans if s.heading.startswith("§ 1006.6 "))
    assert span.heading_path[0].startswith("PART 1006")
    assert span.heading_path[-1] == span.heading


@needs_corpus
def test_a_cfr_subpart_title_standing_alone_encloses_its_sections():
    # 12 CFR 1022 names its subparts by a bare title line between blank lines ("Affiliate
    # Marketing"): § 1022.22(b)'s "at least five years" is about affiliate marketing only
    # through it (memo-01, issue 13).
    _, spans = spans_of(CFR_1022, root=CORPUS_DIR)
    duration = next(s for s in spans if s.heading.startswith("§ 1022.22 "))
    assert duration.heading_path == ("PART 1022—FAIR CREDIT REPORTING (REGULATION V)",
                                     "Affiliate Marketing", "§ 1022.22 Scope and duration of opt-out.")
    first = next(s for s in spans if s.heading.startswith("§ 1022.1 "))
    assert first.heading_path[1] == "General Provisions"
    # The next subpart's title closes the one before it.
    later = next(s for s in spans if s.heading.startswith("§ 1022.30 "))
    assert later.heading_path[1] == "Medical Information"
    users = next(s for s in spans if s.heading.startswith("§ 1022.54 "))
    assert users.heading_path[1] == "Duties of Users Regarding Obtaining and Using Consumer Reports"


def test_a_short_line_between_paragraphs_is_a_title_only_in_title_case():
    text = ("PART 9—EXAMPLE\n\nGeneral Provisions\n\n§ 9.1 Scope.\nThis part applies to banks.\n\n"
            "Signed for the bank\n\n§ 9.2 Duty.\nA bank shall keep records.\n")
    spans = chunk_text(text, None, min_words=1, max_words=8, overlap_words=0)
    paths = {s.heading: s.heading_path for s in spans}
    assert paths["§ 9.1 Scope."] == ("PART 9—EXAMPLE", "General Provisions", "§ 9.1 Scope.")
    assert paths["§ 9.2 Duty."] == ("PART 9—EXAMPLE", "General Provisions", "§ 9.2 Duty.")


def test_ingest_stores_the_path_and_the_pinpoint_cites_the_enclosing_section(demo_workspace):
    chunk = (Chunk.objects.select_related("document")
             .filter(document__workspace=demo_workspace, heading__startswith="A. Meanings and Intent")
             .first())
    assert chunk.heading_path[-1] == chunk.heading and len(chunk.heading_path) == 3
    document = chunk.document
    assert pinpoint_label(citation_label=document.citation_label, title=document.title,
                          jurisdiction_level=document.jurisdiction_level,
                          heading=chunk.pinpoint_heading) \
        == "Ray County (MO) Planning & Zoning Regs. (2005) § 10.10, “A. Meanings and Intent”"
    # What a turn cites and stores carries the same pinpoint.
    found = chunks_retrieve("meanings and intent of the words in the zoning regulations",
                            workspace=demo_workspace, budget=Budget.flat(20)).chunks
    retrieved = next(c for c in found if c.chunk_id == chunk.chunk_id)
    assert retrieved.heading_path == tuple(chunk.heading_path)
    assert retrieved.pinpoint.endswith("§ 10.10, “A. Meanings and Intent”")
    source = retrieved.as_source()
    assert list(source["heading_path"]) == chunk.heading_path
    del source["pinpoint"]  # an older snapshot: computed on read, from the stored path
    assert source_pinpoint(source) == retrieved.pinpoint


def test_a_chunk_ingested_before_paths_keeps_its_one_line_pinpoint(demo_workspace):
    chunk = (Chunk.objects.select_related("document")
             .filter(document__workspace=demo_workspace, heading__startswith="A. Meanings and Intent")
             .first())
    Chunk.objects.filter(pk=chunk.pk).update(heading_path=[])
    chunk.refresh_from_db()
    assert chunk.pinpoint_heading == chunk.heading
    assert heading_for_pinpoint(None, None) == ""
    document = chunk.document
    assert pinpoint_label(citation_label=document.citation_label, title=document.title,
                          jurisdiction_level=document.jurisdiction_level,
                          heading=chunk.pinpoint_heading) \
        == "Ray County (MO) Planning & Zoning Regs. (2005), “A. Meanings and Intent”"


# --- the whole corpus, without the database ---------------------------------------------

_DESIGNATOR_RE = re.compile(
    r"(?:§|art\.|ch\.|subch\.|pt\.|subpt\.|app\.|Supp\.|sched\.|ex\.|annex|item|tit\.|ORS)\s+([^\s,]+)")
_QUOTED_RE = re.compile(r"“(.*?)”")
_PLACEHOLDER_RE = re.compile(r"\{\{(?:filled:)?([^}]*)\}\}")


def _fold(text: str) -> str:
    return "".join(re.findall(r"\w", _PLACEHOLDER_RE.sub(r"\1", text).casefold()))


def carriage(heading: str, title: str, pinpoint: str) -> str:
    """How ``pinpoint`` carries the chunk's own heading: "section" (the section it cites
    last is the number the heading opens with), "heading" (it quotes the heading's
    start, after any enclosing section), "title" (the heading is the document's title
    line, which the document's name stands for) or "" (lost). The same rule as
    tests/retrieval/test_pinpoint.py, applied to the innermost heading of the path."""
    cited = _DESIGNATOR_RE.findall(pinpoint)
    if cited and re.search(rf"(?<![\w.]){re.escape(cited[-1])}(?!\w)", heading[:60]):
        return "section"
    quoted = _QUOTED_RE.search(pinpoint)
    if quoted and _fold(quoted.group(1).rstrip("…")) in _fold(heading):
        return "heading"
    if _fold(heading) in _fold(title) or _fold(heading) in _fold(pinpoint):
        return "title"
    return ""


@needs_corpus
def test_every_corpus_chunk_with_a_heading_is_cited_with_it(capsys):
    manifest = read_manifest(CORPUS_DIR / "manifest.csv")
    counts: Counter = Counter()
    lost: list[tuple[str, str, str]] = []
    for relative, meta in sorted(manifest.items()):
        extracted = extract_text(CORPUS_DIR / relative)
        for span in chunk_text(extracted.text, extracted.page_starts):
            if not re.search(r"\w", span.heading):
                counts["no heading"] += 1
                continue
            counts["paths deeper than one"] += len(span.heading_path) > 1
            pinpoint = pinpoint_label(
                citation_label=meta.citation_label, title=meta.title,
                jurisdiction_level=meta.jurisdiction_level,
                heading=heading_for_pinpoint(span.heading, span.heading_path),
                page_start=span.page_start, page_end=span.page_end)
            how = carriage(span.heading, meta.title, pinpoint)
            counts[how or "lost"] += 1
            if how == "heading" and _DESIGNATOR_RE.search(pinpoint.split("“")[0]):
                counts["enclosing section added"] += 1
            if not how:
                lost.append((meta.citation_label, span.heading, pinpoint))
    with_heading = counts["section"] + counts["heading"] + counts["title"] + counts["lost"]
    carried = with_heading - counts["lost"]
    with capsys.disabled():
        print(f"\ncorpus ({len(manifest)} documents): {carried}/{with_heading} chunks with a heading "
              f"carry it in their citation ({carried / with_heading:.1%}): {counts['section']} by "
              f"section number, {counts['heading']} by quoted heading "
              f"({counts['enclosing section added']} after their enclosing section), "
              f"{counts['title']} by the document's name; {counts['paths deeper than one']} "
              f"paths deeper than one heading; {counts['no heading']} chunk(s) without a heading")
    assert len(manifest) == 172
    assert not lost, lost[:20]
    assert counts["enclosing section added"] > 0


def test_markdown_headings_of_one_level_nest_by_kind(demo_workspace):
    # Ord. 89-2018 heads its section and its lettered subsections alike ("### ").
    chunk = Chunk.objects.get(document__workspace=demo_workspace, text__contains="### (A) AUTHORITY")
    paths = [path for _, path in chunk.sections] or [chunk.heading_path]
    assert ["ORDINANCE NO. 89-2018", "Section 5.100. Tree Cutting", "(A) AUTHORITY"] in paths
    assert heading_rank("## (B) Any title") < heading_rank("### Section 5.100. Tree Cutting") \
        < heading_rank("### (A) AUTHORITY") < heading_rank("PART 1")


def test_the_backfill_gives_older_chunks_their_paths(demo_workspace):
    ray = Chunk.objects.filter(document__workspace=demo_workspace,
                               heading__startswith="A. Meanings and Intent").first().document
    before = list(ray.chunks.order_by("ordinal").values_list("heading_path", flat=True))
    Chunk.objects.filter(document=ray).update(heading_path=[], sections=None)
    ordinance = Chunk.objects.get(document__workspace=demo_workspace,
                                  text__contains="### (A) AUTHORITY").document
    Chunk.objects.filter(document=ordinance).update(heading_path=[], sections=None)
    first = ordinance.chunks.order_by("ordinal").first()
    Chunk.objects.filter(pk=first.pk).update(char_end=first.char_end - 1)  # chunked otherwise
    summary = heading_paths_backfill(workspace=demo_workspace)
    assert (summary.updated, summary.differ, summary.missing) == (1, 1, 0)
    assert summary.unchanged == demo_workspace.documents.count() - 2
    assert list(ray.chunks.order_by("ordinal").values_list("heading_path", flat=True)) == before
    assert not ordinance.chunks.exclude(heading_path=[]).exists()


def test_the_backfill_counts_an_unreadable_file_and_goes_on(demo_workspace, tmp_path, settings):
    settings.INGEST_ISOLATE = True
    ray = Chunk.objects.filter(document__workspace=demo_workspace,
                               heading__startswith="A. Meanings and Intent").first().document
    pdf = Chunk.objects.filter(document__workspace=demo_workspace, document__mime="application/pdf").first()
    Chunk.objects.filter(document__in=[ray, pdf.document]).update(heading_path=[], sections=None)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 50)
    type(pdf.document).objects.filter(pk=pdf.document_id).update(file="", source_path=str(broken))
    summary = heading_paths_backfill(workspace=demo_workspace)
    assert (summary.updated, summary.missing) == (1, 1)  # the broken PDF is counted, Ray County done
