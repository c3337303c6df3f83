"""End to end in a real browser: daphne and the db_worker as subprocesses on a
temporary SQLite database, driven by Playwright with Debian's Chromium.

Log in, upload a sample document, ask about it, wait for the verified ledger, open a
citation's chunk; then ask the Makefile's three demo questions and record the time from
submit to the first streamed delta and to the complete ledger. The screenshots and
``browser-timings.json`` land in ``var/test-artifacts/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings

from tests.servers import BASE, daphne_start, manage, processes_stop, prod_env

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(settings.BASE_DIR) / "var" / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
DOCKS = "samples/municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"
DEMO_QUESTIONS = [  # the Makefile's DEMO_QUESTIONS
    ("What permits are needed to build or replace a dock in Rivergrove?", "answer", "US-OR-Rivergrove"),
    ("How does a state apply for an exemption from the Fair Debt Collection Practices Act?", "answer", ""),
    ("Draft a memo on tree removal permits and penalties in Rivergrove.", "draft", "US-OR-Rivergrove"),
]
TIMEOUT_MS = 30_000

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """daphne with a db_worker on a fresh database holding the demo user, the Demo
    workspace and an empty "Uploads" one: ``url`` (``http://127.0.0.1:<port>``), the
    ``worker`` process, ``start_worker()`` and ``manage(*args, **env)`` (a command on the
    same database)."""
    tmp = tmp_path_factory.mktemp("browser")
    env = prod_env(tmp)  # the settings `make run` serves with

    def run(*args, **extra_env):
        manage({**env, **extra_env}, *args)

    run("migrate", "--noinput", "-v", "0")
    run("demo_setup", "--password", "ciq-demo-2025")
    run("demo_setup", "--workspace", "Uploads", "--no-samples")
    worker_log = (tmp / "worker.log").open("w")

    # Questions and uploads ("ingest") in one worker here; the Procfile runs one per queue.
    def start_worker() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "manage.py", "db_worker", "--queue-name", "default,ingest",
                                 "--interval", "0.1", "--no-reload", "--no-startup-delay"],
                                cwd=BASE, env=env, stdout=worker_log, stderr=subprocess.STDOUT)

    ns = SimpleNamespace(worker=start_worker(), start_worker=start_worker, manage=run)
    try:
        web, port = daphne_start(env, tmp / "daphne.log")
    except Exception:
        processes_stop([ns.worker])
        raise
    ns.url = f"http://127.0.0.1:{port}"
    try:
        yield ns
    finally:
        processes_stop([web, ns.worker])
        worker_log.close()


@pytest.fixture(scope="module")
def server(stack) -> str:
    return stack.url


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(TIMEOUT_MS)
        yield page
        browser.close()


def log_in(page, server: str) -> bool:
    """Open the site and log in as the demo user unless already logged in; whether it did."""
    page.goto(server + "/")
    if not page.locator("#id_username").count():
        return False
    page.fill("#id_username", "demo")
    page.fill("#id_password", "ciq-demo-2025")
    page.click("button:has-text('Log in')")
    return True


def switch_to(page, name: str) -> None:
    page.select_option("#workspace-select", label=name)
    page.click(".switcher button")
    page.wait_for_selector(f"text=Ask in {name}")


def ask(page, question: str, mode: str, jurisdictions: str) -> dict:
    """Submit the Ask form; returns ms from submit to the first delta and to the
    completed ledger (measured in the test process)."""
    page.fill("#id_question", question)
    page.check(f'input[name="mode"][value="{mode}"]')
    page.fill("#id_jurisdictions", jurisdictions)
    started = time.perf_counter()
    page.click("button:has-text('Ask')")
    page.wait_for_selector('article[data-turn="1"] [data-role="answer"] :is(p, h3, h4, ul)')
    first = time.perf_counter()
    page.wait_for_selector('article[data-turn="1"][data-status="completed"]:not([data-live]) '
                           'tbody[data-role="ledger"] tr[data-verdict]')
    done = time.perf_counter()
    return {"first_delta_ms": round((first - started) * 1000), "ledger_ms": round((done - started) * 1000)}


def test_upload_ask_verify_and_open_a_citation(server, page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert log_in(page, server)
    switch_to(page, "Uploads")

    page.click("nav >> text=Documents")
    page.set_input_files("#id_files", str(Path(settings.BASE_DIR) / DOCKS))
    page.fill("#id_jurisdiction", "US-OR-Rivergrove")
    page.select_option("#id_jurisdiction_level", "municipal")
    page.fill("#id_citation_label", "Rivergrove Ord. No. 88-2017")
    page.click("button:has-text('Upload')")
    page.wait_for_selector('tr[data-document] .doc-ready')
    assert int(page.text_content('tr[data-document] [data-role="chunks"]')) > 0
    page.wait_for_selector("#ingest-progress:has-text('Ingestion finished')")
    finished = page.text_content("#ingest-progress")
    assert "Docks" in finished and "ready" in finished  # names the file and its outcome

    page.click("nav >> text=Ask")
    timing = ask(page, DEMO_QUESTIONS[0][0], "answer", "US-OR-Rivergrove")
    assert page.locator('tbody[data-role="ledger"] .verdict-supported').count() > 0
    assert page.locator(".trace li").count() >= 4
    page.screenshot(path=str(ARTIFACTS / "browser-session.png"), full_page=True)

    session_url = page.url.split("#")[0]
    link = page.locator('[data-role="answer"] sup.cite a').first
    chunk_id = link.get_attribute("data-chunk")
    chunk_url = link.get_attribute("href")
    citations_at_hand(page, link, chunk_id, session_url)

    page.goto(server + chunk_url)  # the chunk page: a new tab, or no scripts
    page.wait_for_selector(f'article[data-chunk="{chunk_id}"]')
    assert "Rivergrove Ord. No. 88-2017" in page.content()
    assert page.locator("blockquote.chunk-text mark").count() > 0
    page.screenshot(path=str(ARTIFACTS / "browser-chunk.png"), full_page=True)

    # Deleting the document keeps the citation readable from the stored text, marked.
    page.click("nav >> text=Documents")
    page.click("tr[data-document] a.danger-link")
    page.click("button:has-text('Delete')")
    page.wait_for_selector(".message:has-text('Deleted')")
    page.goto(session_url)
    page.locator(f'[data-role="answer"] sup.cite a[data-chunk="{chunk_id}"]').first.click()
    panel = page.locator("#cite-panel")
    panel.locator(f'[data-panel-for="{chunk_id}"][data-state="deleted"]').wait_for()
    assert panel.locator('[data-role="deleted"]').is_visible()
    assert panel.locator("blockquote.chunk-text mark").count() > 0
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    assert timing["ledger_ms"] < TIMEOUT_MS


def citations_at_hand(page, link, chunk_id: str, session_url: str) -> None:
    """Issue 14, item 1: hover and keyboard focus on a citation show its card; a click
    or Enter opens the side panel with the chunk in context without leaving the page;
    Escape closes it and gives focus back to the citation; at 1,440 px the panel sits
    beside the answer, at 390 px it takes the whole width, and nothing overflows."""
    card = page.locator("#cite-card")
    link.hover()
    card.wait_for(state="visible")
    assert "Rivergrove Ord. No. 88-2017" in card.text_content()  # the pinpoint
    assert card.locator('[data-role="card-snippet"] mark').count() > 0
    assert card.locator('[data-role="card-verdict"] .verdict').count() == 1
    assert link.get_attribute("aria-describedby") == "cite-card"
    page.mouse.move(1, 1)
    card.wait_for(state="hidden")

    link.focus()
    card.wait_for(state="visible")
    page.keyboard.press("Enter")
    panel = page.locator('#cite-panel[role="dialog"]')
    panel.wait_for(state="visible")
    panel.locator(f'[data-panel-for="{chunk_id}"][data-state="live"]').wait_for()
    assert page.url.split("#")[0] == session_url  # the answer stays
    assert panel.get_attribute("aria-labelledby") == "cite-panel-title"
    page.wait_for_function("document.activeElement?.id === 'cite-panel-title'")  # focus moved in
    assert panel.locator('[data-role="cited-text"] mark').count() > 0
    assert panel.locator('[data-role="outline"] [aria-current="true"]').count() == 1
    assert panel.locator('[data-role="previous"], [data-role="next"]').count() >= 1
    assert page.locator('[data-role="answer"]').first.is_visible()
    page.screenshot(path=str(ARTIFACTS / "browser-citation-panel.png"))
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    assert page.evaluate("document.activeElement.dataset.chunk") == chunk_id

    try:
        # 1,440 px: a column on the right, beside the answer, not over it.
        page.set_viewport_size({"width": 1440, "height": 900})
        link.click()
        panel.locator(f'[data-panel-for="{chunk_id}"]').wait_for()
        box, answer = panel.bounding_box(), page.locator('[data-role="answer"]').first.bounding_box()
        assert box["x"] + box["width"] == 1440 and box["x"] >= answer["x"] + answer["width"]
        assert page.evaluate(OVERFLOW_JS)["scroll"] <= 0
        panel.locator('[data-role="panel-close"]').click()
        panel.wait_for(state="hidden")
        # 390 px: the whole width.
        page.set_viewport_size({"width": 390, "height": 844})
        link.click()
        panel.locator(f'[data-panel-for="{chunk_id}"]').wait_for()
        box = panel.bounding_box()
        assert box["x"] == 0 and box["width"] == 390
        assert page.evaluate(OVERFLOW_JS)["scroll"] <= 0
        page.screenshot(path=str(ARTIFACTS / "browser-citation-panel-390.png"))
        panel.locator('[data-role="panel-close"]').click()
        panel.wait_for(state="hidden")
    finally:
        page.set_viewport_size({"width": 1280, "height": 1000})
    citation_timings(page, chunk_id)


# Milliseconds, in the page's own clock, from focus to the card shown and from the click
# to the panel's chunk shown (``ready`` matches the element once it is there).
TIME_TO_SHOWN_JS = """async ([chunk, action, ready]) => {
  const link = document.querySelector(`[data-role="answer"] sup.cite a[data-chunk="${chunk}"]`);
  const t0 = performance.now();
  if (action === "focus") link.focus(); else link.click();
  await new Promise((done) => {
    const look = () => (document.querySelector(ready) ? done() : requestAnimationFrame(look));
    look();
  });
  return performance.now() - t0;
}"""


def citation_timings(page, chunk_id: str, repeats: int = 5) -> None:
    """Issue 14's targets (card within 100 ms of focus, panel within 300 ms), measured
    five times each and written to ``browser-citation-timings.json``; reported, not
    asserted (no wall-clock asserts in tests)."""
    card, panel = [], []
    for _ in range(repeats):
        page.evaluate("document.activeElement?.blur()")
        page.locator("#cite-card").wait_for(state="hidden")
        card.append(page.evaluate(TIME_TO_SHOWN_JS, [chunk_id, "focus", "#cite-card:not([hidden])"]))
        shown = f'#cite-panel:not([hidden]) [data-panel-for="{chunk_id}"][data-state="live"]'
        panel.append(page.evaluate(TIME_TO_SHOWN_JS, [chunk_id, "click", shown]))
        page.locator('#cite-panel [data-role="panel-close"]').click()
        page.locator("#cite-panel").wait_for(state="hidden")
    result = {"card_ms": [round(x, 1) for x in card], "panel_ms": [round(x, 1) for x in panel]}
    (ARTIFACTS / "browser-citation-timings.json").write_text(json.dumps(result, indent=2))
    assert len(card) == len(panel) == repeats


def test_demo_questions_stream_and_verify(server, page):
    page.goto(server + "/")
    switch_to(page, "Demo")
    timings = []
    for question, mode, jurisdictions in DEMO_QUESTIONS:
        page.goto(server + "/")
        timing = ask(page, question, mode, jurisdictions)
        timings.append({"question": question, **timing})
    (ARTIFACTS / "browser-timings.json").write_text(json.dumps(timings, indent=2))
    assert all(t["first_delta_ms"] <= t["ledger_ms"] for t in timings)


OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter(el => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 0.5) return false;
    for (let p = el.parentElement; p; p = p.parentElement) {  // inside a scroll box: fine
      const style = getComputedStyle(p);
      const boxed = ['auto', 'scroll', 'hidden'].includes(style.overflowX);
      if (boxed && p.getBoundingClientRect().right <= width + 0.5) return false;
    }
    return true;
  });
  return {scroll: document.documentElement.scrollWidth - width,
          wide: wide.slice(0, 5).map(el =>
            `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`)};
}"""


def test_every_page_fits_phone_tablet_and_desktop_widths(server, page):
    """No page is wider than the screen at 390, 768 and 1,440 px (issue 14): tables
    scroll inside their box, long words wrap. Screenshots in var/test-artifacts/."""
    page.set_viewport_size({"width": 1280, "height": 1000})
    if log_in(page, server):  # run alone: ask once so there is a session to show
        switch_to(page, "Demo")
        ask(page, *DEMO_QUESTIONS[0])
    switch_to(page, "Demo")
    page.click("nav >> text=Sessions")
    session_url = page.locator("table a[href*='/sessions/']").first.get_attribute("href")
    page.click("nav >> text=Documents")
    document_url = page.locator("tr[data-document] a").first.get_attribute("href")
    page.goto(server + session_url)
    chunk_url = page.locator('[data-role="answer"] sup.cite a').first.get_attribute("href")
    pages = {"ask": "/", "documents": None, "document": document_url, "sessions": None,
             "session": session_url, "chunk": chunk_url}
    failures = []
    for width in (390, 768, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        for name, url in pages.items():
            if url is None:
                page.goto(server + "/")
                page.click(f"nav >> text={name.capitalize()}")
            else:
                page.goto(server + url)
            page.wait_for_load_state("networkidle")
            found = page.evaluate(OVERFLOW_JS)
            if found["scroll"] > 0 or found["wide"]:
                failures.append((width, name, found))
            if name == "session" and width in (390, 768):
                page.screenshot(path=str(ARTIFACTS / f"browser-session-{width}.png"), full_page=True)
    assert failures == [], "\n".join(map(str, failures))


def test_ctrl_enter_asks_and_the_answer_can_be_copied(server, page):
    """Ctrl+Enter in the question box submits it; "Copy answer" puts the answer's text on
    the clipboard (issue 14: neither worked before)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page.set_viewport_size({"width": 1280, "height": 1000})
    log_in(page, server)
    switch_to(page, "Demo")
    page.fill("#id_question", DEMO_QUESTIONS[0][0])
    page.fill("#id_jurisdictions", DEMO_QUESTIONS[0][2])
    page.press("#id_question", "Control+Enter")
    page.wait_for_selector('article[data-turn="1"][data-status="completed"]:not([data-live]) '
                           'button[data-copy]')
    page.click('article[data-turn="1"] button[data-copy]')
    page.wait_for_selector('article[data-turn="1"] button[data-copy]:has-text("Copied")')
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "dock" in copied.lower() and "[cite:" not in copied


def test_run_states_with_the_worker_stopped_killed_and_a_cancel(stack, page):
    """Issue 14 item 2 in the real page: with the worker stopped a question shows its
    place in the queue, then "waiting for a worker"; Cancel ends it with a Retry button;
    a retried run whose worker dies mid-run is ended by the periodic recovery and the
    page says so live, without a reload."""
    server = stack.url
    page.set_viewport_size({"width": 1280, "height": 1000})
    log_in(page, server)
    switch_to(page, "Demo")
    stack.worker.terminate()  # no worker takes runs
    stack.worker.wait(timeout=10)
    try:
        page.fill("#id_question", "When does the Rivergrove park close at night?")
        page.click("button:has-text('Ask')")
        turn = 'article[data-turn="1"]'
        page.wait_for_selector(f'{turn} [data-role="run-state"]:has-text("Queued (position")')
        page.wait_for_selector(f'{turn} [data-role="run-state"]:has-text("Waiting for a worker")',
                               timeout=15_000)
        assert int(page.text_content(f'{turn} [data-role="elapsed"]').split()[0]) >= 5
        page.screenshot(path=str(ARTIFACTS / "browser-run-queued.png"))

        page.click(f'{turn} [data-role="cancel-form"] button')
        page.wait_for_selector(f'{turn}[data-status="cancelled"]:not([data-live])')
        assert "stopped on request" in page.text_content(f'{turn} [data-role="error"]')

        page.click(f'{turn} form.retry button')  # asks the question again as turn 2
        retried = 'article[data-turn="2"]'
        page.wait_for_selector(f'{retried} [data-role="run-state"]:has-text("Queued")')
        # The worker dies just after taking the run: the turn is processing, nobody runs it.
        stack.manage("shell", "-c", "from sessions.models import Turn; "
                     "Turn.objects.filter(status='pending').update(status='processing')")
        page.wait_for_selector(f'{retried} [data-role="run-state"]:has-text("Running")')
        stack.manage("recover", STALLED_TURN_MINUTES="0")  # the periodic check, once
        page.wait_for_selector(f'{retried}[data-status="error"]:not([data-live])')
        assert "worker stopped or lost it" in page.text_content(f'{retried} [data-role="error"]')
        assert page.locator(f'{retried} form.retry button').count() == 1
        page.screenshot(path=str(ARTIFACTS / "browser-run-stalled.png"))
    finally:
        stack.worker = stack.start_worker()


def test_an_auditor_reviews_a_session_in_the_admin(stack, page):
    """Issue 14 item 3: a superuser who is nobody's member reads a session as its user
    saw it — chain check first, numbered citations, the ledger — at laptop and desktop
    widths without sideways scrolling; the session list fits too."""
    stack.manage("createsuperuser", "--noinput", "--username", "auditor", "--email", "a@example.org",
                 DJANGO_SUPERUSER_PASSWORD="audit-pass-2025")
    log_in(page, stack.url)
    switch_to(page, "Demo")
    page.goto(stack.url + "/")
    ask(page, DEMO_QUESTIONS[0][0], "answer", DEMO_QUESTIONS[0][2])
    session_id = page.url.split("/sessions/")[1].split("/")[0]
    context = page.context.browser.new_context(viewport={"width": 1440, "height": 900})
    auditor = context.new_page()
    try:
        auditor.goto(stack.url + "/admin/login/")
        auditor.fill("#id_username", "auditor")
        auditor.fill("#id_password", "audit-pass-2025")
        auditor.click("input[type=submit]")
        review = f"{stack.url}/admin/ciq_sessions/researchsession/{session_id}/review/"
        for width in (1440, 1280, 768):
            auditor.set_viewport_size({"width": width, "height": 900})
            auditor.goto(review)
            assert auditor.evaluate(OVERFLOW_JS)["scroll"] <= 0, width
            check, answer = (auditor.locator(f"[data-role={r}]").first.bounding_box()
                             for r in ("chain-check", "answer"))
            assert check["y"] < answer["y"]
            assert auditor.locator('[data-role="answer"] sup.cite a').first.text_content() == "[1]"
            assert "[cite:" not in auditor.text_content("body")
            assert auditor.locator('[data-role="ledger"] tr').count() > 0
            if width == 1440:
                auditor.screenshot(path=str(ARTIFACTS / "browser-admin-review.png"))
        for width in (1440, 1280):  # the session list, on a desktop and a laptop
            auditor.set_viewport_size({"width": width, "height": 900})
            auditor.goto(stack.url + "/admin/ciq_sessions/researchsession/")
            assert auditor.evaluate("(() => { const r = document.querySelector('.results');"
                                    " return r.scrollWidth <= r.clientWidth; })()"), width
            assert auditor.evaluate(OVERFLOW_JS)["scroll"] <= 0, width
    finally:
        context.close()
