// The console's webhooks page in headless Chromium against the real binary:
// create a webhook, see its secret once, send a test event, and see the
// delivery in the log. A local receiver checks every delivery's
// Dub-Signature the way Dub's documentation tells receivers to.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";

import { eventually, launchBrowser, shot, signIn, startRelink } from "./relink.mjs";

describe("webhooks console", () => {
  let relink, browser, receiver, receiverURL;
  const got = []; // { body, signature }
  before(async () => {
    receiver = createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        got.push({ body: Buffer.concat(chunks).toString("utf8"), signature: req.headers["dub-signature"] });
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"received":true}');
      });
    });
    await new Promise((ok) => receiver.listen(0, "127.0.0.1", ok));
    receiverURL = `http://127.0.0.1:${receiver.address().port}/relink`;
    // The receiver is on loopback: allow non-public targets for this run.
    relink = await startRelink({ env: { RELINK_WEBHOOK_TARGETS: "any" } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
    receiver?.close();
  });

  test("create a webhook, send a test event, see the signed delivery in the log", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-webhooks"]');
    await page.waitForSelector('[data-testid="webhooks-page"]');
    await page.fill('[data-testid="webhook-form"] input[name="name"]', "Local receiver");
    await page.fill('[data-testid="webhook-form"] input[name="url"]', receiverURL);
    await page.check('[data-testid="webhook-form"] [data-testid="trigger-link.created"]');
    await page.click('[data-testid="webhook-submit"]');
    await page.waitForSelector('[data-testid="webhook-new-secret"]');
    const secret = (await page.textContent('[data-testid="webhook-secret"]')).trim();
    assert.match(secret, /^whsec_[0-9a-f]{32}$/);
    await shot(page, "20-webhook-created");

    // The secret is shown once: the page opened again shows it masked.
    await page.click('[data-testid="nav-webhooks"]');
    await page.click('[data-testid="webhook-link"]');
    await page.waitForSelector('[data-testid="webhook-page"]');
    assert.equal(await page.$('[data-testid="webhook-new-secret"]'), null);
    assert.match(await page.textContent('[data-testid="webhook-secret-hint"]'), /^whsec_.{4}•+/);

    await page.selectOption('[data-testid="webhook-test-event"]', "link.created");
    await page.click('[data-testid="webhook-send-test"]');
    await page.waitForSelector('[data-testid="alert-success"]');
    // The log polls every 3 s; the delivery appears with the receiver's 200.
    await page.waitForSelector('[data-testid="webhook-log-row"] [data-testid="log-status"] >> text=200', { timeout: 20000 });
    assert.equal((await page.textContent('[data-testid="log-event"]')).trim(), "link.created");
    await page.click('[data-testid="webhook-log-row"] summary');
    assert.match(await page.textContent('[data-testid="log-response"]'), /"received":true/);
    await shot(page, "21-webhook-test-delivered");

    await eventually(async () => got.length >= 1, { what: "the receiver got the test event" });
    const d = got[0];
    const want = createHmac("sha256", secret).update(d.body).digest("hex");
    assert.equal(d.signature, want, "Dub-Signature is hex HMAC-SHA256 of the raw body keyed by the whole secret");
    const env = JSON.parse(d.body);
    assert.deepEqual(Object.keys(env), ["id", "event", "createdAt", "data"]);
    assert.equal(env.event, "link.created");
    assert.match(env.id, /^evt_[0-9A-Za-z]{25}$/);
    await ctx.close();
  });
});
