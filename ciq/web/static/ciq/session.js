// The live session page: replays the stored events after the seq the page was
// rendered at, then shows live ones (DESIGN.md §4). Data from events is only ever put
// in the page with textContent. When a run ends, the turn is swapped for the server's
// rendering of the stored turn, the same as after a reload.
(() => {
  "use strict";
  const root = document.querySelector("[data-session]");
  if (!root) return;
  const sessionId = root.dataset.session;
  let lastSeq = Number(root.dataset.after) || 0;
  const statusLine = document.getElementById("live-status");
  const CITE = /\[cite:\s*([0-9a-fA-F]{12}(?:\s*[,;]\s*[0-9a-fA-F]{12})*)\s*\]/g;
  const VERDICTS = {supported: "Supported", weak: "Weak", not_found: "Not found", contradicted: "Contradicted"};
  const TRACE = {
    reasoning_thought: ["thought", "Thinking"], reasoning_action: ["action", "Planning action"],
    reasoning_observation: ["observation", "Observing"], reasoning_conclusion: ["conclusion", "Concluding"],
  };
  const turns = {};        // turn index -> {cycle, text, rendering}
  const waiting = {};      // turn index -> events held while its fragment loads

  const chunkUrl = (id) => root.dataset.chunkUrl.replace("CHUNKID", id.toLowerCase());
  const turnUrl = (n) => root.dataset.turnUrl.replace(/\/0\/$/, `/${n}/`);
  const pct = (x) => `${Math.round(Number(x) * 100)}%`;
  const fixed = (x, d = 2) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));

  const el = window.ciqEl;
  const part = (article, role) => article.querySelector(`[data-role="${role}"]`);
  const say = (text) => { if (statusLine) statusLine.textContent = text; };

  // --- answer text: paragraphs, headings, list items, numbered citation links -------
  function inline(text, numbers) {
    const frag = document.createDocumentFragment();
    let pos = 0;
    for (const match of text.matchAll(CITE)) {
      frag.append(text.slice(pos, match.index).replace(/\*\*/g, ""));
      const sup = el("sup", {className: "cite"});
      for (const id of match[1].split(/\s*[,;]\s*/)) {
        const key = id.toLowerCase();
        if (!(key in numbers)) numbers[key] = Object.keys(numbers).length + 1;
        sup.append(el("a", {href: chunkUrl(key), "data-chunk": key, "aria-label": `Source ${numbers[key]}`,
                            text: `[${numbers[key]}]`}));
      }
      frag.append(sup);
      pos = match.index + match[0].length;
    }
    frag.append(text.slice(pos).replace(/\*\*/g, ""));
    return frag;
  }

  function renderAnswer(box, text) {
    const numbers = {};
    const out = document.createDocumentFragment();
    for (const block of text.split(/\n\s*\n/)) {
      const lines = block.split("\n").filter((l) => l.trim());
      if (!lines.length) continue;
      const heading = lines[0].match(/^(#{1,6})\s+(.*)$/);
      if (heading && lines.length === 1) {
        out.append(el(`h${Math.min(heading[1].length + 2, 6)}`, {}, inline(heading[2], numbers)));
      } else if (lines.every((l) => /^\s*([-*]|\d+\.)\s+/.test(l))) {
        const list = el("ul");
        for (const l of lines) list.append(el("li", {}, inline(l.replace(/^\s*([-*]|\d+\.)\s+/, ""), numbers)));
        out.append(list);
      } else {
        out.append(el("p", {}, inline(lines.join(" "), numbers)));
      }
    }
    box.replaceChildren(out);
  }

  // --- turns ----------------------------------------------------------------------------
  function turnState(n) {
    return (turns[n] ??= {cycle: null, text: "", rendering: false});
  }

  function setStatus(article, status) {
    article.dataset.status = status;
    const badge = part(article, "status");
    badge.className = `badge status-${status}`;
    badge.textContent = status.charAt(0).toUpperCase() + status.slice(1);
  }

  function startCycle(article, state, cycle) {
    if (state.cycle === cycle) return;
    state.cycle = cycle;
    state.text = "";
    part(article, "sources").replaceChildren();
    part(article, "ledger").replaceChildren();
  }

  function ledgerRow(article, index) {
    const body = part(article, "ledger");
    let row = body.querySelector(`tr[data-claim="${index}"]`);
    if (!row) {
      row = el("tr", {"data-claim": index});
      for (let i = 0; i < 6; i++) row.append(el("td"));
      row.cells[0].className = "num";
      row.cells[3].className = "num";
      body.append(row);
    }
    return row;
  }

  const handlers = {
    retrieval_completed(article, m) {
      const lanes = part(article, "lanes");
      lanes.replaceChildren();
      for (const [name, lane] of Object.entries(m.lanes || {})) {
        const dd = el("dd", {text: `${lane.kept} kept of ${lane.found} found`});
        if (lane.top_titles?.length) dd.append(el("ul", {}, ...lane.top_titles.map((t) => el("li", {text: t}))));
        lanes.append(el("dt", {text: name.charAt(0).toUpperCase() + name.slice(1)}), dd);
      }
    },
    content_chunk(article, m, state) {
      startCycle(article, state, m.cycle);
      state.text = m.full_content;
      if (!state.rendering) {  // at most one render per frame however fast deltas come
        state.rendering = true;
        requestAnimationFrame(() => {
          state.rendering = false;
          renderAnswer(part(article, "answer"), state.text);
        });
      }
    },
    citation_detected(article, m, state) {
      startCycle(article, state, m.cycle);
      // An event stored before pinpoints (issue 13) names the document only.
      const cite = m.pinpoint ? el("cite", {className: "pinpoint", "data-role": "pinpoint", text: m.pinpoint}) : m.citation_label;
      const li = el("li", {value: m.number}, el("a", {href: chunkUrl(m.chunk_id), text: m.title || m.chunk_id}));
      if (cite) li.append(" — ", cite);
      part(article, "sources").append(li);
    },
    claim_extracted(article, m, state) {
      startCycle(article, state, m.cycle);
      const row = ledgerRow(article, m.index);
      row.cells[0].textContent = m.index;
      row.cells[1].replaceChildren(m.text, " ", el("small", {className: "claim-type", text: m.claim_type}));
      row.cells[2].replaceChildren(el("span", {className: "verdict verdict-pending", text: "Checking…"}));
    },
    claim_verified(article, m) {
      const row = ledgerRow(article, m.index);
      row.dataset.verdict = m.verdict;
      if (m.verdict !== "supported") row.cells[1].append(" ", el("span", {className: "flag", text: "Unsupported"}));
      row.cells[2].replaceChildren(el("span", {className: `verdict verdict-${m.verdict}`, text: VERDICTS[m.verdict] || m.verdict}));
      row.cells[3].textContent = fixed(m.score);
      row.cells[4].replaceChildren(
        el("meter", {min: 0, max: 1, low: 0.5, high: 0.85, optimum: 1, value: m.confidence, text: pct(m.confidence)}),
        ` ${pct(m.confidence)} `, el("small", {text: m.level}));
      const cell = row.cells[5];
      cell.replaceChildren();
      if (m.evidence_chunk_id) cell.append(el("a", {href: chunkUrl(m.evidence_chunk_id), text: "source"}), " ");
      cell.append(el("small", {className: "snippet", text: (m.snippet || "").slice(0, 180)}));
    },
    ledger_updated(article, m) {
      part(article, "revisions").append(el("li", {}, `Cycle ${m.cycle}: coverage `, el("strong", {text: pct(m.coverage)})));
    },
    revision_started(article, m) {
      part(article, "revisions-box").hidden = false;
      part(article, "revisions").append(el("li", {text: `Revising (cycle ${m.cycle}): ${m.reason}`}));
    },
    critic_edit(article, m) {  // sessions/critic.py: one edit of the Critic's revision
      part(article, "revisions-box").hidden = false;
      part(article, "revisions").append(el("li", {text: `Critic (cycle ${m.cycle}), ${m.action}: ${m.reason}`}));
    },
    confidence_calculated(article, m) {
      if (m.kind === "retrieval") {
        part(article, "retrieval-confidence").replaceChildren(
          el("p", {}, "Retrieval: ", el("span", {className: `level level-${String(m.level).toLowerCase()}`, text: m.level}), ` ${fixed(m.score)}`),
          el("p", {}, el("small", {text: m.reason})));
      } else {
        const words = String(m.level).replace(/_/g, " ");
        const p = el("p", {}, "Claims: ", el("span", {className: `level level-${m.level}`,
                                                    text: words.charAt(0).toUpperCase() + words.slice(1)}),
                     ` ${fixed(m.mean)} over ${m.claims} claim(s)`);
        if (m.unsupported?.length) p.append("; ", el("span", {className: "flag", text: `${m.unsupported.length} unsupported`}));
        const box = part(article, "claim-confidence");
        box.replaceChildren(p);
        if (m.recommendations?.length) box.append(el("ul", {className: "recommendations"}, ...m.recommendations.map((r) => el("li", {text: r}))));
      }
    },
    generation_complete(article, m) { finish(article, "completed", m.outcome); },
    error(article, m) {
      const box = part(article, "error");
      box.textContent = m.message;
      box.hidden = false;
      finish(article, m.code === "cancelled" ? "cancelled" : "error");
    },
  };
  for (const type of Object.keys(TRACE)) {
    handlers[type] = (article, m) => {
      const [kind, label] = TRACE[type];
      part(article, "trace").append(el("li", {className: `trace-${kind}`},
        el("span", {className: "trace-kind", text: label}), " ",
        el("span", {className: "trace-time", text: `${fixed(m.elapsed_ms, 0)} ms`}), el("p", {text: m.text})));
    };
  }

  async function fetchTurn(n, wantFinished) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await fetch(turnUrl(n), {headers: {Accept: "text/html"}});
      if (response.ok) {
        const doc = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = doc.querySelector("article.turn");
        if (fresh && (!wantFinished || !fresh.hasAttribute("data-live"))) return document.importNode(fresh, true);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return null;
  }

  const OUTCOMES = {answered: "Answered.", partial: "Partially answered.", not_answered: "Not answered by the documents."};

  async function finish(article, status, outcome) {
    if (article.dataset.finishing) return;  // the event and the state poll may both end it
    article.dataset.finishing = "1";
    setStatus(article, status);
    const n = article.dataset.turn;
    const fresh = await fetchTurn(n, true);  // the stored turn, rendered by the server
    const current = document.getElementById(`turn-${n}`);
    if (fresh && current) current.replaceWith(fresh);
    if (!document.querySelector("article.turn[data-live]")) {
      say({error: "The run ended with an error.", cancelled: "Cancelled."}[status] || OUTCOMES[outcome] || "Finished.");
    }
  }

  async function adopt(n, message) {  // a turn started elsewhere (another tab, a websocket ask)
    if (waiting[n]) { waiting[n].push(message); return; }
    waiting[n] = [message];
    const fresh = await fetchTurn(n, false);
    if (fresh) document.getElementById("turns").append(fresh);
    const held = waiting[n];
    delete waiting[n];
    if (fresh) for (const m of held) apply(m);
  }

  function apply(message) {
    const n = message.turn;
    if (n === undefined) return;  // session_created
    const article = document.getElementById(`turn-${n}`);
    if (!article || waiting[n]) { adopt(n, message); return; }
    if (!article.hasAttribute("data-live")) return;  // shown from the stored turn already
    if (article.dataset.status === "pending") {
      setStatus(article, "processing");
      const text = part(article, "run-state");
      if (text) text.textContent = "Running…";
    }
    say("Running…");
    const handler = handlers[message.type];
    if (handler) handler(article, message, turnState(n));
  }

  // --- run states: queued / running / cancelling, from the turn's state URL ------------
  // (sessions/run_state.py). Polled while a turn is live: a queued turn sends no events,
  // and a run that ended while the socket was down is noticed here too.
  const ticking = new Map();  // article -> {seconds, at}: the elapsed time shown
  function showState(article, state) {
    const text = part(article, "run-state");
    if (text) text.textContent = state.text;
    if (state.elapsed_s !== null) ticking.set(article, {seconds: state.elapsed_s, at: performance.now()});
    const button = article.querySelector("[data-role=cancel-form] button");
    if (button) button.disabled = state.cancelling;
    if (state.ended && article.hasAttribute("data-live")) finish(article, state.status);
  }
  async function pollStates() {
    for (const article of document.querySelectorAll("article.turn[data-live][data-state-url]")) {
      try {
        const response = await fetch(article.dataset.stateUrl, {headers: {Accept: "application/json"}});
        if (response.ok) showState(article, await response.json());
      } catch (err) { /* offline for a moment: the next poll tries again */ }
    }
  }
  setInterval(pollStates, 2000);
  setInterval(() => {
    for (const [article, t] of ticking) {
      const out = part(article, "elapsed");
      if (!article.isConnected || !out) { ticking.delete(article); continue; }
      out.textContent = `${Math.round(t.seconds + (performance.now() - t.at) / 1000)} s`;
    }
  }, 1000);
  for (const article of document.querySelectorAll("article.turn[data-live]")) {
    const seconds = part(article, "elapsed")?.dataset.seconds;
    if (seconds) ticking.set(article, {seconds: Number(seconds), at: performance.now()});
  }
  document.addEventListener("submit", async (event) => {
    const form = event.target.closest("[data-role=cancel-form]");
    if (!form) return;
    event.preventDefault();
    const article = form.closest("article.turn");
    form.querySelector("button").disabled = true;
    part(article, "run-state").textContent = "Cancelling…";
    const response = await fetch(form.action, {method: "POST", body: new FormData(form)});
    if (!response.ok) {
      form.querySelector("button").disabled = false;
      part(article, "run-state").textContent = response.status === 403
        ? "Your role in this workspace does not let you cancel runs." : "The cancel request failed; try again.";
      return;
    }
    pollStates();
  });

  // --- the connection: reconnect with ?after=<last seq>, nothing is lost -------------
  let delay = 500;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/sessions/${sessionId}/?after=${lastSeq}`);
    socket.addEventListener("open", () => { delay = 500; });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (typeof message.seq !== "number") return;  // replies to "ask"
      if (message.seq <= lastSeq) return;
      lastSeq = message.seq;
      apply(message);
    });
    socket.addEventListener("close", (event) => {
      if (event.code === 4401) { say("You are logged out: log in again to follow this session."); return; }
      if (event.code === 4404) { say("This session is not available."); return; }
      if (event.code === 4403) { say("Your access to this session ended: log in again."); return; }
      if (document.querySelector("article.turn[data-live]")) say("Connection lost; reconnecting…");
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    });
  }
  connect();
})();
