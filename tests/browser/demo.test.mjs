// `relink demo` as a new user meets it (issue 19 item 6), in headless
// Chromium at 1280 and 390 px: the demo fills the workspace of a running
// server, then the console and a partner's embedded dashboard must look
// like a real program. Screenshots: artifacts/demo-<page>-<width>.png.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { launchBrowser, shot, signIn, startRelink } from "./relink.mjs";

const WIDTHS = [1280, 390];
const MACHINE = /\b(Partner|Customer) \d+\b|demo-(red|yellow|green|blue|purple)/;

let relink, browser, partners;

async function api(path, init = {}) {
  const res = await fetch(relink.apiURL + path, { ...init, headers: { Authorization: `Bearer ${relink.apiKey}`, "Content-Type": "application/json" } });
  const body = await res.json();
  assert.ok(res.ok, `${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

before(async () => {
  relink = await startRelink({ workspace: { plan: "advanced" } });
  const help = await relink.cli(["demo", "--help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: relink demo --workspace SLUG/);
  const r = await relink.cli(["demo", "--workspace", "acme", "--links", "60", "--clicks", "4000", "--leads", "400", "--sales", "150",
    "--days", "30", "--partners", "6", "--seed", "42"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /partner commissions/);
  partners = await api("/partners?pageSize=100");
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await relink?.stop();
});

test("the demo data looks real through the API: rewards earn, events run up to now", async () => {
  assert.equal(partners.length, 6);
  for (const p of partners) assert.match(p.name, /^[A-Z][a-z]+ [A-Z][\p{L}]+$/u, `partner name ${p.name}`);
  assert.ok(partners.filter((p) => p.totalCommissions > 0).length >= 1, "some partner has earnings");
  const commissions = await api("/commissions?pageSize=100");
  assert.ok(commissions.length > 0 && commissions.every((c) => c.earnings > 0), "commissions from the rewards");
  for (const event of ["leads", "sales"]) {
    const evs = await api(`/events?event=${event}&interval=all&limit=10`);
    const times = evs.map((e) => Date.parse(e.timestamp));
    assert.ok(Date.now() - times[0] < 24 * 3600e3, `newest ${event} within a day of now: ${evs[0].timestamp}`);
    assert.ok(new Set(times).size >= times.length - 1, `${event} spread, not piled at one instant: ${evs.map((e) => e.timestamp)}`);
  }
  const customers = await api("/customers?pageSize=20");
  for (const c of customers) assert.doesNotMatch(c.name, MACHINE);
});

for (const width of WIDTHS) {
  test(`${width}px: the console shows a real-looking program`, async () => {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);

    await page.goto(`${relink.appURL}/console/links`);
    const shorts = await page.locator('[data-testid="link-row"] [data-testid="link-short"]').allTextContents();
    assert.ok(shorts.length >= 10, `links listed: ${shorts.length}`);
    assert.ok(shorts.slice(0, 10).every((s) => !s.includes("_root")), `no _root link at the top: ${shorts.slice(0, 3)}`);
    await shot(page, `demo-links-${width}`);

    await page.goto(`${relink.appURL}/console/partners`);
    const text = await page.locator("main").textContent();
    assert.doesNotMatch(text, MACHINE);
    const earner = partners.find((p) => p.totalCommissions > 0);
    assert.ok(text.includes(earner.name), `${earner.name} listed`);
    await shot(page, `demo-partners-${width}`);

    await page.goto(`${relink.appURL}/console/commissions`);
    assert.match(await page.locator("main").textContent(), /\$\d+\.\d\d/);
    await shot(page, `demo-commissions-${width}`);

    await page.goto(`${relink.appURL}/console/customers`);
    assert.doesNotMatch(await page.locator("main").textContent(), MACHINE);
    await shot(page, `demo-customers-${width}`);

    await page.goto(`${relink.appURL}/console/tags`);
    const tags = await page.locator("main").textContent();
    for (const t of ["Newsletter", "Social", "Paid ads", "Partners", "Product launch"]) assert.ok(tags.includes(t), `tag ${t}`);
    assert.doesNotMatch(tags, MACHINE);
    await shot(page, `demo-tags-${width}`);
    await ctx.close();
  });

  test(`${width}px: a demo partner's dashboard shows earnings and a leaderboard`, async () => {
    const earner = [...partners].sort((a, b) => b.totalCommissions - a.totalCommissions)[0];
    const { publicToken } = await api("/tokens/embed/referrals", { method: "POST", body: JSON.stringify({ partnerId: earner.id }) });
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(`${relink.appURL}/embed/referrals?token=${publicToken}`);
    const earnings = page.locator('[data-testid="stat-earnings"] [data-testid="stat-value"]');
    await earnings.waitFor();
    assert.notEqual(await earnings.textContent(), "$0.00");
    assert.ok((await page.locator('[data-testid="reward"]').count()) >= 2, "the demo's rewards are listed");
    await shot(page, `demo-embed-${width}`);
    await page.locator('[data-tab="leaderboard"]').click();
    await page.locator('[data-testid="leaderboard-you"]').waitFor();
    assert.equal(await page.locator('[data-testid="leaderboard-row"]').count(), partners.filter((p) => p.totalCommissions > 0).length);
    await page.locator('[data-testid="leaderboard"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: new URL(`./artifacts/demo-embed-leaderboard-${width}.png`, import.meta.url).pathname });
    await ctx.close();
  });
}

// Issue 33 (the console at real sizes), items 1, 2 and 4 over the demo's
// data. Screenshots: artifacts/i33-<item>-<what>-<width>.png.
const money = (cents) => "$" + Math.trunc(cents / 100).toLocaleString("en-US") + "." + String(cents % 100).padStart(2, "0");
const count = (n) => n.toLocaleString("en-US");

// Every page of an API list (offset paging, 100 a page).
async function all(path) {
  const out = [];
  for (let page = 1; ; page++) {
    const rows = await api(`${path}${path.includes("?") ? "&" : "?"}pageSize=100&page=${page}`);
    out.push(...rows);
    if (rows.length < 100) return out;
  }
}

// The table's rows as arrays of cell texts (the stacked layout's labels are
// CSS, not text).
async function rows(page) {
  return page.$$eval('[data-testid="data-row"]', (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent.trim())));
}

// No element makes the page scroll sideways.
async function noSideways(page, what) {
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 1, `${what}: the page scrolls sideways by ${over}px`);
}

for (const width of WIDTHS) {
  test(`${width}px, issue 33 item 1: every list pages with a count and keeps its filters and sort`, async () => {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    const customers = await all("/customers");
    assert.ok(customers.length > 50, `more customers than a page: ${customers.length}`);
    await page.goto(`${relink.appURL}/console/customers?sort=saleAmount`);
    const counter = page.locator('[data-testid="table-pagination"] [data-testid="page-count"]');
    assert.equal(await counter.textContent(), `1–50 of ${count(customers.length)}`);
    assert.equal((await rows(page)).length, 50);
    await shot(page, `i33-1-customers-${width}`);
    await Promise.all([page.waitForURL(/page=2/), page.locator('[data-testid="page-next"]').click()]);
    const u = new URL(page.url());
    assert.equal(u.searchParams.get("sort"), "saleAmount", "the next page keeps the sort");
    assert.equal(await counter.textContent(), `51–${Math.min(100, customers.length)} of ${count(customers.length)}`);
    assert.equal(await page.locator('[data-testid="table-sorts"] [aria-current="true"]').textContent(), "Revenue");
    await noSideways(page, "customers");

    // Commissions: "All" is every status and every date.
    const commissions = await all("/commissions?interval=all");
    await page.goto(`${relink.appURL}/console/commissions`);
    assert.match(await counter.textContent(), new RegExp(`of ${count(commissions.length)}$`));
    await page.goto(`${relink.appURL}/console/commissions?status=pending&sort=amount`);
    const pending = commissions.filter((c) => c.status === "pending");
    assert.match(await counter.textContent(), new RegExp(`of ${count(pending.length)}$`));
    if (pending.length > 50) {
      await Promise.all([page.waitForURL(/page=2/), page.locator('[data-testid="page-next"]').click()]);
      const q = new URL(page.url()).searchParams;
      assert.deepEqual([q.get("status"), q.get("sort")], ["pending", "amount"], "the next page keeps the filter and the sort");
    }
    await shot(page, `i33-1-commissions-${width}`);
    await noSideways(page, "commissions");

    // The other lists show their count too.
    for (const [path, sel] of [["/console/partners", "table-pagination"], ["/console/payouts", "table-pagination"],
      ["/console/applications", null], ["/console/bounties", null], ["/console/settings/members", "members-pagination"], ["/console/links", "links-pagination"]]) {
      await page.goto(`${relink.appURL}${path}`);
      if (sel) assert.match(await page.locator(`[data-testid="${sel}"] [data-testid="page-count"]`).textContent(), /^(\d[\d,]*–\d[\d,]* of |0 of )\d/, path);
      await noSideways(page, path);
    }
    await ctx.close();
  });

  test(`${width}px, issue 33 item 2: the console's counters equal /analytics, /customers, /partners and /links`, async () => {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);

    // Customers by revenue: the console's first page is the API's.
    const top = await api("/customers?sortBy=saleAmount&sortOrder=desc&pageSize=50");
    await page.goto(`${relink.appURL}/console/customers?sort=saleAmount`);
    const shown = await rows(page);
    assert.ok(top[0].sales > 0 && top[0].saleAmount > 0, "the best customer has sales");
    for (const [i, c] of top.entries()) {
      assert.equal(shown[i][1], c.externalId);
      assert.deepEqual([shown[i][3], shown[i][4]], [count(c.sales), money(c.saleAmount)], `customer ${c.externalId}`);
    }
    await shot(page, `i33-2-customers-${width}`);
    // Together the customers hold every sale /analytics counts.
    const customers = await all("/customers");
    const totals = await api("/analytics?interval=all&event=composite");
    assert.equal(customers.reduce((n, c) => n + c.sales, 0), totals.sales);
    assert.equal(customers.reduce((n, c) => n + c.saleAmount, 0), totals.saleAmount);

    // The overview's 30 days are /analytics' 30 days.
    const month = await api("/analytics?interval=30d&event=composite");
    await page.goto(`${relink.appURL}/console`);
    assert.equal(await page.textContent('[data-testid="overview-clicks"] [data-testid="stat-value"]'), count(month.clicks));
    assert.equal(await page.textContent('[data-testid="overview-sales"] [data-testid="stat-value"]'), count(month.sales));

    // Partners: the console's totals are /partners'.
    const ps = await api("/partners?pageSize=100");
    await page.goto(`${relink.appURL}/console/partners`);
    const byName = new Map((await rows(page)).map((r) => [r[0], r]));
    for (const p of ps) {
      const r = byName.get(p.name);
      assert.ok(r, `${p.name} listed`);
      assert.deepEqual(r.slice(3, 8), [count(p.totalClicks), count(p.totalLeads), count(p.totalSales), money(p.totalSaleAmount), money(p.totalCommissions)], p.name);
    }

    // Links by clicks: the console's click counts are /links'.
    await page.goto(`${relink.appURL}/console/links?sort=clicks`);
    const listed = await page.$$eval('[data-testid="link-row"]', (rs) => rs.map((r) => [r.querySelector('[data-testid="link-short"]').textContent.trim(),
      r.querySelector('[data-testid="link-clicks"]').textContent.trim()]));
    assert.ok(listed.length >= 10);
    for (const [short, clicks] of listed) {
      const [domain, key] = [short.slice(0, short.indexOf("/")), short.slice(short.indexOf("/") + 1)];
      const l = await api(`/links/info?domain=${encodeURIComponent(domain)}&key=${encodeURIComponent(key)}`);
      assert.equal(clicks.replace(/ clicks?$/, ""), count(l.clicks), short);
    }
    await ctx.close();
  });
}


// One sign-in for the issue 33 checks below (the sign-in form is rate
// limited per address): each page reuses its session.
let session;
async function signedIn(width, height = 900) {
  if (!session) {
    const c = await browser.newContext();
    await signIn(await c.newPage(), relink.appURL);
    session = await c.storageState();
    await c.close();
  }
  const ctx = await browser.newContext({ viewport: { width, height }, storageState: session });
  return { ctx, page: await ctx.newPage() };
}

// Issue 33 item 3: a partner, one by one. The partners list (earnings,
// most first; or clicks) opens the partner's page: totals as /partners
// answers them, the clicks/leads/sales charts of the partner's links, the
// links, commissions and payouts, and the status actions. Screenshots:
// artifacts/i33-3-partner-<width>.png, i33-3-partners-by-clicks-<width>.png.
for (const width of WIDTHS) {
  test(`${width}px, issue 33 item 3: the partner page, reached from the list sorted by earnings or clicks`, async () => {
    const { ctx, page } = await signedIn(width, 900);
    await page.goto(`${relink.appURL}/console/partners`);
    const byEarnings = [...partners].sort((a, b) => b.totalCommissions - a.totalCommissions);
    const names = async () => (await rows(page)).map((r) => r[0]);
    assert.equal((await names())[0], byEarnings[0].name, "the list starts with the best earner");
    assert.equal(await page.locator('[data-testid="table-sorts"] [aria-current="true"]').textContent(), "Earnings");
    await Promise.all([page.waitForURL(/sort=totalClicks/), page.locator('[data-testid="table-sorts"] a', { hasText: "Clicks" }).click()]);
    const byClicks = [...partners].sort((a, b) => b.totalClicks - a.totalClicks);
    assert.equal((await names())[0], byClicks[0].name, "sorted by clicks, most first");
    await shot(page, `i33-3-partners-by-clicks-${width}`);

    const p = byEarnings[0];
    await Promise.all([page.waitForURL(`${relink.appURL}/console/partners/${p.id}`),
      page.locator('[data-testid="data-row"] [data-testid="row-link"]', { hasText: p.name }).click()]);
    assert.equal(await page.textContent('[data-testid="partner-name"]'), p.name);
    assert.equal(await page.textContent('[data-testid="partner-status"]'), p.status);
    const total = (id) => page.textContent(`[data-testid="${id}"] [data-testid="total-value"]`);
    assert.deepEqual([await total("partner-clicks"), await total("partner-leads"), await total("partner-sales"), await total("partner-revenue"), await total("partner-earnings")],
      [count(p.totalClicks), count(p.totalLeads), count(p.totalSales), money(p.totalSaleAmount), money(p.totalCommissions)]);
    await noSideways(page, "partner page");
    await shot(page, `i33-3-partner-${width}`);
    // The charts are the partner's links' events over time (/analytics with partnerId).
    await page.goto(`${relink.appURL}/console/partners/${p.id}?interval=all`);
    const a = await api(`/analytics?interval=all&event=composite&partnerId=${p.id}`);
    assert.equal(await page.textContent('[data-testid="analytics"] [data-testid="total-clicks"] [data-testid="total-value"]'), count(a.clicks));
    assert.equal(await page.textContent('[data-testid="analytics"] [data-testid="total-sales"] [data-testid="total-value"]'), count(a.sales));
    // The chart may draw after the page's load event on a loaded machine: wait
    // for it (a chart that never shows fails here).
    await page.locator('[data-testid="chart"] [data-testid="series-Clicks"]').waitFor({ state: "visible", timeout: 15000 });
    assert.equal(await page.locator('[data-testid="chart-conversions"] [data-testid="series-Sales"]').count(), 1, "leads and sales over time");
    const links = await page.locator('[data-testid="partner-links"] [data-testid="data-row"]').count();
    assert.equal(links, p.links.length, "every link of the partner");
    const commissions = await api(`/commissions?partnerId=${p.id}&interval=all&pageSize=100`);
    assert.equal(await page.locator('[data-testid="partner-commissions"] [data-testid="data-row"]').count(), Math.min(10, commissions.length));
    assert.ok(await page.locator('[data-testid="partner-payouts"]').isVisible(), "the payouts card");
    assert.deepEqual(await page.locator('[data-testid="partner-actions"] button').allTextContents(), ["Archive", "Deactivate", "Ban"]);

    // The commissions link leads to the partner's commissions, paged.
    if (commissions.length > 0) {
      await Promise.all([page.waitForURL(/commissions\?partnerId=/), page.locator('[data-testid="related-link"]', { hasText: "commissions of" }).click()]);
      assert.match(await page.textContent('[data-testid="table-pagination"] [data-testid="page-count"]'), new RegExp(` of ${count(commissions.length)}$`));
    }
    await ctx.close();
  });
}

test("issue 33 item 3: deactivate and reactivate a partner from their page", async () => {
  const { ctx, page } = await signedIn(1280, 900);
  page.on("dialog", (d) => d.accept());
  const p = [...partners].sort((a, b) => a.totalCommissions - b.totalCommissions)[0];
  await page.goto(`${relink.appURL}/console/partners/${p.id}`);
  await Promise.all([page.waitForLoadState("load"), page.click('[data-testid="partner-deactivate"]')]);
  await page.locator('[data-testid="partner-status"]', { hasText: "deactivated" }).waitFor();
  assert.equal((await api(`/partners/${p.id}`)).status, "deactivated");
  await shot(page, "i33-3-partner-deactivated-1280");
  await Promise.all([page.waitForLoadState("load"), page.click('[data-testid="partner-reactivate"]')]);
  await page.locator('[data-testid="partner-status"]', { hasText: "approved" }).waitFor();
  assert.equal((await api(`/partners/${p.id}`)).status, "approved");
  await ctx.close();
});

// Issue 33 item 4: at 390 px no console page scrolls sideways, over the
// demo's data (long destinations, many rows). The offending element is
// named when one does. Screenshots: artifacts/i33-4-<page>-390.png.
test("390px, issue 33 item 4: no console page scrolls sideways", async () => {
  const { ctx, page } = await signedIn(390, 844);
  const link = (await api("/links?pageSize=1&sort=clicks"))[0];
  const folders = await api("/folders");
  const hooks = await api("/webhooks");
  const pages = ["/console", "/console/links", `/console/links/${link.id}`, "/console/analytics", "/console/import", "/console/program",
    "/console/program/discounts", "/console/partners", `/console/partners/${partners[0].id}`, "/console/applications", "/console/commissions",
    "/console/payouts", "/console/bounties", "/console/customers", "/console/domains", "/console/tags", "/console/folders",
    "/console/settings", "/console/settings/keys", "/console/settings/members", "/console/webhooks"];
  if (folders.length) pages.push(`/console/folders/${folders[0].id}`);
  if (hooks.length) pages.push(`/console/webhooks/${hooks[0].id}`);
  for (const path of pages) {
    const res = await page.goto(`${relink.appURL}${path}`);
    assert.equal(res.status(), 200, path);
    const wide = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      const out = [];
      for (const el of document.querySelectorAll("main *")) {
        const r = el.getBoundingClientRect();
        let clipped = false;
        for (let a = el.parentElement; a && !clipped; a = a.parentElement) clipped = ["auto", "scroll", "hidden"].includes(getComputedStyle(a).overflowX);
        if (!clipped && r.width > 0 && r.right > w + 1) out.push(`${el.tagName.toLowerCase()}[data-testid=${el.dataset.testid ?? ""}] ${el.textContent.trim().slice(0, 40)}`);
      }
      return { over: document.documentElement.scrollWidth - w, out: out.slice(0, 3) };
    });
    assert.ok(wide.over <= 1, `${path} scrolls sideways by ${wide.over}px: ${wide.out.join(" | ")}`);
    if (["/console/import", "/console/settings", "/console/analytics"].includes(path)) await shot(page, `i33-4-${path.split("/").pop()}-390`);
  }
  await ctx.close();
});

// Issue 33 item 6, the small things, at both widths: "Link saved." where the
// user looks, the webhook form's folder and link choices, the tracking
// script's Copy button within a phone's width, analytics filter selects
// showing their whole label. Screenshots: artifacts/i33-6-<what>-<width>.png.
for (const width of WIDTHS) {
  test(`${width}px, issue 33 item 6: saved notice, webhook choices, tracking-script copy, whole filter labels`, async () => {
    const { ctx, page } = await signedIn(width, 844);

    const link = (await api("/links?pageSize=1&sort=clicks"))[0];
    await page.goto(`${relink.appURL}/console/links/${link.id}`);
    // The form posts and the browser navigates (to ?saved=1, or the form
    // again with its errors); wait for that navigation, not the current page.
    await Promise.all([page.waitForEvent("framenavigated"), page.click('[data-testid="link-submit"]')]);
    await page.waitForLoadState("load");
    if (!page.url().includes("saved=1")) {
      const errs = await page.locator('[data-testid="alert-error"], [data-testid="field-error"]').allTextContents();
      assert.fail(`saving ${link.domain}/${link.key} did not save: ${errs.join(" | ") || page.url()}`);
    }
    const saved = page.locator('[data-testid="alert-success"]', { hasText: "Link saved." });
    assert.ok(await saved.isVisible());
    const b = await saved.boundingBox();
    assert.ok(b.y >= 0 && b.y + b.height <= 844, `"Link saved." is on the first screen (y ${b.y})`);
    await shot(page, `i33-6-link-saved-${width}`);

    await page.goto(`${relink.appURL}/console/webhooks`);
    assert.equal(await page.locator('input[name="folderIds"][type="text"], input[name="linkIds"][type="text"]').count(), 0, "no ID fields");
    const folderChoices = await page.locator('[data-testid="webhook-folders"] label').allTextContents();
    const folders = await api("/folders");
    assert.deepEqual(folderChoices.map((t) => t.trim()).sort(), folders.map((f) => f.name).sort());
    assert.ok(await page.locator('[data-testid="webhook-links"] [data-testid="webhook-links-choice"]').count() >= 10, "links to tick");
    await noSideways(page, "webhooks");
    await page.locator('[data-testid="webhook-folders"]').scrollIntoViewIfNeeded();
    await shot(page, `i33-6-webhook-choices-${width}`);

    await page.goto(`${relink.appURL}/console/settings`);
    const snippet = page.locator('[data-testid="tracking-script-snippet"]');
    const copy = page.locator('[data-testid="tracking-script-copy"]');
    assert.ok(await copy.isVisible(), "the tag has a Copy button");
    assert.ok(await snippet.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), "the whole tag shows, no scrolling inside it");
    const cb = await copy.boundingBox();
    assert.ok(cb.x + cb.width <= width, "the Copy button is on screen");
    await noSideways(page, "settings");
    await snippet.scrollIntoViewIfNeeded();
    await shot(page, `i33-6-tracking-script-${width}`);

    await page.goto(`${relink.appURL}/console/analytics`);
    // A select shows its chosen option whole: the option's text fits the
    // select's box (measured in the select's own font, less its arrow and padding).
    const cut = await page.$$eval('[data-testid="analytics-filters"] select', (ss) => ss.map((s) => {
      const c = document.createElement("canvas").getContext("2d");
      const st = getComputedStyle(s);
      c.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
      const text = s.options[s.selectedIndex].text;
      const room = s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 16;
      return c.measureText(text).width > room ? `${s.name}: "${text}" (${Math.round(c.measureText(text).width)} > ${Math.round(room)})` : null;
    }).filter(Boolean));
    assert.deepEqual(cut, [], "filter labels cut");
    await page.locator('[data-testid="analytics-filters"]').scrollIntoViewIfNeeded();
    await shot(page, `i33-6-analytics-filters-${width}`);
    await ctx.close();
  });
}

// Issue 33 item 7: the demo reads like a business and every one of its
// short links redirects on the server as it runs: the links are on the
// default short domain (the app's host here, localhost:8080 on `make run`),
// with keys a person chose and titles. Screenshots:
// artifacts/i33-7-links-<width>.png, i33-7-partner-links-1280.png.
test("issue 33 item 7: every demo short link redirects, with keys and titles a person would choose", async () => {
  // GET /links leaves links in folders out unless asked for a folder (as Dub).
  const links = await all("/links");
  for (const f of await api("/folders")) links.push(...await all(`/links?folderId=${f.id}`));
  assert.equal(links.length, 60);
  const appHost = new URL(relink.appURL).host;
  const human = /^[a-z][a-z-]*[a-z](-\d+)?$/;
  for (const l of links) {
    assert.equal(l.domain, appHost, `${l.key} is on the default short domain`);
    assert.match(l.key, human, "a key a person chose");
    assert.ok(l.title, `${l.key} has a title`);
    const res = await fetch(`${relink.appURL}/${l.key}`, { redirect: "manual", headers: { "User-Agent": "relink-demo-check" } });
    assert.equal(res.status, 302, `${l.shortLink}: ${res.status}`);
    assert.ok(res.headers.get("location").startsWith(l.url.split("?")[0]), `${l.shortLink} → ${res.headers.get("location")}, want ${l.url}`);
  }
  const sale = links.find((l) => /^[a-z-]+-sale$/.test(l.key) && l.url.includes("/collections/"));
  assert.ok(sale, "a /<collection>-sale link to its collection");
  const partnerLinks = links.filter((l) => l.partnerId);
  assert.ok(partnerLinks.length > 0 && partnerLinks.every((l) => partners.some((p) => l.key.startsWith(p.name.toLowerCase().normalize("NFD").replace(/[^a-z ]/g, "").replace(/ /g, "-")))),
    `partner links keyed by the partner's name: ${partnerLinks.map((l) => l.key)}`);
  for (const width of WIDTHS) {
    const { ctx, page } = await signedIn(width, 900);
    await page.goto(`${relink.appURL}/console/links`);
    await shot(page, `i33-7-links-${width}`);
    if (width === 1280) {
      const p = partners.find((x) => partnerLinks.some((l) => l.partnerId === x.id));
      await page.goto(`${relink.appURL}/console/partners/${p.id}`);
      await page.locator('[data-testid="partner-links"]').scrollIntoViewIfNeeded();
      await shot(page, "i33-7-partner-links-1280");
    }
    await ctx.close();
  }
});
