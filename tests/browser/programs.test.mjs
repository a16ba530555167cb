// Partner-program pages in headless Chromium against the real binary: a
// partner applies on the public application page and the owner approves it
// (Applications), a payout is confirmed, exported and marked paid
// (Payouts), and a partner submits proof from the embed's Bounties tab that
// the owner approves (Bounties).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launchBrowser, shot, signIn, startRelink } from "./relink.mjs";

describe("partner program operations", () => {
  let relink, browser, owner, partnerId;
  const api = async (method, path, body) => {
    const res = await fetch(`${relink.apiURL}${path}`, {
      method,
      headers: { authorization: `Bearer ${relink.apiKey}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const cli = async (...args) => {
    const r = await relink.cli(args);
    assert.equal(r.code, 0, `relink ${args.join(" ")}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  before(async () => {
    relink = await startRelink({ workspace: { plan: "advanced" } });
    browser = await launchBrowser();
    const shortDomain = new URL(relink.appURL).host;
    await cli("program", "set", "--workspace", "acme", "--domain", shortDomain, "--url", "https://shop.example/", "--applications", "open");
    const ctx = await browser.newContext();
    owner = await ctx.newPage();
    await signIn(owner, relink.appURL);
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  test("a partner applies on the public page; the owner approves the application", async () => {
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${relink.appURL}/apply/acme`);
    await visitor.fill('input[name="name"]', "Ann Lee");
    await visitor.fill('input[name="email"]', "ann@example.com");
    await visitor.selectOption('select[name="country"]', "DE");
    await visitor.fill('input[name="promotion"]', "My cooking newsletter");
    await Promise.all([visitor.waitForNavigation(), visitor.click('[data-testid="apply-submit"]')]);
    assert.equal(await visitor.locator('[data-testid="apply-done"]').count(), 1, await visitor.content());
    await shot(visitor, "programs-01-applied");

    await owner.goto(`${relink.appURL}/console/applications`);
    const row = owner.locator('[data-testid="data-row"]', { hasText: "ann@example.com" });
    assert.match(await row.textContent(), /My cooking newsletter/);
    partnerId = await row.getAttribute("data-id");
    await shot(owner, "programs-02-applications");
    await row.locator('[data-testid="row-action-select"]').selectOption("approve");
    await Promise.all([owner.waitForNavigation(), row.locator('[data-testid="row-action-submit"]').click()]);
    assert.equal(await owner.locator('[data-testid="data-row"]').count(), 0);
    const [p] = await api("GET", "/partners?email=ann@example.com");
    assert.equal(p.status, "approved");
  });

  test("a payout is confirmed, exported as CSV and marked paid", async () => {
    await api("POST", "/commissions", { type: "custom", partnerId, amount: 4200, description: "Launch bonus" });
    await owner.goto(`${relink.appURL}/console/payouts`);
    const row = owner.locator('[data-testid="data-row"]', { hasText: "Ann Lee" });
    assert.match(await row.textContent(), /\$42\.00.*pending/s);
    await shot(owner, "programs-03-payouts-pending");
    await Promise.all([owner.waitForNavigation(), owner.click('[data-testid="payouts-confirm-submit"]')]);
    assert.match(await owner.locator('[data-testid="data-row"]', { hasText: "Ann Lee" }).textContent(), /processing/);
    const href = await owner.getAttribute('[data-testid="download-link"]', "href");
    const csv = await (await owner.request.get(`${relink.appURL}${href}`)).text();
    assert.match(csv, /^payout_id,batch,partner_id,partner_name,partner_email/);
    assert.match(csv, /Ann Lee,ann@example\.com,,,42\.00,USD,/);
    const paid = owner.locator('[data-testid="data-row"]', { hasText: "Ann Lee" });
    await paid.locator('[data-testid="row-action-select"]').selectOption("completed");
    await Promise.all([owner.waitForNavigation(), paid.locator('[data-testid="row-action-submit"]').click()]);
    assert.match(await owner.locator('[data-testid="data-row"]', { hasText: "Ann Lee" }).textContent(), /completed/);
    await shot(owner, "programs-04-payouts-paid");
    const [po] = await api("GET", "/payouts?status=completed");
    assert.ok(po.paidAt);
  });

  test("the partner submits proof from the embed's Bounties tab; the owner approves it", async () => {
    await cli("program", "bounty", "add", "--workspace", "acme", "--name", "Post about us", "--type", "submission", "--reward", "1500");
    const { publicToken } = await api("POST", "/tokens/embed/referrals", { partnerId });
    const partner = await (await browser.newContext()).newPage();
    await partner.goto(`${relink.appURL}/embed/referrals?token=${publicToken}`);
    await partner.click('[data-tab="bounties"]');
    const card = partner.locator('[data-testid="bounty"]', { hasText: "Post about us" });
    await card.locator('[data-testid="bounty-url"]').fill("ftp://files.example/post");
    await card.locator('[data-testid="bounty-submit"]').click();
    await partner.waitForSelector('[data-testid="bounty-error"]');
    await card.locator('[data-testid="bounty-url"]').fill("https://blog.example/acme-review");
    await card.locator('[data-testid="bounty-description"]').fill("My review post");
    await card.locator('[data-testid="bounty-submit"]').click();
    await partner.waitForSelector('[data-testid="bounty-status"]');
    assert.equal((await partner.textContent('[data-testid="bounty-status"]')).trim(), "Submitted: in review");
    await shot(partner, "programs-05-bounty-submitted");

    await owner.goto(`${relink.appURL}/console/bounties`);
    const row = owner.locator('[data-testid="data-row"]', { hasText: "blog.example/acme-review" });
    await shot(owner, "programs-06-bounty-review");
    await row.locator('[data-testid="row-action-select"]').selectOption("approve");
    await Promise.all([owner.waitForNavigation(), row.locator('[data-testid="row-action-submit"]').click()]);
    const custom = await api("GET", `/commissions?partnerId=${partnerId}&type=custom`);
    assert.ok(custom.some((c) => c.earnings === 1500), JSON.stringify(custom));
    await partner.reload();
    await partner.click('[data-tab="bounties"]');
    await partner.waitForSelector('[data-testid="bounty-status"]');
    assert.equal((await partner.textContent('[data-testid="bounty-status"]')).trim(), "Approved: reward earned");
  });
});
