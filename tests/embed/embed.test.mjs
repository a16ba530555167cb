// The embedded referral dashboard in headless Chromium: a host page on
// another origin loads static/js/embed.js from Relink and embeds the
// dashboard with a real token over real tracked data (clicks through the real
// redirect, leads and sales through /track). Screenshots: artifacts/*.png.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { promisify } from "node:util";

import { eventually, launchBrowser, shot, startHost, startRelink } from "./relink.mjs";

const run = promisify(execFile);
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

let relink, host, browser;
const tokens = {};
const links = {};

function hostPage(q) {
  const app = relink.appURL;
  const opts = { token: q.get("token"), origin: app, root: "__ROOT__" };
  if (q.get("theme")) opts.theme = q.get("theme");
  if (q.get("bg")) opts.themeOptions = { backgroundColor: q.get("bg") };
  const json = JSON.stringify(opts).replace('"__ROOT__"', 'document.getElementById("mount")');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Client app</title>
<style>body{margin:0;font-family:sans-serif;background:#fdf6e3}header{padding:16px 24px;background:#268bd2;color:#fff}</style></head>
<body><header>Client app — referral program</header><div id="mount"></div>
<script src="${app}/static/js/embed.js"></script>
<script>
window.__errors = [];
var o = ${json};
o.onError = function (e) { window.__errors.push({ name: e.name, code: e.code, message: e.message }); };
Relink.init(o);
</script></body></html>`;
}

/** Clicks a short link through the real redirect; returns the click id. */
async function click(key) {
  const res = await fetch(`${relink.appURL}/${key}`, { redirect: "manual", headers: { "User-Agent": UA } });
  assert.equal(res.status, 302, `redirect of ${key}`);
  const id = new URL(res.headers.get("location")).searchParams.get("dub_id");
  assert.ok(id, "dub_id on the destination");
  return id;
}

before(async () => {
  relink = await startRelink();
  const port = new URL(relink.appURL).port;
  await relink.cli(["program", "set", "--workspace", "acme", "--name", "Acme Partners", "--domain", `localhost:${port}`, "--url", "https://shop.example/"]);
  await relink.cli(["program", "group", "set", "--workspace", "acme", "--additional-link", "shop.example", "--max-partner-links", "5", "--no-default-links"]);
  await relink.cli(["program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "20"]);
  await relink.cli(["program", "reward", "set", "--workspace", "acme", "--event", "lead", "--type", "flat", "--amount", "500"]);
  for (const p of ["alice", "bob"]) {
    await relink.api("POST", "/partners", { email: `${p}@partners.example`, name: p, tenantId: p }, 201);
    links[p] = await relink.api("POST", "/partners/links", { tenantId: p, key: p }, 201);
  }
  // Alice: 3 clicks, 2 leads, 1 sale of $100 → 20% + 2 × $5 = $30.00. Bob: 2 clicks.
  const ids = [await click("alice"), await click("alice"), await click("alice"), await click("bob"), await click("bob")];
  await eventually(async () => (await relink.api("GET", `/links/${links.alice.id}`)).clicks === 3 && (await relink.api("GET", `/links/${links.bob.id}`)).clicks === 2, { what: "clicks written" });
  await relink.api("POST", "/track/lead", { clickId: ids[0], eventName: "Sign up", customerExternalId: "cus_jane", customerEmail: "jane@gmail.com" });
  await relink.api("POST", "/track/lead", { clickId: ids[1], eventName: "Sign up", customerExternalId: "cus_omar", customerEmail: "omar@example.org" });
  await relink.api("POST", "/track/sale", { customerExternalId: "cus_jane", amount: 10000, invoiceId: "inv_1" });
  for (const p of ["alice", "bob"]) {
    tokens[p] = (await relink.api("POST", "/tokens/embed/referrals", { tenantId: p }, 201)).publicToken;
  }
  // Resources, a bounty Alice has reached ($20 of sale commissions ≥ $10),
  // and a partner-referral reward Carol (enrolled after it) gets.
  const logo = `${relink.appURL}/static/favicon.svg`;
  await relink.cli(["program", "resources", "set", "--workspace", "acme", "--json", JSON.stringify({
    logos: [{ name: "Acme mark", size: 1536, url: logo }],
    colors: [{ name: "Acme blue", color: "#2563eb" }, { name: "Ink", color: "#0f172a" }],
    files: [{ name: "Brand guide", size: 2097152, url: "https://cdn.example/brand-guide.pdf" }],
    links: [{ name: "Press", url: "mailto:press@acme.example" }, { name: "Pricing", url: "https://shop.example/pricing" }],
  })]);
  await relink.cli(["program", "bounty", "add", "--workspace", "acme", "--name", "Spring push", "--reward", "5000", "--goal", "1000",
    "--description", "Earn $10 in sale commissions this spring.", "--starts", new Date(Date.now() - 86400000).toISOString().replace(/\.\d+Z$/, "Z")]);
  await relink.cli(["program", "reward", "set", "--workspace", "acme", "--event", "referral", "--type", "flat", "--amount", "1000"]);
  await relink.api("POST", "/partners", { email: "carol@partners.example", name: "Carol", tenantId: "carol" }, 201);
  tokens.carol = (await relink.api("POST", "/tokens/embed/referrals", { tenantId: "carol" }, 201)).publicToken;
  host = await startHost(hostPage);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await host?.stop();
  await relink?.stop();
});

async function open(query, { perms = false, colorScheme = "light" } = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 }, colorScheme });
  if (perms) {
    for (const origin of [host.origin, relink.appURL]) await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  }
  const page = await ctx.newPage();
  const sizes = [];
  page.on("requestfinished", async (req) => {
    if (!req.url().startsWith(relink.appURL)) return;
    const s = await req.sizes().catch(() => null);
    if (s) sizes.push({ url: req.url(), type: req.resourceType(), bytes: s.responseBodySize + s.responseHeadersSize });
  });
  await page.goto(`${host.origin}/host?${new URLSearchParams(query)}`);
  const frame = page.frameLocator("#relink-embed-container iframe");
  return { ctx, page, frame, sizes };
}

const statValue = (frame, name) => frame.locator(`[data-testid="stat-${name}"] [data-testid="stat-value"]`).textContent();

test("the stats match the tracked events, and each token sees only its own", async () => {
  const { ctx, page, frame, sizes } = await open({ token: tokens.alice });
  await frame.locator('[data-testid="overview"]').waitFor();
  assert.deepEqual(
    [await statValue(frame, "clicks"), await statValue(frame, "leads"), await statValue(frame, "sales"), await statValue(frame, "earnings")],
    ["3", "2", "1", "$30.00"],
  );
  assert.equal(await frame.locator('[data-testid="referral-link"]').inputValue(), `${new URL(relink.appURL).host}/alice`);
  // Earnings tab: one sale and two lead commissions, customers masked.
  await frame.locator('[data-tab="earnings"]').click();
  await eventually(async () => (await frame.locator('[data-testid="earnings-row"]').count()) === 3, { what: "earnings rows" });
  const customers = await frame.locator('[data-testid="earnings-customer"]').allTextContents();
  assert.ok(customers.every((c) => c.includes("*") && !c.includes("jane") && !c.includes("omar")), `masked: ${customers}`);
  await shot(page, "embed-light");

  // Weight of the first paint: the dashboard document, its CSS and JS.
  const firstPaint = sizes.filter((s) => s.type === "document" || s.type === "stylesheet" || s.type === "script");
  const total = firstPaint.reduce((n, s) => n + s.bytes, 0);
  console.log(`# first paint: ${total} bytes transferred (${firstPaint.map((s) => `${new URL(s.url).pathname} ${s.bytes}`).join(", ")})`);
  assert.ok(total > 0 && total <= 60 * 1024, `first paint ${total} bytes > 60 KB`);
  await ctx.close();

  const bob = await open({ token: tokens.bob });
  await bob.frame.locator('[data-testid="overview"]').waitFor();
  assert.deepEqual([await statValue(bob.frame, "clicks"), await statValue(bob.frame, "leads"), await statValue(bob.frame, "earnings")], ["2", "0", "$0.00"]);
  await bob.ctx.close();
});

test("the copy button puts the referral link on the clipboard", async () => {
  const { ctx, page, frame } = await open({ token: tokens.alice }, { perms: true });
  const btn = frame.locator('[data-testid="copy-link"]');
  await btn.click();
  await eventually(async () => (await btn.textContent()).includes("Copied link"), { what: "Copied link label" });
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip, `${relink.appURL}/alice`);
  await ctx.close();
});

test("the iframe resizes to the dashboard's height", async () => {
  const { ctx, page, frame } = await open({ token: tokens.alice });
  await frame.locator('[data-testid="overview"]').waitFor();
  const want = await frame.locator("body").evaluate((b) => b.scrollHeight);
  const got = await eventually(async () => {
    const h = await page.locator("#relink-embed-container").evaluate((el) => el.getBoundingClientRect().height);
    return Math.abs(h - want) <= 1 && h;
  }, { what: `container height ${want}` });
  assert.notEqual(got, 1020, "still the default height");
  // Opening a longer tab grows the frame.
  await frame.locator('[data-tab="leaderboard"]').click();
  await frame.locator('[data-testid="leaderboard-row"]').first().waitFor();
  const taller = await frame.locator("body").evaluate((b) => b.scrollHeight);
  await eventually(async () => Math.abs((await page.locator("#relink-embed-container").evaluate((el) => el.getBoundingClientRect().height)) - taller) <= 1, { what: "resize after tab change" });
  await ctx.close();
});

// themeClass is the root's theme class: "dark", "light" or "" (the root
// also carries "framed", which declares both colour schemes so the frame
// blends into any host page).
function themeClass(cls) {
  return (cls || "").split(/\s+/).filter((c) => c && c !== "framed").join(" ");
}

test("dark theme and background colour apply", async () => {
  const { ctx, page, frame } = await open({ token: tokens.alice, theme: "dark", bg: "#0f172a" });
  await frame.locator('[data-testid="overview"]').waitFor();
  assert.equal(themeClass(await frame.locator("html").getAttribute("class")), "dark");
  assert.equal(await frame.locator("#embed-root").evaluate((el) => getComputedStyle(el).backgroundColor), "rgb(15, 23, 42)");
  const card = await frame.locator('[data-testid="stat-clicks"]').evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
  assert.notEqual(card[0], "rgb(255, 255, 255)", "cards are dark");
  await shot(page, "embed-dark");
  await ctx.close();

  // Unknown theme and malformed options fall back to light, transparent.
  const light = await open({ token: tokens.alice, theme: "neon", bg: "url(x)" });
  await light.frame.locator('[data-testid="overview"]').waitFor();
  assert.equal(themeClass(await light.frame.locator("html").getAttribute("class")), "light");
  assert.equal(await light.frame.locator("#embed-root").evaluate((el) => getComputedStyle(el).backgroundColor), "rgba(0, 0, 0, 0)");
  await light.ctx.close();
});

test("an expired token shows the error state and tells the host", async () => {
  const tok = (await relink.api("POST", "/tokens/embed/referrals", { tenantId: "alice" }, 201)).publicToken;
  const hash = createHash("sha256").update(tok).digest("hex");
  // Move the expiry into the past, keeping the stored format.
  await run("sqlite3", [relink.dbPath, `PRAGMA busy_timeout=5000; UPDATE embed_tokens SET expires_at = '2000' || substr(expires_at, 5) WHERE token_hash = '${hash}';`]);
  const { ctx, page, frame } = await open({ token: tok });
  await frame.locator('[data-testid="embed-error"]').waitFor();
  assert.equal(await frame.locator('[data-testid="embed-error-title"]').textContent(), "This dashboard link has expired");
  const errors = await eventually(async () => {
    const e = await page.evaluate(() => window.__errors);
    return e.length > 0 && e;
  }, { what: "onError" });
  assert.deepEqual(errors[0], { name: "EmbedError", code: "unauthorized", message: "Invalid embed public token." });
  await shot(page, "embed-expired");
  await ctx.close();

  // A token that expires while the dashboard is open: the next fragment
  // request swaps the error state over the dashboard and the host hears
  // about it.
  const live = await open({ token: tokens.bob });
  await live.frame.locator('[data-testid="overview"]').waitFor();
  const bobHash = createHash("sha256").update(tokens.bob).digest("hex");
  await run("sqlite3", [relink.dbPath, `PRAGMA busy_timeout=5000; UPDATE embed_tokens SET expires_at = '2000' || substr(expires_at, 5) WHERE token_hash = '${bobHash}';`]);
  // The Links panel loads when first shown: its request carries the expired token.
  await live.frame.locator('[data-tab="links"]').click();
  await live.frame.locator('[data-testid="embed-error"]').waitFor();
  const liveErrors = await eventually(async () => {
    const e = await live.page.evaluate(() => window.__errors);
    return e.length > 0 && e;
  }, { what: "onError after expiry" });
  assert.equal(liveErrors[0].code, "unauthorized");
  await live.ctx.close();
});

test("the system theme follows prefers-color-scheme", async () => {
  const { ctx, page, frame } = await open({ token: tokens.alice, theme: "system" }, { colorScheme: "dark" });
  await frame.locator('[data-testid="overview"]').waitFor();
  assert.equal(themeClass(await frame.locator("html").getAttribute("class")), "");
  const bg = await frame.locator('[data-testid="stat-clicks"]').evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.notEqual(bg, "rgb(255, 255, 255)", "dark cards under a dark OS preference");
  await shot(page, "embed-system-dark");
  await ctx.close();
});

test("a link created in the Links tab is listed and copied", async () => {
  const { ctx, page, frame } = await open({ token: tokens.alice }, { perms: true });
  await frame.locator('[data-tab="links"]').click();
  await frame.locator('[data-testid="link-new"]').click();
  await frame.locator('[data-testid="link-form"] input[name="key"]').fill("alice-pricing");
  await frame.locator('[data-testid="link-form"] input[name="path"]').fill("pricing");
  await frame.locator('[data-testid="link-submit"]').click();
  await eventually(async () => (await frame.locator('[data-testid="link-row"]').count()) === 2, { what: "two links" });
  const shown = await frame.locator('[data-testid="link-display"]').allTextContents();
  assert.ok(shown.includes(`${new URL(relink.appURL).host}/alice-pricing`), `links: ${shown}`);
  await eventually(async () => (await page.evaluate(() => navigator.clipboard.readText())) === `${relink.appURL}/alice-pricing`, { what: "created link on the clipboard" });
  // A taken key is refused with the API's message under the key field.
  await frame.locator('[data-testid="link-new"]').click();
  await frame.locator('[data-testid="link-form"] input[name="key"]').fill("bob");
  await frame.locator('[data-testid="link-submit"]').click();
  await frame.locator('[data-testid="link-error"]').waitFor();
  await shot(page, "embed-links-error");
  const list = await relink.api("GET", "/partners/links?tenantId=alice");
  assert.equal(list.length, 2);
  await ctx.close();
});

/** Waits until the iframe's container has taken the dashboard's height. */
async function settled(page, frame) {
  await eventually(async () => {
    const want = await frame.locator("body").evaluate((b) => b.scrollHeight);
    const h = await page.locator("#relink-embed-container").evaluate((el) => el.getBoundingClientRect().height);
    return Math.abs(h - want) <= 1;
  }, { what: "iframe height settled" });
}

test("bounties, resources and settings tabs, sparklines", async () => {
  const { ctx, page, frame } = await open({ token: tokens.alice }, { perms: true });
  await frame.locator('[data-testid="overview"]').waitFor();
  const tabs = await frame.locator("[data-tab]").evaluateAll((els) => els.map((e) => e.dataset.tab));
  assert.deepEqual(tabs, ["quickstart", "bounties", "earnings", "links", "leaderboard", "faq", "resources", "settings"]);
  assert.equal(await frame.locator('[data-testid="tab-badge-bounties"]').textContent(), "1");
  // Alice has clicks, leads and a sale: three sparklines, no empty hint.
  assert.equal(await frame.locator('[data-testid="sparkline"]').count(), 3);
  assert.equal(await frame.locator('[data-testid="no-activity"]').count(), 0);

  await frame.locator('[data-tab="bounties"]').click();
  await frame.locator('[data-testid="bounty"]').waitFor();
  assert.equal(await frame.locator('[data-testid="bounty-name"]').textContent(), "Spring push");
  assert.equal((await frame.locator('[data-testid="bounty-progress"]').textContent()).trim(), "$20.00 of $10");
  await frame.locator('[data-testid="bounty-done"]').waitFor();
  assert.equal(await frame.locator('[data-testid="bounty"] [role="progressbar"]').getAttribute("aria-valuenow"), "100");
  await shot(page, "embed-bounties");

  // Quickstart's "View resources" opens the Resources tab.
  await frame.locator('[data-tab="quickstart"]').click();
  await frame.locator('[data-testid="quickstart-resources"]').click();
  await frame.locator('[data-testid="resources"]').waitFor();
  assert.equal(await frame.locator('[data-tab="resources"]').getAttribute("aria-selected"), "true");
  assert.equal(await frame.locator('[data-testid="resource-logo"] [data-testid="resource-meta"]').textContent(), "SVG · 1.5 KB");
  // The logo is loading="lazy" and was still loading when the tab had just
  // appeared (CI 2026-11-29, loaded machine): bring it into view and wait for
  // its load or error event before judging it.
  const logo = frame.locator('[data-testid="resource-logo"] img');
  await logo.scrollIntoViewIfNeeded();
  assert.ok(await logo.evaluate((img) => img.complete ? img.naturalWidth > 0 : new Promise((done) => {
    img.addEventListener("load", () => done(img.naturalWidth > 0), { once: true });
    img.addEventListener("error", () => done(false), { once: true });
  })), "logo loads");
  assert.equal(await frame.locator('[data-testid="resource-file"] [data-testid="resource-meta"]').textContent(), "PDF · 2.0 MB");
  const swatch = frame.locator('[data-testid="resource-color"]').first();
  assert.equal(await swatch.locator("span span").first().evaluate((el) => getComputedStyle(el.parentElement.previousElementSibling).backgroundColor), "rgb(37, 99, 235)");
  await swatch.click();
  await eventually(async () => (await page.evaluate(() => navigator.clipboard.readText())) === "#2563EB", { what: "colour on the clipboard" });
  assert.equal(await frame.locator('[data-testid="resource-link"]').first().locator('[data-icon="mail"] svg').count(), 1, "mailto link has an envelope");
  // A full-page shot of a frame this tall leaves its top unpainted in
  // headless Chromium: shoot the viewport around the tab instead.
  await settled(page, frame);
  await frame.locator('[data-testid="resources"]').scrollIntoViewIfNeeded();
  await shot(page, "embed-resources", { fullPage: false });

  // The earnings card's Settings button opens Settings.
  await frame.locator('[data-testid="earnings-settings"]').click();
  await frame.locator('[data-testid="settings"]').waitFor();
  assert.equal(await frame.locator('[data-testid="payout-method"]').textContent(), "Not set up yet");
  assert.equal(await frame.locator('[data-testid="settings-upcoming"]').textContent(), "$30.00");
  await shot(page, "embed-settings");
  await ctx.close();
});

test("the partner-referral section, and the empty activity state", async () => {
  const { ctx, page, frame } = await open({ token: tokens.carol }, { perms: true });
  await frame.locator('[data-testid="partner-referral"]').waitFor();
  const link = await frame.locator('[data-testid="partner-referral-link"]').inputValue();
  assert.match(link, /^shop\.example\/\?via=carol-[a-z0-9]{4}$/);
  assert.equal((await frame.locator('[data-testid="partner-referral"] [data-testid="reward"]').textContent()).trim(), "Earn $10 for each partner you refer");
  await frame.locator('[data-testid="partner-referral-copy"]').click();
  await eventually(async () => (await page.evaluate(() => navigator.clipboard.readText())) === `https://${link}`, { what: "partner link on the clipboard" });
  // No clicks yet: the hint instead of sparklines; no bounty progress yet.
  await frame.locator('[data-testid="no-activity"]').waitFor();
  assert.equal(await frame.locator('[data-testid="sparkline"]').count(), 0);
  assert.equal(await frame.locator('[data-testid="quickstart-payouts"]').isDisabled(), true);
  await shot(page, "embed-partner-referral");
  await ctx.close();
});

test("the starting guide can be hidden from the ⋯ menu and comes back; the choice is remembered", async () => {
  const { ctx, page, frame } = await open({ token: tokens.alice });
  const toggle = async (f) => {
    await f.locator('[data-testid="tabs-menu"] summary').click();
    await f.locator('[data-testid="quickstart-toggle"]').click();
  };
  let qs = frame.locator('[data-tab="quickstart"]');
  await frame.locator('[data-testid="panel-quickstart"] [data-testid="quickstart-payouts"]').waitFor();
  assert.equal(await qs.getAttribute("aria-selected"), "true");
  await toggle(frame);
  await eventually(async () => !(await qs.isVisible()), { what: "quickstart tab hidden" });
  // The selection falls back to the first tab left, and its panel loads.
  assert.equal(await frame.locator('[role="tab"][aria-selected="true"]').getAttribute("data-tab"), "bounties");
  await frame.locator('[data-testid="panel-bounties"] [data-testid="bounty"]').waitFor();
  await shot(page, "embed-quickstart-hidden");
  await frame.locator('[data-testid="tabs-menu"] summary').click();
  assert.equal(await frame.locator('[data-testid="quickstart-toggle"]').textContent(), "Show starting guide");
  await frame.locator('[data-testid="quickstart-toggle"]').click();
  await eventually(async () => (await qs.isVisible()) && (await qs.getAttribute("aria-selected")) === "true", { what: "quickstart shown and selected" });

  // Remembered in localStorage across loads. Headless Chromium denies
  // storage to third-party frames (the page then keeps the choice in
  // memory), so this part opens the dashboard first-party.
  const direct = await ctx.newPage();
  await direct.goto(`${relink.appURL}/embed/referrals?token=${tokens.alice}`);
  const top = direct.locator("html");
  qs = top.locator('[data-tab="quickstart"]');
  await top.locator('[data-testid="tabs"]').waitFor();
  await toggle(top);
  await eventually(async () => !(await qs.isVisible()), { what: "quickstart hidden (first-party)" });
  await direct.reload();
  await top.locator('[data-testid="tabs"]').waitFor();
  assert.equal(await qs.isVisible(), false, "quickstart hidden again after a reload");
  assert.equal(await top.locator('[role="tab"][aria-selected="true"]').getAttribute("data-tab"), "bounties");
  await ctx.close();
});
