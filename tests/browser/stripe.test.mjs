// The console's Stripe settings page (issue 32 item 1) in headless Chromium
// against the real binary: the endpoint URL and the events to add in
// Stripe, a signing secret connected and replaced on the page (the same
// rows `relink stripe status` reads), a delivery signed with it accepted
// and listed, the replaced secret refused, the free-trial settings, a
// disconnect; below the Business
// plan the page says so and offers no form.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { launchBrowser, shot, signIn, startRelink, submit } from "./relink.mjs";

// sign is Stripe's Stripe-Signature for payload at time t with secret.
function sign(secret, payload, t = Math.floor(Date.now() / 1000)) {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${payload}`).digest("hex")}`;
}

describe("stripe console", () => {
  let relink, browser;
  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  const status = async () => {
    const r = await relink.cli(["stripe", "status", "--workspace", "acme"]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  test("connect, receive, replace and disconnect on the settings page", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-stripe"]');
    await page.waitForSelector('[data-testid="stripe-page"]');
    const cli = await status();
    const url = (await page.textContent('[data-testid="stripe-endpoint-url"]')).trim();
    assert.match(url, new RegExp(`^${relink.apiURL}/stripe/webhook/ws_[0-9a-z]+$`));
    assert.equal(url, cli.endpointUrl, "the page and `relink stripe status` name the same endpoint");
    const events = (await page.locator('[data-testid="stripe-event"]').allTextContents()).map((s) => s.trim());
    assert.deepEqual(events, cli.events);
    assert.ok(events.includes("checkout.session.completed") && events.includes("charge.refunded"));
    for (const m of ["live", "test"]) {
      assert.equal((await page.textContent(`[data-testid="stripe-mode-${m}"] [data-testid="stripe-status"]`)).trim(), "Not connected");
    }
    assert.ok(await page.$('[data-testid="stripe-no-events"]'));
    await shot(page, "60-stripe-empty");

    // Not a whsec_ secret: refused on its field, nothing stored.
    const live = '[data-testid="stripe-mode-live"]';
    await page.fill(`${live} [data-testid="stripe-secret-input"]`, "sk_live_oops");
    await page.click(`${live} [data-testid="stripe-connect"]`);
    await page.waitForSelector(`${live} [data-testid="field-error"]`);
    assert.match(await page.textContent(`${live} [data-testid="field-error"]`), /whsec_/);
    assert.deepEqual((await status()).endpoints, []);

    // connect submits a secret on the live form of a freshly opened page.
    const connect = async (secret) => {
      await page.goto(`${relink.appURL}/console/settings/stripe`);
      await page.fill(`${live} [data-testid="stripe-secret-input"]`, secret);
      await Promise.all([page.waitForURL(/saved=live/), page.click(`${live} [data-testid="stripe-connect"]`)]);
      await page.waitForSelector('[data-testid="alert-success"]');
    };
    const first = "whsec_" + "a1".repeat(16);
    await connect(first);
    assert.equal((await page.textContent(`${live} [data-testid="stripe-status"]`)).trim(), "Connected");
    const masked = (await page.textContent(`${live} [data-testid="stripe-secret"]`)).trim();
    assert.ok(!masked.includes(first), "the secret is shown masked");
    const eps = (await status()).endpoints;
    assert.deepEqual(eps.map((e) => [e.mode, e.secret]), [["live", masked]], "the CLI reads what the page stored");
    assert.equal((await page.textContent('[data-testid="stripe-mode-test"] [data-testid="stripe-status"]')).trim(), "Not connected");

    // A delivery signed with the secret is accepted and listed.
    const deliver = async (secret, id) => {
      const payload = JSON.stringify({ id, object: "event", type: "customer.created", livemode: true, api_version: "2025-03-31.basil", created: Math.floor(Date.now() / 1000),
        data: { object: { id: "cus_" + id, object: "customer", email: "buyer@example.com", metadata: {} } } });
      return fetch(url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": sign(secret, payload) }, body: payload });
    };
    const ok = await deliver(first, "evt_console_1");
    assert.equal(ok.status, 200, await ok.text());
    await page.reload();
    await page.waitForSelector('[data-testid="stripe-recent-row"]');
    assert.equal((await page.textContent('[data-testid="stripe-recent-type"]')).trim(), "customer.created");
    assert.match(await page.textContent(`${live} [data-testid="stripe-last-event"]`), /Last event/);
    await shot(page, "61-stripe-connected");

    // Replaced: the old secret no longer verifies, the new one does.
    const second = "whsec_" + "b2".repeat(16);
    await connect(second);
    assert.notEqual((await page.textContent(`${live} [data-testid="stripe-secret"]`)).trim(), masked);
    assert.equal((await deliver(first, "evt_console_2")).status, 400);
    assert.equal((await deliver(second, "evt_console_3")).status, 200);

    // Free trials (off by default, as Dub): turned on with one lead per
    // seat on the page, as `relink stripe status` reads them.
    assert.deepEqual((await status()).freeTrials, { enabled: false, trackQuantity: false });
    await page.goto(`${relink.appURL}/console/settings/stripe`);
    assert.equal(await page.isChecked('[data-testid="stripe-free-trials"]'), false);
    await page.check('[data-testid="stripe-free-trials"]');
    await page.check('[data-testid="stripe-track-quantity"]');
    await Promise.all([page.waitForURL(/saved=trials/), page.click('[data-testid="stripe-trials-save"]')]);
    assert.ok(await page.isChecked('[data-testid="stripe-free-trials"]'));
    assert.deepEqual((await status()).freeTrials, { enabled: true, trackQuantity: true });
    await page.uncheck('[data-testid="stripe-track-quantity"]');
    await submit(page, /saved=trials/, () => page.click('[data-testid="stripe-trials-save"]'));
    assert.deepEqual((await status()).freeTrials, { enabled: true, trackQuantity: false });

    // Disconnected (after the confirmation): deliveries are refused.
    page.once("dialog", (d) => d.accept());
    await Promise.all([page.waitForURL(/saved=removed/), page.click(`${live} [data-testid="stripe-disconnect"]`)]);
    await page.waitForSelector('[data-testid="alert-success"]');
    assert.equal((await page.textContent(`${live} [data-testid="stripe-status"]`)).trim(), "Not connected");
    assert.deepEqual((await status()).endpoints, []);
    assert.equal((await deliver(second, "evt_console_4")).status, 400);
    await ctx.close();
  });

  test("below the Business plan the page says so and offers no form", async () => {
    const made = await relink.cli(["workspace", "create", "--name", "Small", "--slug", "small", "--plan", "pro",
      "--owner-email", "small@acme.test", "--owner-password", "correct horse battery"]);
    assert.equal(made.code, 0, made.stderr);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL, "small@acme.test", "correct horse battery");
    await page.goto(`${relink.appURL}/console/settings/stripe`);
    await page.waitForSelector('[data-testid="stripe-page"]');
    assert.match(await page.textContent('[data-testid="alert-error"]'), /Business plan/);
    assert.equal(await page.$('[data-testid="stripe-connect-form"]'), null);
    assert.equal(await page.$('[data-testid="stripe-trials-save"]'), null);
    // A crafted post is refused with the API's 403.
    const res = await page.evaluate(async () => {
      const csrf = document.querySelector('input[name="_csrf"]')?.value ?? "";
      const r = await fetch("/console/settings/stripe", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, mode: "live", secret: "whsec_" + "c3".repeat(16) }) });
      return r.status;
    });
    assert.equal(res, 403);
    const r = await relink.cli(["stripe", "status", "--workspace", "small"]);
    assert.deepEqual(JSON.parse(r.stdout).endpoints, []);
    await ctx.close();
  });
});
