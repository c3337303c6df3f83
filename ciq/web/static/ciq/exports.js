// Session exports with progress: a click on an export button in a [data-export-download]
// block posts its form with fetch, says "Preparing PDF…" in the block's aria-live status
// while the server renders, then saves the file under the server's name (from
// Content-Disposition) and says what went wrong in words if it fails. Without this
// script the forms post as usual and the browser downloads the file.
(function () {
  "use strict";

  const PROBLEMS = {
    403: "you are not allowed to export this session (sign in again?)",
    404: "this session or export format no longer exists",
    429: "too many requests: wait a moment and try again",
  };

  // The file name from a Content-Disposition header: RFC 6266 filename* (UTF-8) first,
  // then filename="…"; the fallback when the header has neither.
  function filenameFrom(header, fallback) {
    const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header || "");
    if (star) {
      try { return decodeURIComponent(star[1].trim()); } catch (error) { /* fall through */ }
    }
    const plain = /filename\s*=\s*"([^"]+)"|filename\s*=\s*([^;]+)/i.exec(header || "");
    return plain ? (plain[1] || plain[2]).trim() : fallback;
  }

  function sizeLabel(bytes) {
    return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024).toLocaleString()} KB`;
  }

  function save(blob, name) {
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = name;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
    // Some browsers read the blob after click() returns.
    setTimeout(() => URL.revokeObjectURL(url), 30000);
  }

  async function exportWith(form, button, status, block) {
    const label = button.textContent.trim();
    // Each format's button posts the one form to its own URL (formaction).
    const action = button.formAction || form.action;
    const fallback = `ciq-export.${action.replace(/\/$/, "").split("/").pop()}`;
    const buttons = block.querySelectorAll("button");
    buttons.forEach((b) => { b.disabled = true; });
    block.setAttribute("aria-busy", "true");
    status.dataset.state = "working";
    status.textContent = `Preparing ${label}…`;
    try {
      let response;
      try {
        response = await fetch(action, {
          method: "POST", body: new FormData(form), credentials: "same-origin",
          headers: { "X-Requested-With": "fetch" },
        });
      } catch (error) {
        throw new Error("the server could not be reached; check the connection and try again");
      }
      const type = response.headers.get("Content-Type") || "";
      if (!response.ok) {
        throw new Error(PROBLEMS[response.status] ||
          `the server could not prepare the file (error ${response.status}); try again, ` +
          "and tell your administrator if it keeps failing");
      }
      if (response.redirected || type.startsWith("text/html")) {
        throw new Error("your sign-in has expired: sign in again, then export");
      }
      const blob = await response.blob();
      const name = filenameFrom(response.headers.get("Content-Disposition"), fallback);
      save(blob, name);
      status.dataset.state = "done";
      status.textContent = `${label} ready: ${name} (${sizeLabel(blob.size)}).`;
    } catch (error) {
      status.dataset.state = "error";
      status.textContent = `${label} export failed: ${error.message}.`;
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
      block.removeAttribute("aria-busy");
    }
  }

  document.querySelectorAll("[data-export-download]").forEach((block) => {
    const status = block.querySelector("[data-export-status]");
    if (!status || !window.fetch || !window.URL || !URL.createObjectURL) return;
    block.addEventListener("submit", (event) => {
      const form = event.target.closest("form");
      const button = event.submitter || (form && form.querySelector("button"));
      if (!form || !button) return;
      event.preventDefault();
      if (block.getAttribute("aria-busy") === "true") return;  // one export at a time
      exportWith(form, button, status, block);
    });
  });
})();
