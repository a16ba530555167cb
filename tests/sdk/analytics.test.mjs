// GET /analytics and GET /events through the official SDK (issue 5, item 7):
// every groupBy × event the SDK can parse goes through analytics.retrieve,
// whose zod schemas are the assertion; the groupBys the SDK cannot decode
// (utm_*, link-attribute groupings) are checked on the wire; events.list
// runs for each event type. The data comes from `relink demo`, which writes
// through the same batch writer and aggregates as the server.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startRelink } from "./relink.mjs";

let relink;
let dub;
let last = 0;

before(async () => {
  relink = await startRelink({ workspace: { name: "Stats", slug: "stats", plan: "enterprise" } });
  const r = await relink.cli(["demo", "--workspace", "stats", "--links", "30", "--clicks", "3000",
    "--leads", "200", "--sales", "60", "--days", "20", "--partners", "3", "--seed", "7"]);
  assert.equal(r.code, 0, `relink demo failed: ${r.stderr}`);
  dub = relink.dub();
});
after(() => relink?.stop());

// Enterprise keys get 16 analytics requests a second; stay under it.
async function paced(fn) {
  const wait = last + 70 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  last = Date.now();
  return fn();
}

const events = ["clicks", "leads", "sales", "composite"];
const parsable = ["timeseries", "continents", "regions", "countries", "cities", "devices", "browsers", "os",
  "trigger", "triggers", "referers", "referer_urls", "top_links", "top_urls", "top_base_urls"];
const wireOnly = {
  utm_sources: ["utm_source"], utm_mediums: ["utm_medium"], utm_campaigns: ["utm_campaign"],
  utm_terms: ["utm_term"], utm_contents: ["utm_content"], top_domains: ["domain"],
  top_folders: ["folderId", "folder"], top_link_tags: ["tagId", "tag"], top_partners: ["partnerId", "partner"],
  top_groups: ["groupId", "group"], top_partner_tags: ["partnerTagId", "partnerTag"],
};
const counters = ["clicks", "leads", "sales", "saleAmount"];

describe("analytics.retrieve", () => {
  const totals = {};
  for (const event of events) {
    test(`${event} count`, async () => {
      const res = await paced(() => dub.analytics.retrieve({ event, groupBy: "count", interval: "30d" }));
      for (const k of counters) assert.equal(typeof res[k], "number", k);
      if (event === "clicks") assert.equal(res.clicks, 3000);
      if (event !== "clicks" && event !== "composite") assert.ok(res[event] > 0, `${event} > 0`);
      if (event !== "composite") {
        for (const k of counters) {
          const mine = k === event || (event === "sales" && k === "saleAmount");
          if (!mine) assert.equal(res[k], 0, `${k} of ${event}`);
        }
      }
      totals[event] = res;
    });
    for (const groupBy of parsable) {
      test(`${event} ${groupBy}`, async () => {
        const rows = await paced(() => dub.analytics.retrieve({ event, groupBy, interval: "30d", timezone: "America/New_York" }));
        assert.ok(Array.isArray(rows), "an array");
        assert.ok(rows.length > 0, "some rows");
        if (groupBy === "timeseries") {
          assert.equal(rows.length, 31);
          const sum = rows.reduce((a, r) => a + r.clicks + r.leads + r.sales, 0);
          const t = totals[event];
          if (t) assert.equal(sum, t.clicks + t.leads + t.sales);
        }
        // The demo's links are on the default short domain (the app's host).
        if (groupBy === "top_links") for (const r of rows) assert.ok(r.shortLink.replace(/^https?:\/\//, "").startsWith(new URL(relink.appURL).host + "/"), r.shortLink);
      });
    }
  }
  test("filters, exclusion and a half-hour zone", async () => {
    const all = await paced(() => dub.analytics.retrieve({ event: "clicks", groupBy: "countries", interval: "30d" }));
    const us = all.find((r) => r.country === "US");
    assert.ok(us, "US clicks exist");
    const only = await paced(() => dub.analytics.retrieve({ event: "clicks", groupBy: "count", interval: "30d", country: "US" }));
    assert.equal(only.clicks, us.clicks);
    const rest = await paced(() => dub.analytics.retrieve({ event: "clicks", groupBy: "count", interval: "30d", country: "-US" }));
    assert.equal(rest.clicks + only.clicks, 3000);
    const ts = await paced(() => dub.analytics.retrieve({ event: "clicks", groupBy: "timeseries", interval: "7d", timezone: "Asia/Kolkata" }));
    assert.equal(ts.length, 8);
    for (const r of ts) assert.match(r.start, /T00:00:00\.000\+0530$/);
  });
  test("invalid values are SDK-typed 422s", async () => {
    await assert.rejects(() => paced(() => dub.analytics.retrieve({ event: "clicks", groupBy: "count", start: "2020-01-01" })),
      (err) => err.statusCode === 422 && /September 22, 2022/.test(err.message));
  });
});

describe("groupBys the SDK cannot decode, on the wire", () => {
  for (const [groupBy, keys] of Object.entries(wireOnly)) {
    test(groupBy, async () => {
      const res = await paced(() => fetch(`${relink.apiURL}/analytics?event=composite&groupBy=${groupBy}&interval=30d`, {
        headers: { Authorization: `Bearer ${relink.apiKey}` },
      }));
      assert.equal(res.status, 200);
      const rows = await res.json();
      assert.ok(Array.isArray(rows));
      if (groupBy !== "top_partner_tags" && groupBy !== "top_groups") assert.ok(rows.length > 0, "some rows");
      for (const r of rows) {
        assert.deepEqual(Object.keys(r).sort(), [...keys, ...counters].sort());
      }
    });
  }
});

describe("events.list", () => {
  for (const event of ["clicks", "leads", "sales"]) {
    test(event, async () => {
      const page = await paced(() => dub.events.list({ event, interval: "30d", limit: 25 }));
      assert.ok(Array.isArray(page) && page.length > 0 && page.length <= 25);
      for (const e of page) {
        assert.equal(e.event, event.slice(0, -1));
        assert.equal(typeof e.click.qr, "boolean");
        assert.ok(e.link.workspaceId.startsWith("ws_"));
      }
      if (event === "sales") for (const e of page) assert.ok(Number.isInteger(e.sale.amount) && e.sale.amount > 0);
      const asc = await paced(() => dub.events.list({ event, interval: "30d", limit: 5, sortOrder: "asc" }));
      assert.ok(asc.length > 0);
      assert.ok(asc[0].timestamp <= page[0].timestamp, "ascending starts no later than descending");
    });
  }
});
