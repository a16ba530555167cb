// The console's CSV import in headless Chromium against the real binary:
// upload, the column-mapping step, the progress bar, the per-row report,
// and the imported links in the links list.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launchBrowser, runImport, shot, signIn, startRelink } from "./relink.mjs";

describe("console import", () => {
  let relink, browser;
  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  test("upload a CSV, map its columns, watch the progress and read the report", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-import"]');
    await page.waitForSelector('[data-testid="upload-form"]');

    let csv = "Short,Target,Created,Labels,Notes\n";
    for (let i = 0; i < 40; i++) {
      csv += `https://go.acme.test/imp${i},https://acme.test/page/${i},2024-02-0${1 + (i % 9)},"spring,launch",Row ${i}\n`;
    }
    csv += "https://go.acme.test/broken,,2024-02-01,,\n";
    await page.setInputFiles('[data-testid="import-file"]', { name: "links.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await Promise.all([page.waitForSelector('[data-testid="mapping-form"]'), page.click('[data-testid="import-upload"]')]);
    // Guessed from the header: link from "Short", createdAt, tags, description.
    assert.equal(await page.inputValue("#map-link"), "Short");
    assert.equal(await page.inputValue("#map-createdAt"), "Created");
    assert.equal(await page.inputValue("#map-tags"), "Labels");
    assert.equal(await page.inputValue("#map-description"), "Notes");
    // "Target" is not a name the guess knows: the user picks it.
    await page.selectOption("#map-url", "Target");
    await shot(page, "import-01-mapping");

    await runImport(page, '[data-testid="import-run"]');
    const counts = (await page.textContent('[data-testid="import-counts"]')).replace(/\s+/g, " ").trim();
    assert.equal(counts, "41 of 41 rows · 40 created · 0 skipped · 1 failed");
    assert.equal(await page.getAttribute('[data-testid="import-bar"]', "style"), "width: 100%;");
    const rows = await page.$$eval('[data-testid="import-row"]', (rs) => rs.map((r) => Array.from(r.cells).map((c) => c.textContent.trim()).join(" | ")));
    assert.equal(rows.length, 1);
    assert.equal(rows[0], "41 | go.acme.test/broken | Failed | Missing required field: url");
    await shot(page, "import-02-report");

    // The links are there, with their tags.
    const res = await page.request.get(`${relink.apiURL}/links?domain=go.acme.test&pageSize=100`, {
      headers: { Authorization: `Bearer ${relink.apiKey}` },
    });
    assert.equal(res.status(), 200);
    const links = (await res.json()).filter((x) => x.key !== "_root"); // the new domain's root link
    assert.equal(links.length, 40);
    const l = links.find((x) => x.key === "imp3");
    assert.equal(l.url, "https://acme.test/page/3");
    assert.equal(l.description, "Row 3");
    assert.deepEqual(l.tags.map((t) => t.name).sort(), ["launch", "spring"]);
    assert.equal(l.createdAt.slice(0, 10), "2024-02-04");
    await ctx.close();
  });

  // Issue 33 item 6: only http(s) destinations are imported; an ftp:// or
  // mailto: row is a failed row with the reason. At both widths the report
  // fits the screen. Screenshots: artifacts/i33-6-import-refused-<width>.png.
  for (const width of [1280, 390]) {
    test(`${width}px, issue 33 item 6: the CSV import refuses destinations other than http(s)`, async () => {
      const ctx = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await ctx.newPage();
      await signIn(page, relink.appURL);
      await page.goto(`${relink.appURL}/console/import`);
      const csv = `link,url\nhttps://go.acme.test/ftp-${width},ftp://files.acme.test/price-list.pdf\n` +
        `https://go.acme.test/mail-${width},mailto:sales@acme.test\nhttps://go.acme.test/web-${width},https://acme.test/spring\n`;
      await page.setInputFiles('[data-testid="import-file"]', { name: "links.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
      await Promise.all([page.waitForSelector('[data-testid="mapping-form"]'), page.click('[data-testid="import-upload"]')]);
      await runImport(page, '[data-testid="import-run"]');
      const counts = (await page.textContent('[data-testid="import-counts"]')).replace(/\s+/g, " ").trim();
      assert.equal(counts, "3 of 3 rows · 1 created · 0 skipped · 2 failed");
      const rows = await page.$$eval('[data-testid="import-row"]', (rs) => rs.map((r) => r.textContent.replace(/\s+/g, " ").trim()));
      assert.equal(rows.length, 2);
      for (const r of rows) assert.match(r, /only http and https links are imported/);
      const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(over <= 1, `the import page scrolls sideways by ${over}px`);
      await shot(page, `i33-6-import-refused-${width}`);
      await ctx.close();
    });
  }
});
