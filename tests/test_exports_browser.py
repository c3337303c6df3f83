"""The session page's export buttons in a real browser (Playwright, Debian's Chromium,
against pytest-django's live server): progress while an export runs, the server's file
name kept, errors in words, and the plain form download without JavaScript."""

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

CHROMIUM = Path("/usr/bin/chromium")
DOCKS = "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"
QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"
TIMEOUT_MS = 30_000
# Every text the export status shows, in order (a MutationObserver, so no timing).
RECORD_STATUS = """
window.exportStatuses = [];
document.addEventListener("DOMContentLoaded", () => {
  const status = document.querySelector("[data-export-status]");
  new MutationObserver(() => window.exportStatuses.push(status.textContent))
    .observe(status, {childList: true, characterData: true, subtree: true});
});
"""

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")]


@pytest.fixture
def world(django_user_model):
    """The session cookie of an owner of a workspace holding the docks ordinance, and
    their answered session (transactional tests do not see conftest's Demo)."""
    from ciq.models import Membership
    from ciq.services import membership_add, workspace_get_or_create
    from retrieval.services import documents_ingest
    from sessions.services import session_ask

    firm = workspace_get_or_create(name="Firm")
    documents_ingest(workspace=firm, paths=[settings.BASE_DIR / "samples" / DOCKS])
    owner = django_user_model.objects.create_user("owner", password="pw-owner-123")
    membership_add(user=owner, workspace=firm, role=Membership.Role.OWNER)
    turn = session_ask(workspace=firm, user=owner, question=QUESTION)
    client = Client()
    client.force_login(owner)  # before Playwright runs its event loop in this thread
    return client.cookies[settings.SESSION_COOKIE_NAME].value, turn.session


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


def open_session(browser, live_server, world, *, javascript=True):
    """A page logged in as the owner, on the session page."""
    cookie, session = world
    context = browser.new_context(java_script_enabled=javascript, accept_downloads=True)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    if javascript:
        page.add_init_script(RECORD_STATUS)
    page.goto(f"{live_server.url}/sessions/{session.pk}/")
    return page


def test_a_pdf_export_says_it_is_preparing_then_saves_the_servers_file(world, live_server, browser):
    _, session = world
    page = open_session(browser, live_server, world)
    status = page.locator("[data-export-status]")
    assert status.get_attribute("aria-live") == "polite"
    with page.expect_download() as download:
        page.click(".exports button:text-is('PDF')")
    assert download.value.suggested_filename == f"ciq-session-{session.pk}.pdf"
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF-")
    page.wait_for_function("document.querySelector('[data-export-status]').dataset.state === 'done'")
    statuses = page.evaluate("window.exportStatuses")
    assert statuses[0] == "Preparing PDF…"
    assert statuses[-1].startswith(f"PDF ready: ciq-session-{session.pk}.pdf (")
    assert page.locator(".exports button:disabled").count() == 0
    assert page.url.endswith(f"/sessions/{session.pk}/")  # never left the page


def test_a_failed_export_is_explained_in_words(world, live_server, browser):
    page = open_session(browser, live_server, world)
    page.route("**/export/md/",
               lambda route: route.fulfill(status=500, body="oops", content_type="text/plain"))
    page.click(".exports button:text-is('Markdown')")
    page.wait_for_function("document.querySelector('[data-export-status]').dataset.state === 'error'")
    text = page.locator("[data-export-status]").text_content()
    assert text.startswith("Markdown export failed: the server could not prepare the file (error 500)")
    assert page.locator(".exports button:disabled").count() == 0


def test_without_javascript_the_export_form_still_downloads_the_file(world, live_server, browser):
    _, session = world
    page = open_session(browser, live_server, world, javascript=False)
    with page.expect_download() as download:
        page.click(".exports button:text-is('Word')")
    assert download.value.suggested_filename == f"ciq-session-{session.pk}.docx"
