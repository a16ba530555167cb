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
