"""Pinpoint citations (``retrieval.pinpoint``) on real documents: the samples ingested
into "Demo", a few files of the shared corpus, and the share of chunks whose pinpoint
carries their section or heading over the samples and the whole corpus."""

import re
from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from ciq.services import workspace_get_or_create
from retrieval.models import Chunk, section_path_at
from retrieval.pinpoint import pinpoint_label
from retrieval.services import documents_ingest
from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.django_db

needs_corpus = pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason=f"no shared corpus at {CORPUS_DIR}")


def pinpoint_of(chunk: Chunk, **kw) -> str:
    document = chunk.document
    return pinpoint_label(citation_label=document.citation_label, title=document.title,
                          jurisdiction_level=document.jurisdiction_level, heading=chunk.heading,
                          page_start=chunk.page_start, page_end=chunk.page_end, **kw)


def chunk_under(workspace, label: str, heading: str) -> Chunk:
    """The first chunk of the document labelled ``label…`` whose heading starts ``heading``."""
    chunk = (Chunk.objects.select_related("document")
             .filter(document__workspace=workspace, document__citation_label__startswith=label,
                     heading__startswith=heading).order_by("ordinal").first())
    assert chunk is not None, (label, heading)
    return chunk


# --- the samples ----------------------------------------------------------------------------

def test_a_cfr_rule_section_is_cited_by_title_and_section(demo_workspace):
    chunk = chunk_under(demo_workspace, "12 CFR Part 1006", "§ 1006.6 ")
    assert pinpoint_of(chunk) == "12 CFR § 1006.6"


def test_an_ors_section_is_cited_by_its_number_alone(demo_workspace):
    chunk = chunk_under(demo_workspace, "ORS ch. 837", "837.365 ")
    assert pinpoint_of(chunk) == "ORS 837.365"


def test_an_ordinance_section_keeps_the_ordinance_number(demo_workspace):
    assert pinpoint_of(chunk_under(demo_workspace, "Rivergrove Ord. No. 54-89C", "Section 8.040.")) \
        == "Rivergrove Ord. No. 54-89C § 8.040"
    assert pinpoint_of(chunk_under(demo_workspace, "Rivergrove Ord. No. 52", "4.1-1 ")) \
        == "Rivergrove Ord. No. 52 § 4.1-1"
    assert pinpoint_of(chunk_under(demo_workspace, "Rivergrove Ord. No. 89-2018", "(I) EVIDENCE")) \
        == "Rivergrove Ord. No. 89-2018 § (I)"
    assert pinpoint_of(chunk_under(demo_workspace, "Rivergrove Ord. No. 54-89C", "ARTICLE 5")) \
        == "Rivergrove Ord. No. 54-89C art. 5"


def test_an_ordinance_whose_sections_run_into_their_text_is_cited_by_section(demo_workspace):
    # Ord. 88-2017 opens each section with a bold label on the line that holds its text
    # ("**Section 2.** Rivergrove Ordinance No. 70-2001 is amended …"): each is a section.
    chunk = chunk_under(demo_workspace, "Rivergrove Ord. No. 88-2017", "Section 3.")
    assert chunk.text.lstrip().startswith("**Section 3.**")
    assert pinpoint_of(chunk) == "Rivergrove Ord. No. 88-2017 § 3"
    dock = Chunk.objects.get(document=chunk.document, text__contains="The dock shall not exceed 12 feet")
    path = section_path_at(dock.sections, dock.heading_path, dock.text.index("The dock shall not exceed"))
    document = dock.document
    assert pinpoint_label(citation_label=document.citation_label, title=document.title,
                          jurisdiction_level=document.jurisdiction_level, heading=path) \
        == "Rivergrove Ord. No. 88-2017 § 2"


def test_a_contract_is_cited_by_its_title_and_clause(demo_workspace):
    chunk = chunk_under(demo_workspace, "CUAD: DeltathreeInc", "Section 6.03 [Effect of Termination]")
    assert pinpoint_of(chunk) == "Co-Branding And Services Agreement § 6.03"
    chunk = chunk_under(demo_workspace, "ContractNLI doc 590", "7. REMEDIES")
    assert pinpoint_of(chunk) == "NON-DISCLOSURE AGREEMENT (3M Company) § 7"


def test_a_pdf_contract_adds_its_pages(demo_workspace):
    chunk = chunk_under(demo_workspace, "CUAD: GpaqAcquisitionHoldings", "6.7 Force Majeure")
    assert chunk.page_start and chunk.page_end
    pages = (f"p. {chunk.page_start}" if chunk.page_start == chunk.page_end
             else f"pp. {chunk.page_start}–{chunk.page_end}")
    assert pinpoint_of(chunk) == f"Sponsorship And Services Agreement § 6.7, {pages}"


def test_a_heading_without_a_number_is_quoted_with_the_page(demo_workspace):
    chunk = chunk_under(demo_workspace, "Rivergrove Council Minutes 2018-08-13", "CALL TO ORDER")
    assert pinpoint_of(chunk) == "Rivergrove Council Minutes 2018-08-13, “CALL TO ORDER AND ROLL CALL”, p. 1"
    # A lettered subsection of the county code names no section of its own.
    chunk = chunk_under(demo_workspace, "Ray County (MO)", "A. Meanings and Intent")
    assert pinpoint_of(chunk) == "Ray County (MO) Planning & Zoning Regs. (2005), “A. Meanings and Intent”"
    chunk = chunk_under(demo_workspace, "Ray County (MO)", "10.2 Authority")
    assert pinpoint_of(chunk) == "Ray County (MO) Planning & Zoning Regs. (2005) § 10.2"


def test_the_plain_style_is_title_heading_page(demo_workspace, settings):
    settings.CITATION_STYLE = "plain"
    chunk = chunk_under(demo_workspace, "CUAD: GpaqAcquisitionHoldings", "6.7 Force Majeure")
    assert pinpoint_of(chunk).startswith(
        "Sponsorship And Services Agreement between HOF Village, LLC, National Football Museum, "
        "Inc. d/b/a Pro Football Hall of Fame and HOFV and/or PFHOF, and Constellation, "
        "6.7 Force Majeure, p")
    chunk = chunk_under(demo_workspace, "12 CFR Part 1006", "§ 1006.6 ")
    assert pinpoint_of(chunk) == ("12 CFR Part 1006 — Fair Debt Collection Practices Act "
                                  "(Regulation F), § 1006.6 Exemption from requirements")


def test_an_unknown_style_is_refused_by_the_function_and_the_system_check(demo_workspace, settings):
    settings.CITATION_STYLE = "chicago"
    with pytest.raises(ValueError):
        pinpoint_of(chunk_under(demo_workspace, "12 CFR Part 1006", "§ 1006.6 "))
    with pytest.raises(SystemCheckError, match=r"ciq.E004.*CITATION_STYLE='chicago'"):
        call_command("check")


def test_a_heading_path_cites_the_enclosing_section_and_quotes_the_subheading():
    pinpoint = pinpoint_label(
        citation_label="Ray County (MO) Planning & Zoning Regs. (2005)", title="",
        jurisdiction_level="county", heading=["40.5 R-1A Residential Low Density District",
                                              "B. Use Regulations"])
    assert pinpoint == "Ray County (MO) Planning & Zoning Regs. (2005) § 40.5, “B. Use Regulations”"


def test_a_label_that_names_a_section_gives_way_to_the_chunks_own():
    assert pinpoint_label(citation_label="21 C.F.R. § 117.5", title="", jurisdiction_level="federal",
                          heading="§ 117.7 Applicability.") == "21 C.F.R. § 117.7"
    assert pinpoint_label(citation_label="Rivergrove Café Ord. § 7.2", title="",
                          jurisdiction_level="municipal", heading="§ 7.2 Floating docks") \
        == "Rivergrove Café Ord. § 7.2"


def test_nothing_known_gives_an_empty_label():
    assert pinpoint_label(citation_label=None, title=None, jurisdiction_level=None, heading=None) == ""


# --- corpus documents the samples lack ------------------------------------------------------

CORPUS_FILES = [
    "federal/us-cfr-12/12cfr1005_electronic_fund_transfers.txt",
    "federal/us-cfr-12/12cfr1030_truth_in_savings.txt",
    "state/us-or/ors_chapter_072A.html",
    "state/us-or/ors_chapter_414.html",
    "private/cuad_pdf/PaperexchangeComInc_20000322_S-1A_EX-10.4_5202103_EX-10.4_Co-Branding_Agreement.pdf",
    "municipal/us-or-rivergrove/other/1974-City-Charter.md",
    "municipal/us-or-rivergrove/ordinances/2001-Ord-70-2001-WQRA.md",
    "municipal/us-or-rivergrove/interpretations/1997-07-07-RE-2.040h-permitting-adus.md",
]


@needs_corpus
def test_corpus_documents_get_their_pinpoints():
    workspace = workspace_get_or_create(name="Pinpoints")
    summary = documents_ingest(workspace=workspace, paths=[CORPUS_DIR / f for f in CORPUS_FILES],
                               manifest=CORPUS_DIR / "manifest.csv")
    assert (summary.documents, summary.failed) == (len(CORPUS_FILES), 0), summary.failures

    def cite(label, heading):
        return pinpoint_of(chunk_under(workspace, label, heading))

    # Regulation E: the rule, its official interpretations (Supplement I), an appendix,
    # and a comment paragraph whose section the chunk's heading does not name.
    assert cite("12 CFR Part 1005", "§ 1005.6 ") == "12 CFR § 1005.6"
    assert cite("12 CFR Part 1005", "Section 1005.9 ") == "12 CFR pt. 1005, Supp. I, § 1005.9"
    assert cite("12 CFR Part 1005", "Appendix A to Part 1005") == "12 CFR pt. 1005, app. A"
    assert cite("12 CFR Part 1005", "2. Fund transfers not covered") \
        == "12 CFR Part 1005 (Regulation E), “2. Fund transfers not covered”"
    assert cite("12 CFR Part 1030", "Appendix C to Part 1030") == "12 CFR pt. 1030, app. C"
    # ORS: a section of a lettered chapter; a session-law note is no ORS section.
    assert cite("ORS ch. 72A", "72A.1030 ") == "ORS 72A.1030"
    assert cite("ORS ch. 414", "Sec. 4. ").startswith("ORS ch. 414 (2021 ed.), “Sec. 4.")
    # A PDF contract's numbered clause with its pages.
    chunk = chunk_under(workspace, "CUAD: PaperexchangeCom", "7.7. Audits.")
    assert pinpoint_of(chunk) == "Co-Branding Agreement § 7.7, " + chunk.pages
    # Charter chapters and sections; an ordinance's roman-numbered sections.
    assert cite("Rivergrove Charter (1974)", "CHAPTER VI") == "Rivergrove Charter (1974) ch. VI"
    assert cite("Rivergrove Charter (1974)", "Section 4. ") == "Rivergrove Charter (1974) § 4"
    assert cite("Rivergrove Ord. No. 70-2001", "Section XII") == "Rivergrove Ord. No. 70-2001 § XII"
    # An interpretation's heading names the ordinance section it interprets, not its own.
    assert cite("Rivergrove PC Interp. 1997-07-07", "Section 2.040(h), Rivergrove") \
        == "Rivergrove PC Interp. 1997-07-07, “Section 2.040(h), Rivergrove Land Development Ordinance”"


# --- how many pinpoints carry their chunk's section or heading ------------------------------

_DESIGNATOR_RE = re.compile(
    r"(?:§|art\.|ch\.|subch\.|pt\.|subpt\.|app\.|Supp\.|sched\.|ex\.|annex|item|tit\.|ORS)\s+([^\s,]+)")
_QUOTED_RE = re.compile(r"“(.*?)”")
_PLACEHOLDER_RE = re.compile(r"\{\{(?:filled:)?([^}]*)\}\}")


def _fold(text: str) -> str:
    return "".join(re.findall(r"\w", _PLACEHOLDER_RE.sub(r"\1", text).casefold()))


def carriage(chunk: Chunk, pinpoint: str) -> str:
    """How ``pinpoint`` carries the chunk's heading, checked against the heading itself:
    "section" (the section it cites is the number the heading opens with), "heading"
    (it quotes the heading's start), "title" (the heading is the document's title line,
    which the document's name stands for) or "" (lost)."""
    heading = chunk.heading
    cited = _DESIGNATOR_RE.findall(pinpoint)
    if cited and re.search(rf"(?<![\w.]){re.escape(cited[-1])}(?!\w)", heading[:60]):
        return "section"
    quoted = _QUOTED_RE.search(pinpoint)
    if quoted and _fold(quoted.group(1).rstrip("…")) in _fold(heading):
        return "heading"
    if _fold(heading) in _fold(chunk.document.title) or _fold(heading) in _fold(pinpoint):
        return "title"
    return ""


def pinpoint_share(workspace) -> tuple[Counter, list[tuple[str, str, str]]]:
    """Per-kind counts over the workspace's chunks that have a heading, and the lost ones."""
    counts: Counter = Counter()
    lost = []
    chunks = Chunk.objects.filter(document__workspace=workspace).select_related("document")
    for chunk in chunks.iterator():
        if not re.search(r"\w", chunk.heading):
            counts["no heading"] += 1
            continue
        pinpoint = pinpoint_of(chunk)
        how = carriage(chunk, pinpoint)
        counts[how or "lost"] += 1
        if not how:
            lost.append((chunk.document.citation_label, chunk.heading, pinpoint))
    return counts, lost


def report(name: str, counts: Counter) -> str:
    with_heading = sum(n for k, n in counts.items() if k != "no heading")
    carried = with_heading - counts["lost"]
    return (f"{name}: {carried}/{with_heading} chunks with a heading carry it "
            f"({carried / with_heading:.1%}): {counts['section']} by section number, "
            f"{counts['heading']} by quoted heading, {counts['title']} by the document's name "
            f"(title line); {counts['no heading']} chunk(s) without a heading")


def test_every_samples_pinpoint_carries_its_section_or_heading(demo_workspace, capsys):
    counts, lost = pinpoint_share(demo_workspace)
    with capsys.disabled():
        print("\n" + report("samples", counts))
    assert not lost, lost[:20]
    assert counts["section"] > counts["heading"]


@needs_corpus
def test_every_corpus_pinpoint_carries_its_section_or_heading(capsys):
    # Not marked slow: pyproject.toml declares no such marker. The ingest takes ~15 s,
    # like tests/retrieval/test_corpus.py.
    workspace = workspace_get_or_create(name="Corpus pinpoints")
    summary = documents_ingest(workspace=workspace, paths=[CORPUS_DIR],
                               manifest=CORPUS_DIR / "manifest.csv")
    assert (summary.documents, summary.failed) == (172, 0), summary.failures
    counts, lost = pinpoint_share(workspace)
    with capsys.disabled():
        print("\n" + report("corpus", counts))
    assert not lost, lost[:20]
