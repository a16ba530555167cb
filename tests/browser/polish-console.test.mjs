// Issue 19, items 2–5 (and 7 for them): the console as a new user meets it,
// at desktop (1280 px) and phone (390 px) width, against the real binary.
// Every check asserts layout facts (boxes that must not overlap, text that
// must not be cut, elements that must fit their card) and saves a
// screenshot named after the item: artifacts/i19-<item>-<what>-<width>.png.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { eventually, launchBrowser, shot, signIn, startRelink, submit } from "./relink.mjs";

const UA = {
  mac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  win: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0",
  iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
};
const WIDTHS = [1280, 390];

// Layout facts, measured in the page.
async function box(page, sel) {
  const b = await page.locator(sel).first().boundingBox();
  assert.ok(b, `${sel} is not visible`);
  return b;
}
const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (a, b) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5;
async function notCut(page, sel) {
  return page.locator(sel).first().evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
}

describe("issue 19: console analytics, overview, links and phone width", () => {
  let relink, browser, api, host;
  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
    host = new URL(relink.appURL).host;
    api = async (method, path, body) => {
      const res = await fetch(`${relink.apiURL}${path}`, {
        method, headers: { Authorization: `Bearer ${relink.apiKey}`, "Content-Type": "application/json" },
        body: body && JSON.stringify(body),
      });
      const json = await res.json();
      assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  // One sign-in (the sign-in form is rate limited per address); every page
  // reuses its session.
  let session;
  async function page(width) {
    if (!session) {
      const ctx = await browser.newContext();
      await signIn(await ctx.newPage(), relink.appURL);
      session = await ctx.storageState();
      await ctx.close();
    }
    const ctx = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 }, storageState: session });
    const p = await ctx.newPage();
    await p.goto(`${relink.appURL}/console`);
    return p;
  }

  test("3: a new workspace's overview shows the getting-started checklist", async () => {
    for (const w of WIDTHS) {
      const p = await page(w);
      await p.goto(`${relink.appURL}/console`);
      const done = await p.$$eval('[data-testid="checklist"] li', (ls) => ls.map((l) => `${l.dataset.testid}=${l.dataset.done}`));
      // `relink workspace create` made the first API key and the program.
      assert.deepEqual(done, ["check-domain=false", "check-link=false", "check-key=true", "check-program=true"]);
      assert.match(await p.textContent('[data-testid="checklist-progress"]'), /2 of 4 done/);
      for (const li of await p.locator('[data-testid="checklist"] li').all()) {
        assert.ok(inside(await li.boundingBox(), await box(p, '[data-testid="checklist"]')), "a step sticks out of the checklist");
      }
      await shot(p, `i19-3-overview-checklist-${w}`);
      await p.context().close();
    }
  });

  test("seed: domain, tags, folder, links, clicks from several places, leads and sales", async () => {
    const p = await page(1280);
    await p.goto(`${relink.appURL}/console/domains`);
    await p.fill('[data-testid="domains-form"] input[name="slug"]', "go.acme.test");
    await submit(p, `${relink.appURL}/console/domains`, () => p.click('[data-testid="domains-submit"]'));
    await p.context().close();

    const red = await api("POST", "/tags", { name: "Launch", color: "red" });
    const blue = await api("POST", "/tags", { name: "Newsletter", color: "blue" });
    const folder = await api("POST", "/folders", { name: "Spring campaign" });
    await api("POST", "/links", { url: "https://example.com/spring?utm_source=newsletter&utm_medium=email&utm_campaign=spring",
      domain: host, key: "spring", tagIds: [red.id, blue.id], folderId: folder.id, trackConversion: true });
    await api("POST", "/links", { url: "https://example.com/summer?utm_source=twitter&utm_medium=social", domain: host, key: "summer-sale",
      tagIds: [blue.id], trackConversion: true });

    const visits = [
      ["spring", UA.mac, "US", "San Francisco", "https://news.ycombinator.com/"],
      ["spring", UA.iphone, "US", "New York", "https://www.google.com/"],
      ["spring", UA.win, "DE", "Berlin", ""],
      ["spring", UA.mac, "GB", "", "https://www.google.com/"],
      ["summer-sale", UA.iphone, "FR", "Paris", "https://t.co/"],
      ["summer-sale", UA.win, "", "", ""], // no location at all
      ["summer-sale", UA.mac, "", "", ""],
    ];
    const clickIDs = [];
    for (const [i, [key, ua, country, city, referer]] of visits.entries()) {
      const headers = { "User-Agent": ua, "X-Forwarded-For": `10.0.0.${10 + i}` };
      if (country) headers["CF-IPCountry"] = country;
      if (city) headers["X-Vercel-IP-City"] = encodeURIComponent(city);
      if (referer) headers.Referer = referer;
      const res = await fetch(`${relink.appURL}/${key}`, { redirect: "manual", headers });
      assert.ok(res.status >= 301 && res.status <= 308, `click ${i}: ${res.status}`);
      const id = new URL(res.headers.get("location")).searchParams.get("dub_id");
      assert.ok(id, "a conversion-tracking link carries the click id");
      clickIDs.push(id);
    }
    // Wait until the pipeline has written the clicks (the lead needs them).
    await eventually(async () => {
      const r = await fetch(`${relink.apiURL}/analytics?interval=24h`, { headers: { Authorization: `Bearer ${relink.apiKey}` } });
      return (await r.json()).clicks === visits.length;
    }, { what: "the clicks in /analytics", timeout: 20000 });
    for (const [i, name] of ["Ada Lovelace", "Grace Hopper", "Alan Turing"].entries()) {
      await api("POST", "/track/lead", { clickId: clickIDs[i], eventName: "Sign up", customerExternalId: `cus_${i}`, customerName: name });
    }
    await api("POST", "/track/sale", { customerExternalId: "cus_0", amount: 4900, paymentProcessor: "stripe", eventName: "Pro plan" });
    await api("POST", "/track/sale", { customerExternalId: "cus_1", amount: 9900, paymentProcessor: "stripe", eventName: "Team plan" });
  });

  test("2: analytics — country names with flags, OS/city/referrer/UTM cards, Unknown rows, own axis for conversions, round ticks, readable labels", async () => {
    for (const w of WIDTHS) {
      const p = await page(w);
      await p.goto(`${relink.appURL}/console/analytics?interval=24h`);
      await eventually(async () => {
        await p.reload();
        return (await p.textContent('[data-testid="total-sales"] [data-testid="total-value"]')).trim() === "2";
      }, { what: "the sales on the dashboard" });
      const rows = async (card) => p.$$eval(`[data-testid="${card}"] [data-testid="bar-row"]`,
        (rs) => rs.map((r) => `${r.querySelector('[data-testid="bar-label"]').textContent.replace(/\s+/g, " ").trim()}=${r.querySelector('[data-testid="bar-value"]').textContent.trim()}`));
      const countryRows = await rows("bars-countries");
      assert.equal(countryRows[0], "🇺🇸 United States=2");
      assert.deepEqual(countryRows.slice(1, 4).sort(), ["🇩🇪 Germany=1", "🇫🇷 France=1", "🇬🇧 United Kingdom=1"]);
      assert.equal(countryRows[4], "Unknown=2", "the two clicks without a location: one Unknown row, last");
      const cities = await rows("bars-cities");
      assert.ok(cities.includes("🇺🇸 San Francisco=1") && cities.includes("🇩🇪 Berlin=1"), `cities ${cities}`);
      assert.equal(cities.at(-1), "Unknown=3", "the GB click without a city and the two without a location: one Unknown row");
      for (const card of ["bars-os", "bars-referers", "bars-devices", "bars-browsers"]) {
        const r = await rows(card);
        const sum = r.reduce((n, s) => n + Number(s.split("=").pop()), 0);
        assert.equal(sum, 7, `${card} counts every click once (${r})`);
      }
      assert.ok((await rows("bars-os")).some((r) => r.startsWith("iOS=")), "OS card");
      assert.ok((await rows("bars-referers")).some((r) => r.startsWith("news.ycombinator.com=")), "referrers card");
      assert.deepEqual(await rows("bars-utm-sources"), ["newsletter=4", "twitter=3"]);
      assert.deepEqual(await rows("bars-utm-campaigns"), ["spring=4", "No UTM campaign=3"]);
      assert.equal(await p.locator('[data-testid="bar-cards"] > section').count(), 10);

      // Leads and sales on their own chart, with their own y axis.
      const yLabels = (chart) => p.$$eval(`[data-testid="${chart}"] [data-testid="chart-y-label"]`, (ls) => ls.map((l) => Number(l.textContent)));
      const clicksY = await yLabels("chart"), convY = await yLabels("chart-conversions");
      for (const ys of [clicksY, convY]) { // round: 0, step, 2·step… with a 1-2-5 step
        const step = ys[1] - ys[0];
        assert.ok(/^[125]0*$/.test(String(step)), `step ${step} of ${ys}`);
        ys.forEach((y, i) => assert.equal(y, i * step, `ticks ${ys}`));
      }
      assert.ok(Math.max(...convY) <= 5, `the conversions axis fits 3 leads and 2 sales: ${convY}`);
      const clicksPath = await box(p, '[data-testid="chart"] [data-testid="series-Clicks"]');
      const leadsPath = await box(p, '[data-testid="chart-conversions"] [data-testid="series-Leads"]');
      assert.ok(clicksPath.y + clicksPath.height <= leadsPath.y, "the two charts are stacked, not drawn over one another");

      // Chart labels are readable: real text at 12 px or more, none overlapping.
      for (const sel of ['[data-testid="chart"] [data-testid="chart-x-label"]', '[data-testid="chart"] [data-testid="chart-y-label"]',
        '[data-testid="chart-conversions"] [data-testid="chart-y-label"]']) {
        const labels = await p.locator(sel).filter({ visible: true }).all();
        assert.ok(labels.length >= 2, `${sel}: ${labels.length} labels`);
        const boxes = [];
        for (const l of labels) {
          assert.ok(parseFloat(await l.evaluate((el) => getComputedStyle(el).fontSize)) >= 12, `${sel} font size`);
          boxes.push(await l.boundingBox());
        }
        for (let i = 1; i < boxes.length; i++) assert.ok(!overlaps(boxes[i - 1], boxes[i]), `${sel}: labels ${i - 1} and ${i} overlap`);
        const card = await box(p, '[data-testid="chart-card"]');
        for (const b of boxes) assert.ok(inside(b, card), `${sel}: a label sticks out of the chart card`);
      }
      await shot(p, `i19-2-analytics-${w}`);

      // Filters are choices of the values present; the URL keeps no empty parameter.
      const countries = await p.$$eval("#af-country option", (os) => os.map((o) => o.textContent.trim()));
      assert.equal(countries[0], "Any country");
      assert.deepEqual(countries.slice(1).sort(), ["🇩🇪 Germany", "🇫🇷 France", "🇬🇧 United Kingdom", "🇺🇸 United States"]);
      const oss = await p.$$eval("#af-os option", (os) => os.map((o) => o.value));
      assert.ok(oss.includes("iOS") && oss.length >= 3, `OS choices ${oss}`);
      await Promise.all([p.waitForURL(/country=DE/), p.selectOption("#af-country", "DE")]);
      const url = new URL(p.url());
      for (const [k, v] of url.searchParams) assert.notEqual(v, "", `empty parameter ${k} in ${p.url()}`);
      assert.equal((await p.textContent('[data-testid="total-clicks"] [data-testid="total-value"]')).trim(), "1");
      assert.match(await p.textContent('[data-testid="active-filters"]'), /🇩🇪 Germany/);
      assert.ok((await p.$$eval("#af-country option", (os) => os.length)) === 5, "the country filter still offers every country");
      await shot(p, `i19-2-analytics-filtered-${w}`);
      await p.context().close();
    }
  });

  test("3: the overview — last 30 days chart, top links, recent conversions, checklist until done", async () => {
    for (const w of WIDTHS) {
      const p = await page(w);
      await p.goto(`${relink.appURL}/console`);
      assert.equal(await p.getAttribute('[data-testid="overview-chart"] [data-testid="series-Clicks"]', "data-total"), "7");
      assert.equal(await p.getAttribute('[data-testid="overview-chart"] [data-testid="series-Sales"]', "data-total"), "2");
      const top = await p.$$eval('[data-testid="overview-top-links"] [data-testid="bar-label"]', (ls) => ls.map((l) => l.textContent.trim()));
      assert.deepEqual(top, [`${host}/spring`, `${host}/summer-sale`]);
      const conv = await p.$$eval('[data-testid="overview-conversion"]', (ls) => ls.map((l) => l.innerText.replace(/\s+/g, " ")));
      assert.equal(conv.length, 5);
      assert.match(conv[0], /^Sale Grace Hopper/);
      assert.ok(conv.some((c) => /Lead Alan Turing/.test(c)), conv.join(" | "));
      assert.equal(await p.locator('[data-testid="checklist"]').count(), 0, "the checklist is gone once every step is done");
      for (const sel of ['[data-testid="overview-top-links"]', '[data-testid="overview-conversions"]', '[data-testid="overview-chart"]']) {
        const b = await box(p, sel);
        assert.ok(b.x >= 0 && b.x + b.width <= w, `${sel} fits the ${w} px window`);
      }
      await shot(p, `i19-3-overview-${w}`);
      await shot(p, `i19-3-overview-checklist-done-${w}`);
      await p.context().close();
    }
  });

  test("4: links — tag colours, folders, domain root, primary domain default, QR file name; API keys' last use; the logo picker", async () => {
    for (const w of WIDTHS) {
      const p = await page(w);
      await p.goto(`${relink.appURL}/console/links`);
      const spring = p.locator('[data-testid="link-row"]', { has: p.locator(`[data-testid="link-short"]:text-is("${host}/spring")`) });
      const chips = await spring.locator('[data-testid="link-tag"]').evaluateAll((cs) => cs.map((c) => [c.textContent.trim(), getComputedStyle(c).backgroundColor]));
      assert.equal(chips.length, 2);
      const [launch, news] = chips.map((c) => c[1].match(/\d+/g).map(Number));
      assert.ok(launch[0] > launch[2] + 20, `the red tag is red: rgb ${launch}`);
      assert.ok(news[2] > news[0] + 20, `the blue tag is blue: rgb ${news}`);
      assert.equal((await spring.locator('[data-testid="link-folder"]').textContent()).trim(), "Spring campaign");
      const root = p.locator('[data-testid="link-row"]', { has: p.locator('[data-testid="link-root"]') });
      assert.equal((await root.locator('[data-testid="link-short"]').textContent()).trim(), "go.acme.test");
      assert.match(await root.locator('[data-testid="link-url"]').textContent(), /no destination set/);

      // Short links are shown whole, never cut to "localhost:…".
      for (const l of await p.locator('[data-testid="link-short"]').all()) {
        assert.ok(await l.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), `${await l.textContent()} is cut`);
        const b = await l.boundingBox();
        assert.ok(b.x + b.width <= w, "a short link runs off the screen");
      }
      await shot(p, `i19-4-links-list-${w}`);

      // The list's filters (htmx, the URL pushed) keep no empty parameter.
      await p.fill('[data-testid="link-search"]', "spring");
      await p.waitForURL(/search=spring/);
      for (const [k, v] of new URL(p.url()).searchParams) assert.notEqual(v, "", `empty parameter ${k} in ${p.url()}`);
      await p.goto(`${relink.appURL}/console/links`);

      // New links start on the primary domain.
      await p.click('[data-testid="link-create"] summary');
      assert.equal(await p.inputValue('[data-testid="link-form"] select[name="domain"]'), "go.acme.test");
      await shot(p, `i19-4-new-link-primary-domain-${w}`);
      await p.context().close();
    }

    // QR file names without ':' (the default domain has a port).
    const p = await page(1280);
    await p.goto(`${relink.appURL}/console/links`);
    await p.click(`[data-testid="link-short"]:text-is("${host}/spring")`);
    const name = await p.getAttribute('[data-testid="qr-download"]', "download");
    assert.equal(name, `qr-${host.replace(":", "-")}-spring.png`);
    const [dl] = await Promise.all([p.waitForEvent("download"), p.click('[data-testid="qr-download"]')]);
    assert.ok(!dl.suggestedFilename().includes(":"), dl.suggestedFilename());
    await shot(p, "i19-4-qr-file-name-1280");

    // API keys: the seeding key's use is recorded off the request path.
    await p.goto(`${relink.appURL}/console/settings/keys`);
    await eventually(async () => {
      await p.reload();
      return !/Never/.test(await p.textContent('[data-testid="key-last-used"]'));
    }, { what: "the key's last use" });
    assert.match(await p.textContent('[data-testid="key-last-used"]'), /\d{4} \d\d:\d\d UTC/);
    await shot(p, "i19-4-api-key-last-used-1280");
    await p.context().close();

    // The domain logo picker is shown whole.
    for (const w of WIDTHS) {
      const q = await page(w);
      await q.goto(`${relink.appURL}/console/domains`);
      const input = '[data-testid="domain-logo-file"]';
      const card = q.locator('[data-testid="domains-list"]');
      const ib = await box(q, input), cb = await card.boundingBox();
      assert.ok(inside(ib, cb), `the file picker sticks out of its card at ${w} px`);
      assert.ok(ib.width >= 200, `the file picker is ${ib.width} px wide: its "No file chosen" is cut`);
      assert.ok(await notCut(q, input), "the file picker's text is cut");
      assert.ok(inside(await box(q, '[data-testid="domain-logo-upload"]'), cb), "the upload button sticks out");
      await shot(q, `i19-4-domain-logo-picker-${w}`);
      await q.context().close();
    }
  });

  test("5: phone width — QR card, API keys table, short links, Sign out, chart labels", async () => {
    for (const w of WIDTHS) {
      const p = await page(w);
      // Sign out stays on one line.
      const so = await box(p, '[data-testid="sign-out"]');
      const lh = await p.locator('[data-testid="sign-out"]').evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
      assert.ok(so.height < lh * 1.5 + 8, `Sign out is ${so.height} px high (line ${lh})`);
      assert.ok(so.x + so.width <= w, "Sign out runs off the screen");
      await shot(p, `i19-5-header-sign-out-${w}`);

      // The link page: the QR card covers neither the heading nor its Copy button.
      await p.goto(`${relink.appURL}/console/links`);
      await p.click(`[data-testid="link-short"]:text-is("${host}/spring")`);
      await p.waitForSelector('[data-testid="link-qr"] img');
      const qr = await box(p, '[data-testid="link-qr"]');
      for (const sel of ['[data-testid="link-shortlink"]', '[data-testid="link-page"] [data-testid="link-copy"]', '[data-testid="page-title"]']) {
        assert.ok(!overlaps(qr, await box(p, sel)), `the QR card covers ${sel} at ${w} px`);
      }
      const sl = await box(p, '[data-testid="link-shortlink"]');
      assert.ok(sl.x + sl.width <= w, "the short link runs off the screen");
      assert.equal((await p.textContent('[data-testid="link-shortlink"]')).trim(), `${relink.appURL}/spring`);
      await shot(p, `i19-5-link-detail-${w}`);

      // The API keys table fits its card or scrolls inside it.
      await p.goto(`${relink.appURL}/console/settings/keys`);
      const scroller = p.locator('[data-testid="keys-scroll"]');
      const card = p.locator('[data-testid="keys-table"]');
      assert.ok(inside(await scroller.boundingBox(), await card.boundingBox()), "the keys table's frame leaves its card");
      const { fits, scrolls } = await scroller.evaluate((el) => ({
        fits: el.scrollWidth <= el.clientWidth + 1,
        scrolls: getComputedStyle(el).overflowX === "auto" && el.scrollWidth > el.clientWidth,
      }));
      assert.ok(fits || scrolls, "the keys table neither fits nor scrolls");
      const pageWidth = await p.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(pageWidth <= w, `the page is ${pageWidth} px wide at ${w} px`);
      await shot(p, `i19-5-api-keys-${w}`);

      // Short links in the list (also asserted in item 4) and the overview's chart labels.
      await p.goto(`${relink.appURL}/console/links`);
      assert.ok(await notCut(p, '[data-testid="link-short"]'));
      await shot(p, `i19-5-links-list-${w}`);
      await p.goto(`${relink.appURL}/console`);
      const xl = await p.locator('[data-testid="overview-chart"] [data-testid="chart"] [data-testid="chart-x-label"]').filter({ visible: true }).all();
      const bs = [];
      for (const l of xl) {
        assert.ok(parseFloat(await l.evaluate((el) => getComputedStyle(el).fontSize)) >= 12);
        bs.push(await l.boundingBox());
      }
      for (let i = 1; i < bs.length; i++) assert.ok(!overlaps(bs[i - 1], bs[i]), "overview x labels overlap");
      await shot(p, `i19-5-overview-chart-labels-${w}`);
      await p.context().close();
    }
  });
});
