// Client-side tracking in headless Chromium (issue 18, docs/browser-script.md):
// a host site on another origin (http://site.localhost:<port>, a tiny Node
// server) loads a tracking script pointed at the real relink binary.
//
// Every scenario runs for each way a site loads a script:
//   relink-tag     <script src="<relink>/static/js/analytics.js">, no data-api-host
//   relink-inject  @dub/analytics's inject() with scriptProps.src = Relink's script
//   dub-tag        Dub's own script, built here with esbuild from dubinc/analytics,
//                  pointed at Relink with data-api-host
// Dub's code is not in this repository (and may not be): it is built at test
// time from a local git snapshot (RELINK_TEST_DUB_ANALYTICS_GIT, default the
// search tool's mirror); without one, that variant is skipped with a message.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";

import { freePort } from "../lib/relink-server.mjs";
import { eventually, launchBrowser, shot, signIn, startRelink, submit } from "./relink.mjs";

const require = createRequire(import.meta.url);
// A desktop Chrome UA: the default headless one is a bot and records nothing.
const CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const DUB_GIT = process.env.RELINK_TEST_DUB_ANALYTICS_GIT || "/work/.mirror/dubinc+analytics/repo";
const SITE_DOMAIN = "go.site-example.com"; // the Relink domain whose links are the site's pages
const OUTBOUND = "shop.localhost";

// The stub Dub's docs put before the script, so calls made before it loads
// are queued (window.dubAnalytics.q).
const STUB = `!(function(c,n){c[n]=c[n]||function(){(c[n].q=c[n].q||[]).push(arguments)};["trackClick","trackLead","trackSale"].forEach((t)=>(c[n][t]=(...a)=>c[n](t,...a)));})(window,"dubAnalytics");`;

/** Dub's all-extensions script (script.site-visit.outbound-domains.conversion-tracking.js), or null. */
async function buildDubScript() {
  if (!existsSync(DUB_GIT)) return null;
  const show = (p) => execFileSync("git", ["--git-dir", DUB_GIT, "show", `HEAD:packages/script/src/${p}`], { encoding: "utf8" });
  const contents = ["base.js", "extensions/site-visit.js", "extensions/outbound-domains.js", "extensions/conversion-tracking.js"]
    .map(show).join("\n");
  const esbuild = await import("esbuild");
  const out = await esbuild.build({
    stdin: { contents, sourcefile: "combined.js", resolveDir: process.cwd() },
    bundle: true, minify: true, format: "iife", target: "es2015", write: false, logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

const attr = (name, v) => (v == null ? "" : ` data-${name}='${typeof v === "string" ? v : JSON.stringify(v)}'`);

/**
 * The host site's page for variant v and config cfg ({domains,
 * cookieOptions, publishableKey, queryParam, queryParams, attributionModel}).
 */
function page(v, cfg, relink) {
  let loader;
  if (v.mode === "inject") {
    const props = {
      publishableKey: cfg.publishableKey, domainsConfig: cfg.domains, cookieOptions: cfg.cookieOptions,
      queryParam: cfg.queryParam, queryParams: cfg.queryParams, attributionModel: cfg.attributionModel,
      scriptProps: { src: `${relink.appURL}/static/js/analytics.js` },
    };
    loader = `<script type="module">import { inject } from "/dub-analytics.mjs"; inject(${JSON.stringify(props)});</script>`;
  } else {
    const src = v.name === "dub-tag" ? "/dub-script.js" : `${relink.appURL}/static/js/analytics.js`;
    loader = `<script>${STUB}</script><script defer src="${src}"` +
      attr("api-host", v.name === "dub-tag" ? `${relink.appURL}/api` : null) +
      attr("publishable-key", cfg.publishableKey) + attr("domains", cfg.domains) +
      attr("cookie-options", cfg.cookieOptions) + attr("query-param", cfg.queryParam) + attr("query-params", cfg.queryParams) +
      attr("attribution-model", cfg.attributionModel) + "></script>";
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>Acme site</title>${loader}</head>
<body><h1>Acme</h1>
<a id="out" href="https://${OUTBOUND}/cart?item=1">Shop</a>
<a id="other" href="https://elsewhere.example/">Elsewhere</a>
</body></html>`;
}

const VARIANTS = [
  { name: "relink-tag", mode: "tag" },
  { name: "relink-inject", mode: "inject" },
  { name: "dub-tag", mode: "tag" },
];

describe("browser script: client-side tracking from a site on another origin", () => {
  let relink, browser, site, siteURL, pk, dubScript, current;
  // The API with the workspace's key; a 429 (the analytics routes' rate
  // limit, when polling) waits for Retry-After and tries again.
  const api = async (path, init = {}) => {
    let res;
    for (;;) {
      res = await fetch(`${relink.apiURL}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${relink.apiKey}`, "Content-Type": "application/json", ...init.headers },
      });
      if (res.status !== 429) break;
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") || 1)));
    }
    const text = await res.text();
    assert.ok(res.ok, `${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const events = (kind, linkId) => api(`/events?event=${kind}&linkId=${linkId}&interval=all`);

  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
    dubScript = await buildDubScript();
    // @dub/analytics's browser build (ESM), as a site's bundler would serve it.
    const pkgScript = readFileSync(join(dirname(require.resolve("@dub/analytics/package.json")), "dist/index.js"), "utf8");
    const port = await freePort();
    siteURL = `http://site.localhost:${port}`;
    site = createServer((req, res) => {
      const path = new URL(req.url, siteURL).pathname;
      const body = path === "/dub-script.js" ? dubScript : path === "/dub-analytics.mjs" ? pkgScript
        : path === "/favicon.ico" ? null : page(current.v, current.cfg, relink);
      if (body == null) return res.writeHead(204).end();
      res.writeHead(200, { "Content-Type": path.endsWith("js") ? "text/javascript" : "text/html; charset=utf-8" }).end(body);
    });
    await new Promise((r) => site.listen(port, "127.0.0.1", r));

    // The console: generate the publishable key, read the snippet, allow
    // only the site's hostname.
    const ctx = await browser.newContext({ userAgent: CHROME_UA });
    const con = await ctx.newPage();
    await signIn(con, relink.appURL);
    await con.goto(`${relink.appURL}/console/settings`);
    await submit(con, `${relink.appURL}/console/settings`, () => con.click('[data-testid="publishable-key-generate"]'));
    pk = (await con.textContent('[data-testid="publishable-key"]')).trim();
    const snippet = await con.textContent('[data-testid="tracking-script-snippet"]');
    assert.ok(snippet.includes(`src="${relink.appURL}/static/js/analytics.js"`), snippet);
    assert.ok(snippet.includes(`data-publishable-key="${pk}"`), snippet);
    await con.fill("#f-hosts", "site.localhost");
    await Promise.all([con.waitForURL(/saved=1/), con.click('[data-testid="settings-save"]')]);
    await shot(con, "30-settings-tracking-script");
    await ctx.close();

    await api("/domains", { method: "POST", body: JSON.stringify({ slug: SITE_DOMAIN }) });
  });
  after(async () => {
    await browser?.close();
    await new Promise((r) => (site ? site.close(r) : r()));
    await relink?.stop();
  });

  /**
   * Opens path on the host site with variant v and config cfg in a fresh
   * context, as a new visitor (its own user agent: same-visitor answers are
   * per IP and user agent).
   */
  let visitors = 0;
  async function visit(v, cfg, path) {
    current = { v, cfg };
    const ctx = await browser.newContext({ userAgent: `${CHROME_UA} visitor/${++visitors}` });
    const p = await ctx.newPage();
    const errors = [];
    p.on("pageerror", (e) => errors.push(String(e)));
    const logs = [];
    p.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
    p.on("requestfailed", (r) => logs.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
    await p.goto(`${siteURL}${path}`);
    const cookie = await eventually(async () => (await ctx.cookies()).find((c) => c.name === "dub_id"), { what: `dub_id on ${path}` })
      .catch((e) => { throw new Error(`${e.message}\npage log:\n${logs.join("\n")}\npage errors: ${errors.join("\n")}`); });
    return { ctx, page: p, cookie, errors };
  }

  for (const v of VARIANTS) {
    const skip = v.name === "dub-tag" && !existsSync(DUB_GIT)
      ? `Dub's script is built from a local dubinc/analytics snapshot; none at ${DUB_GIT} (set RELINK_TEST_DUB_ANALYTICS_GIT)`
      : false;

    test(`${v.name}: ?via= records a click and sets dub_id with the cookie options; outbound links carry it; trackLead and trackSale are attributed to it`, { skip }, async () => {
      const link = await api("/links", { method: "POST", body: JSON.stringify({ url: `${siteURL}/`, key: `jane-${v.name}` }) });
      const cfg = {
        publishableKey: pk,
        domains: { refer: link.domain, site: SITE_DOMAIN, outbound: OUTBOUND },
        cookieOptions: { expiresInDays: 30, sameSite: "Strict" },
      };
      const { ctx, page: p, cookie, errors } = await visit(v, cfg, `/?via=${link.key}`);
      const days = (cookie.expires * 1000 - Date.now()) / 86400e3;
      assert.ok(days > 29.9 && days <= 30, `expires in ${days} days, want 30 (expiresInDays)`);
      assert.equal(cookie.sameSite, "Strict");
      assert.equal(cookie.path, "/");
      assert.equal(cookie.domain, ".site.localhost");
      assert.match(cookie.value, /^[A-Za-z0-9]{16}$/);

      const clicks = await eventually(async () => {
        const ev = await events("clicks", link.id);
        return ev.length ? ev : null;
      }, { what: "the click", interval: 500 });
      assert.equal(clicks.length, 1, "one click, not a pageview as well");
      assert.equal(clicks[0].click.id, cookie.value);
      assert.equal(clicks[0].click.trigger, "link");

      await eventually(async () => (await p.getAttribute("#out", "href")).includes(`dub_id=${cookie.value}`), { what: "the outbound link's dub_id" });
      assert.equal(await p.getAttribute("#out", "href"), `https://${OUTBOUND}/cart?item=1&dub_id=${cookie.value}`);
      assert.equal(await p.getAttribute("#other", "href"), "https://elsewhere.example/");

      const customer = `cus_${v.name}`;
      await p.evaluate((c) => window.dubAnalytics.trackLead({ eventName: "Sign up", customerExternalId: c, customerName: "Jane Doe" }), customer);
      const leads = await eventually(async () => {
        const ev = await events("leads", link.id);
        return ev.length ? ev : null;
      }, { what: "the lead", interval: 500 });
      assert.equal(leads[0].click.id, cookie.value);
      assert.equal(leads[0].customer.externalId, customer);

      await p.evaluate((c) => window.dubAnalytics.trackSale({ customerExternalId: c, amount: 4900, paymentProcessor: "stripe", eventName: "Purchase" }), customer);
      const sales = await eventually(async () => {
        const ev = await events("sales", link.id);
        return ev.length ? ev : null;
      }, { what: "the sale", interval: 500 });
      assert.equal(sales[0].click.id, cookie.value);
      assert.equal(sales[0].sale.amount, 4900);
      const after = await api(`/links/${link.id}`);
      assert.deepEqual([after.clicks, after.leads, after.sales, after.saleAmount], [1, 1, 1, 4900]);
      assert.deepEqual(errors, []);
      await shot(p, `31-site-${v.name}`);
      await ctx.close();
    });

    test(`${v.name}: a site visit records a pageview click on the page's link (_root for /)`, { skip }, async () => {
      const pageKey = `pricing-${v.name}`;
      const pricing = await api("/links", { method: "POST", body: JSON.stringify({ domain: SITE_DOMAIN, key: pageKey, url: `${siteURL}/${pageKey}` }) });
      const root = await api(`/links/info?domain=${SITE_DOMAIN}&key=_root`);
      const cfg = { domains: { site: SITE_DOMAIN } };
      for (const [path, link] of [[`/${pageKey}?utm_source=news`, pricing], ["/", root]]) {
        // A distinct visitor for each page and variant (same-visitor answers are per link).
        const before = (await events("clicks", link.id)).length;
        const { ctx, cookie, errors } = await visit(v, cfg, path);
        const click = await eventually(async () => (await events("clicks", link.id)).find((e) => e.click.id === cookie.value), { what: `the pageview on ${path}`, interval: 500 });
        assert.equal(click.click.trigger, "pageview");
        assert.equal(click.click.url, `${siteURL}${path}`);
        assert.equal((await events("clicks", link.id)).length, before + 1);
        if (link === pricing) {
          const triggers = await api(`/analytics?event=clicks&groupBy=triggers&linkId=${link.id}&interval=all`);
          assert.deepEqual(triggers.map((t) => [t.trigger, t.clicks]), [["pageview", 1]]);
        }
        assert.deepEqual(errors, []);
        await ctx.close();
      }
    });

    test(`${v.name}: data-query-params name the key's parameter; first-click keeps dub_id, last-click replaces it`, { skip }, async () => {
      const mk = (k) => api("/links", { method: "POST", body: JSON.stringify({ url: `${siteURL}/`, key: `${k}-${v.name}` }) });
      const first = await mk("first"), second = await mk("second");
      const cfg = { domains: { refer: first.domain }, queryParams: ["aff"], attributionModel: "first-click" };
      const { ctx, page: p, cookie, errors } = await visit(v, cfg, `/?aff=${first.key}`);
      const click = await eventually(async () => (await events("clicks", first.id)).find((e) => e.click.id === cookie.value), { what: "the ?aff= click", interval: 500 });
      assert.ok(click);

      // first-click: a second partner's link neither tracks nor replaces the cookie.
      await p.goto(`${siteURL}/?aff=${second.key}`);
      await p.waitForLoadState("networkidle");
      assert.equal((await ctx.cookies()).find((c) => c.name === "dub_id").value, cookie.value);
      // last-click (the default): the same visit replaces it with the new link's click.
      current = { v, cfg: { ...cfg, attributionModel: undefined } };
      await p.goto(`${siteURL}/?aff=${second.key}`);
      const replaced = await eventually(async () => {
        const c = (await ctx.cookies()).find((x) => x.name === "dub_id");
        return c.value !== cookie.value && c.value;
      }, { what: "dub_id replaced under last-click" });
      const clicks = await eventually(async () => {
        const ev = await events("clicks", second.id);
        return ev.length ? ev : null;
      }, { what: "the second link's click", interval: 500 });
      assert.deepEqual(clicks.map((e) => e.click.id), [replaced], "exactly one click on the second link, the last-click one");
      assert.deepEqual(errors, []);
      await ctx.close();
    });
  }
});
