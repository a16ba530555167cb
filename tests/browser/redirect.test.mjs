// The short-link pages a visitor sees, in headless Chromium against the real
// binary: the app-store interstitial (spec/links.md §10.2 #12).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launchBrowser, shot, startRelink } from "./relink.mjs";

const IPHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";

describe("short-link pages", () => {
  let relink, browser;
  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  test("app-store interstitial: the button copies the short link and goes on to the App Store", async () => {
    const res = await fetch(`${relink.apiURL}/links`, {
      method: "POST",
      headers: { Authorization: `Bearer ${relink.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://acme.example/web", key: "getapp", ios: "https://apps.apple.com/app/acme/id123",
        title: "Acme, shop on the go", description: "Get the Acme app for a faster checkout." }),
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    const { shortLink } = JSON.parse(body);

    const ctx = await browser.newContext({ userAgent: IPHONE_UA, viewport: { width: 390, height: 760 } });
    await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: relink.appURL });
    const copied = [];
    await ctx.exposeFunction("recordCopy", (t) => copied.push(t));
    await ctx.addInitScript(() => {
      const c = navigator.clipboard;
      if (!c) return;
      const write = c.writeText.bind(c);
      c.writeText = (t) => { window.recordCopy(t); return write(t); };
    });
    const requested = [];
    ctx.on("request", (r) => requested.push(r.url()));
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));

    await page.goto(`${shortLink}?utm_source=sms`);
    assert.match(page.url(), /\/deeplink\/[^/]+\/getapp\?utm_source=sms$/, "an iPhone is sent to the interstitial");
    assert.equal((await page.textContent("h1")).trim(), "Acme, shop on the go");
    const button = page.locator('[data-testid="deeplink-continue"]');
    assert.equal((await button.textContent()).trim(), "Get it on the App Store");
    const box = await button.boundingBox();
    assert.ok(box.width > 250, `the button spans the card on a phone (${box.width}px)`);
    await shot(page, "20-deeplink-interstitial");

    // The store is not reachable from here, and a route cannot answer for the
    // redirect's target: wait for the browser to ask for it, whatever the
    // navigation then ends in (a DNS error here).
    const store = page.waitForRequest(/^https:\/\/apps\.apple\.com\//);
    await button.click();
    await store;
    assert.deepEqual(copied, [shortLink], "the short link is copied for the app to read once installed");
    assert.ok(requested.includes(`${shortLink}?utm_source=sms&skip_deeplink_preview=1`), requested.join("\n"));
    assert.ok(requested.includes("https://apps.apple.com/app/acme/id123?utm_source=sms"), requested.join("\n"));
    assert.deepEqual(errors, []);
    await ctx.close();
  });
});
