// Relink embed script for host pages: renders the referral dashboard in an
// iframe and resizes it. Usage:
//   <script src="https://app.example.com/static/js/embed.js"></script>
//   <div id="referrals"></div>
//   <script>
//     Relink.init({ token: "dub_embed_…", root: document.getElementById("referrals"),
//                   theme: "system", themeOptions: { backgroundColor: "#fff" },
//                   onError: function (e) { console.log(e.code, e.message); } });
//   </script>
// The origin defaults to the one this script was served from; pass origin to
// override. Messages are accepted only from that origin's iframe.
(function (w) {
  "use strict";
  var CONTAINER_ID = "relink-embed-container";
  var scriptOrigin = "";
  try {
    if (document.currentScript && document.currentScript.src) scriptOrigin = new URL(document.currentScript.src).origin;
  } catch (e) {
    scriptOrigin = "";
  }

  function src(o) {
    var origin = (o.origin || scriptOrigin || "").replace(/\/+$/, "");
    var q = new URLSearchParams();
    q.set("token", o.token);
    if (o.theme) q.set("theme", o.theme);
    if (o.themeOptions) q.set("themeOptions", JSON.stringify(o.themeOptions));
    q.set("dynamicHeight", "true");
    return { origin: origin, url: origin + "/embed/referrals?" + q.toString() };
  }

  function init(o) {
    o = o || {};
    if (!o.token) {
      console.error("[Relink] a token is required");
      return null;
    }
    if ((o.data || "referrals") !== "referrals") {
      console.error("[Relink] unsupported data: " + o.data);
      return null;
    }
    var root = o.root || document.body;
    var existing = document.getElementById(CONTAINER_ID);
    if (existing) return existing;
    var s = src(o);
    var box = document.createElement("div");
    box.id = CONTAINER_ID;
    box.style.cssText = "position:relative;max-width:1024px;height:1020px;margin:0 auto";
    Object.assign(box.style, o.containerStyles || {});
    var frame = document.createElement("iframe");
    frame.src = s.url;
    frame.title = "Referral dashboard";
    frame.setAttribute("allow", "clipboard-write");
    frame.style.cssText = "width:100%;height:100%;border:none";
    box.appendChild(frame);
    root.appendChild(box);
    function onMessage(ev) {
      if (ev.source !== frame.contentWindow || (s.origin && ev.origin !== s.origin)) return;
      var m = ev.data || {};
      if (m.event === "PAGE_HEIGHT" && m.data && typeof m.data.height === "number") {
        box.style.height = m.data.height + "px";
      } else if (m.event === "ERROR" && o.onError) {
        var d = m.data || {};
        var err = new Error(d.message || "");
        err.name = "EmbedError";
        err.code = d.code || "";
        o.onError(err);
      }
    }
    w.addEventListener("message", onMessage);
    box._relinkDestroy = function () {
      w.removeEventListener("message", onMessage);
      box.remove();
    };
    return box;
  }

  function destroy() {
    var box = document.getElementById(CONTAINER_ID);
    if (box && box._relinkDestroy) box._relinkDestroy();
    else if (box) box.remove();
  }

  w.Relink = { init: init, destroy: destroy, CONTAINER_ID: CONTAINER_ID };
})(window);
