// Keyboard and clipboard helpers on every page (issue 14): Ctrl+Enter (⌘+Enter on a
// Mac) in a question box submits its form (Enter alone keeps a new line); a "Copy
// answer" button copies the answer's text and says so; an example question on the
// Ask page fills in the question box (and its jurisdiction) without asking it.
(() => {
  "use strict";
  document.addEventListener("keydown", (event) => {
    const box = event.target;
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    if (!(box instanceof HTMLTextAreaElement) || !box.form) return;
    event.preventDefault();
    box.form.requestSubmit();
  });
  document.addEventListener("click", (event) => {
    const example = event.target.closest("[data-example-question]");
    const box = document.getElementById("id_question");
    if (!example || !box) return;
    box.value = example.dataset.exampleQuestion;
    const codes = document.getElementById("id_jurisdictions");
    if (codes) codes.value = example.dataset.exampleJurisdiction || "";
    box.focus();
  });
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const source = button.closest("article")?.querySelector(button.dataset.copy);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.innerText.trim());
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy failed: select the text instead";
    }
    setTimeout(() => { button.textContent = "Copy answer"; }, 2000);
  });
})();
