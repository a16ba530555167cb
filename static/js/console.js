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
