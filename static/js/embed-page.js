// Relink embedded referral dashboard: behaviour of /embed/referrals.
// Loaded with the CSP nonce; fragments swapped in by htmx carry no scripts,
// so everything they need is wired here by event delegation.
//  - height: posts {originator, event: "PAGE_HEIGHT", data: {height}} to the
//    parent on load and on every body resize (when dynamicHeight is on);
//  - errors: posts {originator, event: "ERROR", data: {code, message}} when
//    the error state appears (at load or swapped in by a fragment), and when
//    the token probe fails on focus (at most once per 30 s);
//  - copy buttons ([data-copy]) use the Clipboard API;
//  - tabs ([data-tab], [data-goto-tab]), the starting-guide menu and the
//    link selector.
(function () {
  "use strict";
  // "Dub" keeps the messages compatible with hosts written for @dub/embed-core.
  var ORIGINATOR = "Dub";
  var root = document.getElementById("embed-root");
  if (!root || root.dataset.wired) return;
  root.dataset.wired = "1";
  var framed = window.parent && window.parent !== window;

  function post(event, data) {
    if (framed) window.parent.postMessage({ originator: ORIGINATOR, event: event, data: data }, "*");
  }

  // Height.
  if (root.dataset.dynamicHeight === "true") {
    document.body.style.overflow = "hidden";
    var last = -1;
    var sendHeight = function () {
      var h = Math.ceil(document.body.scrollHeight);
      if (h !== last) {
        last = h;
        post("PAGE_HEIGHT", { height: h });
      }
    };
    sendHeight();
    if (window.ResizeObserver) new ResizeObserver(sendHeight).observe(document.body);
    window.addEventListener("load", sendHeight);
  }

  // Errors.
  var reported = false;
  function reportError(el) {
    if (reported || !el) return;
    reported = true;
    post("ERROR", { code: el.getAttribute("data-embed-error") || "", message: el.getAttribute("data-message") || "" });
  }
  reportError(document.querySelector("[data-embed-error]"));
  document.body.addEventListener("htmx:afterSwap", function () {
    reportError(document.querySelector("[data-embed-error]"));
    // A link just created from the form is copied once (§6.5).
    var created = document.querySelector("#links[data-created]");
    if (created && created.dataset.created) {
      copy(created.dataset.created).catch(function () {});
      created.removeAttribute("data-created");
    }
  });

  // Token watchdog: probe on focus, at most every 30 s.
  var headers = {};
  try {
    headers = JSON.parse(root.getAttribute("hx-headers") || "{}");
  } catch (e) {
    headers = {};
  }
  var lastProbe = 0;
  function probe() {
    if (!headers.Authorization || reported || Date.now() - lastProbe < 30000) return;
    lastProbe = Date.now();
    fetch("/api/embed/referrals/token", { headers: headers, credentials: "omit" })
      .then(function (r) {
        if (r.ok) return null;
        return r.json().then(function (b) {
          return (b && b.error) || { code: "unauthorized", message: "Invalid embed public token." };
        });
      })
      .then(function (err) {
        if (!err) return;
        var box = document.createElement("div");
        box.className = "mx-auto max-w-md p-6";
        var card = document.createElement("div");
        card.setAttribute("role", "alert");
        card.setAttribute("data-testid", "embed-error");
        card.setAttribute("data-embed-error", err.code);
        card.setAttribute("data-message", err.message);
        card.className = "rounded-xl border border-gray-200 bg-white p-5 text-center shadow-sm dark:border-gray-800 dark:bg-gray-900";
        // The token worked when the page loaded: a 401 now means it expired.
        var title = document.createElement("h1");
        title.className = "text-lg font-semibold";
        title.setAttribute("data-testid", "embed-error-title");
        var hint = document.createElement("p");
        hint.className = "mt-2 text-sm text-gray-500 dark:text-gray-400";
        hint.setAttribute("data-testid", "embed-error-message");
        if (err.code === "unauthorized") {
          title.textContent = "This dashboard link has expired";
          hint.textContent = "Dashboard links are valid for a few hours. Reload the page to get a fresh one.";
        } else {
          title.textContent = "Something went wrong";
          hint.textContent = err.message;
        }
        card.appendChild(title);
        card.appendChild(hint);
        box.appendChild(card);
        root.replaceChildren(box);
        reportError(card);
      })
      .catch(function () {});
  }
  probe();
  window.addEventListener("focus", probe);

  // Copy.
  function copy(text) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text);
    }
    var ta = document.createElement("textarea");
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    try {
      document.execCommand("copy");
    } finally {
      ta.remove();
    }
    return Promise.resolve();
  }
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-copy]");
    if (b) {
      // Buttons with a [data-label] swap its text; icon-only buttons swap
      // their icons on [data-copied] (CSS), so their SVGs stay intact.
      var label = b.querySelector("[data-label]");
      var before = label ? label.textContent : "";
      copy(b.getAttribute("data-copy")).then(function () {
        if (label) label.textContent = b.getAttribute("data-copied-label") || "Copied";
        b.setAttribute("data-copied", "true");
        setTimeout(function () {
          if (label) label.textContent = before;
          b.removeAttribute("data-copied");
        }, 3000);
      });
      return;
    }
    var q = ev.target.closest("[data-quickstart-toggle]");
    if (q) {
      var show = !readShowQuickstart();
      writeShowQuickstart(show);
      applyQuickstart(show, true);
      var menu = q.closest("details");
      if (menu) menu.open = false;
      return;
    }
    var t = ev.target.closest("[data-tab],[data-goto-tab]");
    if (t) selectTab(t.getAttribute("data-tab") || t.getAttribute("data-goto-tab"));
  });

  // Starting guide (§6.4): the Quickstart tab shows unless the partner hid
  // it with the ⋯ menu; the choice is kept in localStorage (in memory when
  // the browser refuses storage to a third-party frame).
  var QS_KEY = "referral-embed-show-quickstart";
  var qsMemo = true;
  function readShowQuickstart() {
    try {
      var v = window.localStorage.getItem(QS_KEY);
      return v === null ? true : v === "true";
    } catch (e) {
      return qsMemo;
    }
  }
  function writeShowQuickstart(v) {
    qsMemo = v;
    try {
      window.localStorage.setItem(QS_KEY, String(v));
    } catch (e) {}
  }
  function applyQuickstart(show, select) {
    var tab = document.querySelector('[data-tab="quickstart"]');
    if (!tab) return;
    tab.hidden = !show;
    document.querySelectorAll("[data-quickstart-toggle]").forEach(function (b) {
      b.textContent = show ? "Hide starting guide" : "Show starting guide";
    });
    if (show && select) {
      selectTab("quickstart");
    } else if (!show && tab.getAttribute("aria-selected") === "true") {
      // The selected tab disappeared: fall back to the first one left.
      var first = document.querySelector("[data-tab]:not([hidden])");
      if (first) selectTab(first.getAttribute("data-tab"));
    }
  }
  applyQuickstart(readShowQuickstart(), false);
  document.addEventListener("change", function (ev) {
    if (!ev.target.matches("[data-link-select]")) return;
    var btn = ev.target.parentNode.querySelector("[data-copy]");
    if (btn) {
      btn.setAttribute("data-copy", ev.target.value);
      btn.click(); // choosing a link also copies it (§6.4)
    }
  });

  function selectTab(id) {
    var found = false;
    document.querySelectorAll("[data-panel]").forEach(function (p) {
      var on = p.getAttribute("data-panel") === id;
      found = found || on;
      p.hidden = !on;
      // A panel not loaded yet loads now, even below the fold.
      var lazy = on && p.querySelector('[hx-trigger*="tab-selected"]');
      if (lazy && window.htmx) window.htmx.trigger(lazy, "tab-selected");
    });
    if (!found) return;
    document.querySelectorAll("[data-tab]").forEach(function (b) {
      b.setAttribute("aria-selected", String(b.getAttribute("data-tab") === id));
    });
  }
})();
