/*! Relink analytics script: a drop-in for Dub's (same data-* attributes,
 * same window.dubAnalytics queue). Docs: docs/browser-script.md. */
(function () {
  var w = window, d = document, loc = location;
  var s = d.currentScript || d.querySelector('script[src*="/js/analytics.js"]');
  if (!s || w._dubAnalytics) return; // loaded twice: the first copy serves

  var ID = 'dub_id', PARTNER = 'dub_partner_data', DAY = 864e5;
  var HOST = loc.hostname;
  var attr = function (n) { return s.getAttribute('data-' + n); };
  var json = function (v, name) {
    try { return v ? JSON.parse(v) : null; } catch (e) { warn('Failed to parse data-' + name + '.', e); return null; }
  };
  var warn = function () { console.warn.apply(console, ['[dubAnalytics]'].concat([].slice.call(arguments))); };
  var noWWW = function (h) { return h.replace(/^www\./, '').trim(); };

  // data-api-host, else the Relink that serves this script (its API is /api).
  var API = (attr('api-host') || new URL(s.src, loc.href).origin + '/api').replace(/\/+$/, '');
  var KEY = attr('publishable-key');

  // Cookie options: Dub's defaults (the site's apex, Lax, 90 days), then
  // data-cookie-options ({domain, path, sameSite, secure, expiresInDays, ...}).
  // No domain on localhost or an IP address, where browsers refuse one.
  var COOKIE = {
    domain: /^(localhost|[\d.]+|\[[\da-f:]+\])$/i.test(HOST) ? '' : '.' + noWWW(HOST),
    path: '/',
    sameSite: 'Lax',
    expires: new Date(Date.now() + 90 * DAY).toUTCString()
  };
  var opts = json(attr('cookie-options'), 'cookie-options') || {};
  if (opts.expiresInDays) {
    opts.expires = new Date(Date.now() + opts.expiresInDays * DAY).toUTCString();
    delete opts.expiresInDays;
  }
  for (var o in opts) COOKIE[o] = opts[o];

  // data-domains {refer, site, outbound}; data-short-domain is the old refer.
  var DOMAINS = json(attr('domains'), 'domains') || {};
  DOMAINS.refer = DOMAINS.refer || attr('short-domain');
  var FIRST_CLICK = attr('attribution-model') === 'first-click';

  // The query parameters that carry a link key: data-query-param or
  // data-query-params, then "via".
  var params = new URLSearchParams(loc.search);
  var names = attr('query-param') ? [attr('query-param')] : json(attr('query-params'), 'query-params') || [];
  var VIA = null;
  names.concat('via').forEach(function (n) { VIA = VIA || params.get(n); });

  var cookie = {
    get: function (k) {
      var m = d.cookie.split(';').map(function (c) { return c.trim().split('='); })
        .filter(function (c) { return c[0] === k; })[0];
      return m && m[1];
    },
    set: function (k, v) {
      var a = [k + '=' + v];
      for (var o in COOKIE) if (COOKIE[o]) a.push(o + (COOKIE[o] === true ? '' : '=' + COOKIE[o]));
      d.cookie = a.join('; ');
    }
  };

  var post = function (path, body, auth) {
    var h = { 'Content-Type': 'application/json' };
    if (auth) h.Authorization = 'Bearer ' + auth;
    return fetch(API + path, { method: 'POST', headers: h, body: JSON.stringify(body) });
  };

  var DA = w.DubAnalytics = w.DubAnalytics || { partner: null, discount: null };
  var readyQ = [], clicking = null;
  var ready = function (cb) { if (clicking) readyQ.push(cb); else cb(); };

  // trackClick({domain, key}): one client-side click per page (Dub's rule).
  function trackClick(a) {
    if (clicking) return clicking;
    var server = params.get(ID);
    clicking = post('/track/click', { domain: a.domain, key: a.key, url: loc.href, referrer: d.referrer })
      .then(function (r) { return r.ok && r.json(); })
      .then(function (data) {
        if (!data) return;
        if (server && server !== data.clickId) {
          warn('Client-tracked click ID ' + data.clickId + ' does not match server-tracked click ID ' + server + ', skipping...');
          return;
        }
        cookie.set(ID, data.clickId);
        if (data.partner) {
          var p = {}, k;
          for (k in data.partner) p[k] = data.partner[k];
          p.name = encodeURIComponent(p.name);
          p.image = p.image ? encodeURIComponent(p.image) : null;
          cookie.set(PARTNER, JSON.stringify({ clickId: data.clickId, partner: p, discount: data.discount }));
          DA.partner = data.partner;
          DA.discount = data.discount;
        }
        outbound();
        return data;
      })
      .catch(function (e) { warn('trackClick failed', e); })
      .then(function (data) {
        clicking = Promise.resolve(data);
        var q = readyQ; readyQ = [];
        q.forEach(function (cb) { cb(); });
        return data;
      });
    return clicking;
  }

  // trackLead / trackSale: the client-side conversions, with the
  // publishable key and the visitor's click id.
  function convert(kind) {
    return function (input) {
      if (!KEY) { warn('Missing PUBLISHABLE_KEY'); return Promise.resolve(null); }
      var body = { clickId: cookie.get(ID) || '' };
      for (var k in input) body[k] = input[k];
      return post('/track/' + kind + '/client', body, KEY).then(function (r) {
        return r.json().then(function (out) {
          if (!r.ok) console.error('[dubAnalytics] track' + kind[0].toUpperCase() + kind.slice(1) + ' failed', out.error);
          return out;
        });
      });
    };
  }

  var api = {
    ready: ready, trackClick: trackClick, trackLead: convert('lead'), trackSale: convert('sale')
  };
  function call(m) {
    if (api[m]) return api[m].apply(null, [].slice.call(arguments, 1));
    warn('Unknown method:', m);
  }

  // window.dubAnalytics: callable (dubAnalytics('trackLead', {...})) and with
  // methods; calls queued by the stub (@dub/analytics, or the snippet in
  // docs/browser-script.md) before the script loaded run below.
  var queue = (w.dubAnalytics && w.dubAnalytics.q) || [];
  var da = function () { return call.apply(null, arguments); };
  for (var m in api) da[m] = api[m];
  da.q = [];
  w.dubAnalytics = da;

  // Outbound links and iframes to data-domains.outbound carry the click id.
  var done = [];
  function outbound() {
    var list = DOMAINS.outbound, id = cookie.get(ID);
    list = typeof list === 'string' ? list.split(',') : list || [];
    list = list.map(noWWW).filter(function (x) { return x && x !== noWWW(HOST); });
    if (!list.length || !id) return;
    var els = [].slice.call(d.querySelectorAll('a[href],iframe[src]'));
    [].forEach.call(d.querySelectorAll('iframe[srcdoc]'), function (f) {
      try { els = els.concat([].slice.call(f.contentDocument.querySelectorAll('a[href],iframe[src]'))); } catch (e) { /* cross-origin */ }
    });
    els.forEach(function (el) {
      if (done.indexOf(el) >= 0) return;
      try {
        var u = new URL(el.href || el.src), h = noWWW(u.hostname);
        var hit = list.some(function (x) { return x.indexOf('*.') === 0 ? h.endsWith(x.slice(1)) : h === x; });
        if (!hit || u.searchParams.has(ID)) return;
        u.searchParams.set(ID, id);
        if (el.tagName === 'A') el.href = u; else el.src = u;
        done.push(el);
      } catch (e) { /* not a URL */ }
    });
  }

  // Initialise: ?dub_id= from a redirect, then ?via= on the refer domain,
  // then the queued calls, then a site visit when there is no click id.
  var keep = function () { return !cookie.get(ID) || !FIRST_CLICK; };
  if (params.get(ID) && keep()) cookie.set(ID, params.get(ID));
  if (VIA && DOMAINS.refer && keep()) trackClick({ domain: DOMAINS.refer, key: VIA });
  var partner = cookie.get(PARTNER);
  if (partner) {
    try { partner = JSON.parse(partner); DA.partner = partner.partner; DA.discount = partner.discount; } catch (e) { warn('Failed to parse partner cookie:', e); }
  }
  queue.forEach(function (q) { call.apply(null, [].slice.call(q)); });

  if (DOMAINS.site && !(VIA && DOMAINS.refer) && !cookie.get(ID)) {
    post('/track/visit', { domain: DOMAINS.site, url: loc.href, referrer: d.referrer })
      .then(function (r) { return r.ok && r.json(); })
      .then(function (data) { if (data && data.clickId) { cookie.set(ID, data.clickId); outbound(); } })
      .catch(function (e) { warn('site visit failed', e); });
  }

  if (DOMAINS.outbound) {
    if (d.readyState === 'loading') d.addEventListener('DOMContentLoaded', outbound); else outbound();
    setInterval(outbound, 2000);
    w.addEventListener('popstate', outbound);
    ['pushState', 'replaceState'].forEach(function (f) {
      var orig = history[f];
      history[f] = function () { var r = orig.apply(this, arguments); outbound(); return r; };
    });
  }

  // Dub's internal handle, for scripts that read it.
  w._dubAnalytics = { c: cookie, i: ID, h: HOST, a: API, d: DOMAINS.refer, v: VIA, n: DOMAINS, k: KEY };
})();
