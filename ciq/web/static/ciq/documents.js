// A document's page shows its chunks a page at a time: a link to "#chunk-<id>" whose
// chunk is on another page reloads with "?chunk=<id>", which opens the right page.
(() => {
  "use strict";
  function openChunkPage() {
    const match = /^#chunk-([0-9a-f]+)$/.exec(window.location.hash);
    if (!match || document.getElementById(`chunk-${match[1]}`) || !document.querySelector(".chunks")) return;
    const url = new URL(window.location.href);
    if (url.searchParams.get("chunk") === match[1]) return;  // unknown id: stay put
    url.searchParams.delete("page");
    url.searchParams.set("chunk", match[1]);
    window.location.replace(url.toString());
  }
  openChunkPage();
  window.addEventListener("hashchange", openChunkPage);
})();

// The upload form: once several files are chosen, a row per file (from the
// #per-file-row template) lets the title, jurisdiction, level and citation differ
// from the shared fields; with one file the shared fields say it all.
(() => {
  "use strict";
  const input = document.getElementById("id_files");
  const box = document.querySelector('[data-role="per-file"]');
  const template = document.getElementById("per-file-row");
  if (!input || !box || !template) return;
  const rows = box.querySelector('[data-role="per-file-rows"]');
  input.addEventListener("change", () => {
    rows.replaceChildren();
    const files = [...input.files];
    box.hidden = files.length < 2;
    if (box.hidden) return;
    for (const file of files) {
      const row = template.content.firstElementChild.cloneNode(true);
      row.querySelector('[data-role="name"]').textContent = file.name;
      row.querySelector('input[name="per_file_name"]').value = file.name;
      for (const control of row.querySelectorAll("input:not([type=hidden]), select")) {
        control.setAttribute("aria-label", `${control.parentElement.firstChild.textContent.trim()} of ${file.name}`);
      }
      rows.append(row);
    }
  });
})();

// Ingestion progress on the documents page: while documents are pending, poll the
// status endpoint and update each row (textContent only).
(() => {
  "use strict";
  const line = document.getElementById("ingest-progress");
  if (!line) return;
  const rows = () => document.querySelectorAll("tr[data-document]");
  const pendingShown = () => [...rows()].some((r) => r.querySelector('[data-role="status"]').textContent.trim() === "Pending");
  if (!pendingShown()) return;
  const waiting = [...rows()].filter((r) => r.querySelector('[data-role="status"]').textContent.trim() === "Pending")
    .map((r) => r.dataset.document);
  const total = waiting.length;
  line.hidden = false;

  async function poll() {
    const response = await fetch(line.dataset.statusUrl, {headers: {Accept: "application/json"}});
    if (response.ok) {
      const data = await response.json();
      for (const doc of data.documents) {
        const row = document.querySelector(`tr[data-document="${doc.id}"]`);
        if (!row) continue;
        const badge = row.querySelector('[data-role="status"]');
        badge.textContent = doc.status_label;
        badge.className = `badge doc-${doc.status}`;
        row.querySelector('[data-role="chunks"]').textContent = doc.chunks;
        const error = row.querySelector('[data-role="error"]');
        error.textContent = doc.error;
        error.hidden = !doc.error;
      }
      const done = Math.max(total - data.pending, 0);
      // Name each file with its outcome once all are done, a failure with its reason
      // (issue 14).
      const outcomes = data.documents.filter((d) => waiting.includes(String(d.id)))
        .map((d) => `${d.title}: ${d.status === "ready" ? `ready, ${d.chunks} chunk(s)`
          : `${d.status_label.toLowerCase()}${d.error ? ` (${d.error})` : ""}`}`);
      line.querySelector('[data-role="text"]').textContent =
        data.pending ? `Ingesting: ${done} of ${total} file(s) done…` : `Ingestion finished — ${outcomes.join("; ")}.`;
      const bar = line.querySelector('[data-role="bar"]');
      bar.max = total;
      bar.value = done;
      if (!data.pending) return;
    }
    setTimeout(poll, 1000);
  }
  poll();
})();
