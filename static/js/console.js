// Console behaviour that the CSP-safe htmx config cannot express (no hx-on,
// no eval): auto-submitting selects, copy to clipboard. Loaded with the page
// nonce; everything is event delegation, so htmx-swapped content works too.
(function () {
  "use strict";

  // <select data-autosubmit> submits its form when changed.
  document.addEventListener("change", function (e) {
    var el = e.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute("data-autosubmit") && el.form) {
      el.form.requestSubmit ? el.form.requestSubmit() : el.form.submit();
    }
  });

  // No empty parameters in the address bar: a GET form leaves its empty
  // fields out (disabled for the submit, enabled again right after), and
  // htmx GETs drop theirs before the URL is built and pushed.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement) || (form.getAttribute("method") || "get").toLowerCase() !== "get") return;
    var off = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && !el.disabled && el.value === "" && el.type !== "submit") {
        el.disabled = true;
        off.push(el);
      }
    });
    setTimeout(function () { off.forEach(function (el) { el.disabled = false; }); }, 0);
  });
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail;
    if (!d || (d.verb || "").toLowerCase() !== "get") return;
    var fd = d.formData;
    if (fd && fd.forEach) {
      var empty = [];
      fd.forEach(function (v, k) { if (v === "") empty.push(k); });
      empty.forEach(function (k) { fd.delete(k); });
    }
  });

  // <button data-copy="text"> copies text and says so for a moment.
  document.addEventListener("click", function (e) {
    var btn = e.target instanceof Element ? e.target.closest("[data-copy]") : null;
    if (!btn) return;
    e.preventDefault();
    var text = btn.getAttribute("data-copy");
    var done = function (ok) {
      var label = btn.getAttribute("data-copy-label") || btn.textContent;
      btn.setAttribute("data-copy-label", label);
      btn.textContent = ok ? "Copied!" : "Copy failed";
      btn.setAttribute("data-copied", ok ? "true" : "false");
      setTimeout(function () { btn.textContent = label; }, 1500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
    } else {
      done(false);
    }
  });
})();
