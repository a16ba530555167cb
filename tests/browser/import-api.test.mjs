// The console's import from another service's API in headless Chromium
// against the real binary: a local server answers as Kutt's documented
// API does (GET /api/v2/links with skip/limit, X-API-KEY, a 429 with
// Retry-After first), the user picks the service, enters the token and
// the server URL, watches the progress bar finish, reads the per-row
// report, and finds the imported links through the API.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";

import { launchBrowser, runImport, shot, signIn, startRelink } from "./relink.mjs";

const TOKEN = "kutt-token-123";

function kutt() {
  const links = [];
  for (let i = 0; i < 25; i++) {
    links.push({ address: `k${i}`, target: `https://acme.test/k/${i}`, description: `K ${i}`,
      created_at: "2020-10-11T12:13:14.000Z", link: `https://k.acme.test/k${i}` });
  }
  links[7].target = "javascript:alert(1)"; // refused by Relink: one failed row
  let limited = false;
  const seen = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    seen.push(`${req.method} ${u.pathname} ${req.headers["x-api-key"] || ""}`);
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.headers["x-api-key"] !== TOKEN) return send(401, { error: "Unauthorized" });
    if (u.pathname !== "/api/v2/links") return send(404, { error: "Not found" });
    if (!limited) {
      limited = true;
      return send(429, { error: "Too many requests" }, { "retry-after": "1" });
    }
    const skip = Number(u.searchParams.get("skip") || 0);
    const limit = Number(u.searchParams.get("limit") || 10);
    send(200, { data: links.slice(skip, skip + limit), total: links.length, skip, limit });
  });
  return { server, seen };
}

describe("console import from a service's API", () => {
  let relink, browser, fake, base;
  before(async () => {
    fake = kutt();
    await new Promise((r) => fake.server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${fake.server.address().port}`;
    // The fake lives on loopback: allow non-public import targets.
    relink = await startRelink({ env: { RELINK_IMPORT_TARGETS: "any" } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
    fake?.server.close();
  });

  test("pick Kutt, enter the token and server, watch the progress and read the report", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-import"]');
    await page.waitForSelector('[data-testid="api-import-form"]');
    await page.selectOption('[data-testid="import-source"]', "kutt");
    await page.fill('[data-testid="import-token"]', TOKEN);
    await page.fill('[data-testid="import-base"]', base);
    await shot(page, "import-api-01-form");

    await runImport(page, '[data-testid="api-import-run"]', 60000);
    const counts = (await page.textContent('[data-testid="import-counts"]')).replace(/\s+/g, " ").trim();
    assert.equal(counts, "25 of 25 rows · 24 created · 0 skipped · 1 failed");
    assert.equal(await page.getAttribute('[data-testid="import-bar"]', "style"), "width: 100%;");
    const rows = await page.$$eval('[data-testid="import-row"]', (rs) => rs.map((r) => r.textContent.replace(/\s+/g, " ").trim()));
    assert.equal(rows.length, 1);
    assert.match(rows[0], /k\.acme\.test\/k7/);
    assert.match(rows[0], /Invalid destination URL/);
    await shot(page, "import-api-02-report");
    // The token reached the service and is on no page the console served.
    assert.ok(fake.seen.some((s) => s.endsWith(TOKEN)), fake.seen.join("\n"));
    assert.ok(!(await page.content()).includes(TOKEN));
    // The service's 429 was waited out, not reported.
    assert.ok(fake.seen.filter((s) => s.startsWith("GET /api/v2/links")).length >= 2, fake.seen.join("\n"));

    const res = await page.request.get(`${relink.apiURL}/links?domain=k.acme.test&pageSize=100`, {
      headers: { Authorization: `Bearer ${relink.apiKey}` },
    });
    assert.equal(res.status(), 200);
    const links = (await res.json()).filter((x) => x.key !== "_root");
    assert.equal(links.length, 24);
    const l = links.find((x) => x.key === "k3");
    assert.equal(l.url, "https://acme.test/k/3");
    assert.equal(l.createdAt.slice(0, 10), "2020-10-11");
    assert.ok(!links.some((x) => x.key === "k7"));
    await ctx.close();
  });
});
