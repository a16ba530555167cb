// The console's Discounts page in headless Chromium (issue 13 item 6): a
// group discount is set, a partner's code is generated and deleted, and
// /track/click answers the discount.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launchBrowser, shot, signIn, startRelink, submit } from "./relink.mjs";

describe("console discounts", () => {
  let relink, browser;
  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  const api = async (method, path, body) => {
    const r = await fetch(`${relink.apiURL}${path}`, {
      method,
      headers: { Authorization: `Bearer ${relink.apiKey}`, "Content-Type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await r.json();
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };

  test("set a group discount, generate a code, delete it", async () => {
    const partner = await api("POST", "/partners", { email: "maria@partners.test", name: "Maria Lopez" });
    const link = await api("POST", "/links", { url: "https://shop.test/", key: "maria", programId: partner.programId, partnerId: partner.id });

    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-discounts"]');
    await page.waitForSelector('[data-testid="discounts-page"]');
    assert.match(await page.textContent('[data-testid="discounts-page"]'), /Default: no discount|: no discount/);

    const form = page.locator('[data-testid="discount-form"]');
    await form.locator('select[name="type"]').selectOption("percentage");
    await form.locator('input[name="amount"]').fill("15");
    await form.locator('input[name="maxDuration"]').fill("6");
    await submit(page, /\/console\/program\/discounts$/, () => form.locator('button[type="submit"]').click());
    assert.match(await page.textContent('[data-testid="discounts-page"]'), /New users get 15% off for 6 months/);

    const codeForm = page.locator('[data-testid="discount-code-form"]');
    await codeForm.locator('select[name="linkId"]').selectOption(link.id);
    await submit(page, /\/console\/program\/discounts$/, () => codeForm.locator('button[type="submit"]').click());
    const row = page.locator('[data-testid="data-row"]', { hasText: "MARIA15OFF" });
    assert.equal(await row.count(), 1, "the generated code is listed");
    await shot(page, "discounts-code-created");

    const codes = await api("GET", "/discount-codes");
    assert.deepEqual(codes.map((c) => [c.code, c.linkId, c.partnerId]), [["MARIA15OFF", link.id, partner.id]]);
    const click = await fetch(`${relink.apiURL}/track/click`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ domain: link.domain, key: "maria" }),
    }).then((r) => r.json());
    assert.equal(click.discount?.amount, 15);
    assert.equal(click.discount?.maxDuration, 6);

    // A taken code is refused on the form, with upstream's message.
    await codeForm.locator('select[name="linkId"]').selectOption(link.id);
    await codeForm.locator('input[name="code"]').fill("bad code!");
    await codeForm.locator('button[type="submit"]').click();
    await page.waitForSelector('[data-testid="field-error"]');
    assert.match(await page.textContent('[data-testid="discount-code-form"]'), /letters, numbers, dashes, and underscores/);

    await page.goto(`${relink.appURL}/console/program/discounts`);
    await submit(page, /\/console\/program\/discounts$/,
      () => page.locator('[data-testid="data-row"]', { hasText: "MARIA15OFF" }).locator('[data-testid="row-action-submit"]').click());
    assert.equal(await page.locator('[data-testid="data-row"]').count(), 0, "the code is gone");
    assert.deepEqual(await api("GET", "/discount-codes"), []);
    await shot(page, "discounts-code-deleted");
    await ctx.close();
  });
});
