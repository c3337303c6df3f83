// Citations at hand (issue 14, item 1) on the session page.
//
// Hover or keyboard focus on a citation [n] of an answer shows a card: document,
// pinpoint, page, the evidence snippet with the claim's words highlighted, and the
// claim's verdict. The cards are rendered by the server into each finished turn
// (<template data-role="cite-cards">, escaped text), so showing one costs no request.
// A click (or Enter) on a citation, a Sources entry or a ledger evidence link opens the
// side panel (a non-modal dialog) with the chunk among its neighbours and the
// document's outline, fetched as server-rendered HTML from the panel endpoint; Escape
// or Close shuts it and gives focus back to the citation. Nothing from a document is
// ever put in the page except as server-escaped HTML or textContent.
(() => {
  "use strict";
  const root = document.querySelector("[data-session]");
  const card = document.getElementById("cite-card");
  const panel = document.getElementById("cite-panel");
  if (!root || !card || !panel || !root.dataset.panelUrl) return;
  const body = panel.querySelector('[data-role="panel-body"]');
  const kicker = panel.querySelector('[data-role="panel-kicker"]');
  const CITE = 'sup.cite a[data-chunk]';
  // A link to a chunk page of this session: /sessions/<id>/chunks/<12 hex>/
  const CHUNK_PATH = new RegExp(`^/sessions/${root.dataset.session}/chunks/([0-9a-f]{12})/$`);
  const HIDE_MS = 250;  // hover grace: the pointer may travel from the link into the card
  let cardFor = null;    // the link whose card is shown
  let hideTimer = 0;
  let opener = null;     // the link that opened the panel
  let loading = 0;       // the latest panel request (older answers are dropped)

  const panelUrl = (id) => root.dataset.panelUrl.replace("CHUNKID", id);

  const el = window.ciqEl;

  function chunkOf(link) {
    if (link.dataset.chunk) return link.dataset.chunk;
    const match = new URL(link.href, location.href).pathname.match(CHUNK_PATH);
    return match ? match[1] : null;
  }

  // --- the card -------------------------------------------------------------------------
  function cardContent(link) {
    const chunk = link.dataset.chunk;
    const template = link.closest("article.turn")?.querySelector('template[data-role="cite-cards"]');
    if (template) {
      const key = `${chunk}:${link.dataset.claim || ""}`;
      const found = template.content.querySelector(`[data-card="${CSS.escape(key)}"]`)
        || template.content.querySelector(`[data-card^="${CSS.escape(chunk)}:"]`);
      if (found) return found.cloneNode(true);
    }
    // A turn still running has no cards yet: name the source and say what comes.
    return el("div", {className: "cite-card-body"},
      el("p", {className: "cite-card-head"}, el("span", {className: "cite-card-no", text: link.textContent}),
         " ", el("strong", {text: `Source ${chunk}`})),
      el("p", {className: "cite-card-verdict", text: "Verification is still running."}),
      el("p", {className: "cite-card-hint", text: "Click or press Enter for the passage in context."}));
  }

  function place(link) {
    const box = link.getBoundingClientRect();
    const width = document.documentElement.clientWidth;
    const margin = 8;
    const cardWidth = card.offsetWidth;
    const left = Math.max(margin, Math.min(box.left, width - cardWidth - margin));
    const below = box.bottom + 6;
    const above = box.top - 6 - card.offsetHeight;
    const top = below + card.offsetHeight > window.innerHeight && above > 0 ? above : below;
    // CSSOM properties, not a style attribute: allowed under the CSP (no inline styles).
    card.style.left = `${left + window.scrollX}px`;
    card.style.top = `${top + window.scrollY}px`;
  }

  function showCard(link) {
    clearTimeout(hideTimer);
    if (cardFor === link && !card.hidden) return;
    if (cardFor) cardFor.removeAttribute("aria-describedby");
    cardFor = link;
    card.replaceChildren(cardContent(link));
    card.hidden = false;
    link.setAttribute("aria-describedby", "cite-card");
    place(link);
  }

  function hideCard() {
    clearTimeout(hideTimer);
    card.hidden = true;
    if (cardFor) cardFor.removeAttribute("aria-describedby");
    cardFor = null;
  }

  const hideSoon = () => { clearTimeout(hideTimer); hideTimer = setTimeout(hideCard, HIDE_MS); };

  document.addEventListener("mouseover", (event) => {
    const link = event.target.closest?.(CITE);
    if (link) showCard(link);
    else if (card.contains(event.target)) clearTimeout(hideTimer);
  });
  document.addEventListener("mouseout", (event) => {
    const from = event.target.closest?.(CITE) || (card.contains(event.target) ? card : null);
    if (!from || (event.relatedTarget && (from.contains(event.relatedTarget) || card.contains(event.relatedTarget)))) return;
    if (from === card || from === cardFor) hideSoon();
  });
  document.addEventListener("focusin", (event) => {
    const link = event.target.closest?.(CITE);
    if (link) showCard(link);
  });
  document.addEventListener("focusout", (event) => {
    if (event.target === cardFor) hideCard();
  });
  window.addEventListener("resize", () => { if (cardFor && !card.hidden) place(cardFor); });

  // --- the panel ------------------------------------------------------------------------
  function panelTitle(text) {
    return el("h2", {id: "cite-panel-title", tabindex: "-1", text});
  }

  async function load(chunk) {
    const request = ++loading;
    body.setAttribute("aria-busy", "true");
    body.replaceChildren(panelTitle("Loading the source…"));
    let content = null;
    try {
      const response = await fetch(panelUrl(chunk), {headers: {Accept: "text/html"}, credentials: "same-origin"});
      if (response.ok) {
        const doc = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = doc.querySelector(".cite-panel-content");
        if (fresh) content = document.importNode(fresh, true);
      } else {
        content = el("div", {className: "cite-panel-content", "data-state": "error"},
          panelTitle("This source cannot be opened"),
          el("p", {text: response.status === 404 ? "It is not part of this session, or the session is not yours."
                                                  : `The server answered ${response.status}.`}));
      }
    } catch {
      content = el("div", {className: "cite-panel-content", "data-state": "error"},
        panelTitle("This source cannot be opened"), el("p", {text: "The server could not be reached."}));
    }
    if (request !== loading || panel.hidden) return;
    body.replaceChildren(content || panelTitle("This source cannot be opened"));
    body.setAttribute("aria-busy", "false");
    body.scrollTop = 0;
    body.querySelector("#cite-panel-title")?.focus({preventScroll: true});
  }

  function openPanel(link, chunk) {
    hideCard();
    opener = link;
    const number = link.closest(CITE) ? link.textContent.trim() : "";
    kicker.textContent = number ? `Source ${number}` : "Source";
    panel.hidden = false;
    document.body.classList.add("cite-panel-open");
    load(chunk);
    link.scrollIntoView({block: "nearest"});
  }

  function closePanel() {
    if (panel.hidden) return;
    panel.hidden = true;
    loading++;
    document.body.classList.remove("cite-panel-open");
    body.replaceChildren();
    // The turn may have been swapped for its stored rendering meanwhile: find the
    // same citation in the page again.
    let target = opener;
    if (target && !target.isConnected && target.dataset.chunk) {
      target = document.querySelector(`${CITE}[data-chunk="${CSS.escape(target.dataset.chunk)}"]`);
    }
    opener = null;
    target?.focus();
  }

  document.addEventListener("click", (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target.closest?.("a[href]");
    if (!link) return;
    if (panel.contains(link)) {  // a neighbour or an outline entry: open it in the panel
      if (!link.dataset.panelChunk) return;
      event.preventDefault();
      load(link.dataset.panelChunk);
      return;
    }
    if (!link.closest("article.turn")) return;
    const chunk = chunkOf(link);
    if (!chunk) return;
    event.preventDefault();
    openPanel(link, chunk);
  });
  panel.querySelector('[data-role="panel-close"]').addEventListener("click", closePanel);
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (!panel.hidden) { event.preventDefault(); closePanel(); }
    else if (!card.hidden) { event.preventDefault(); hideCard(); }
  });
})();
