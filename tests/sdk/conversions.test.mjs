// Conversion tracking, customers, partners, commissions and embed tokens
// through the official SDK against a live Relink (spec/partners-and-embed.md
// §1-5). The SDK's own response validation is the first assertion (a shape
// it rejects throws); the values checked here are the second.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import * as errors from "dub/models/errors";

import { startRelink } from "./relink.mjs";

let relink;
let dub;
before(async () => {
  relink = await startRelink({
    workspace: { name: "Acme", slug: "acme", plan: "advanced" },
    // Every click counts and is written quickly.
    env: { RELINK_CLICK_DEDUP_WINDOW: "0", RELINK_CLICK_FLUSH_INTERVAL: "50ms" },
  });
  dub = relink.dub();
  const shortDomain = new URL(relink.appURL).host;
  for (const args of [
    ["program", "set", "--workspace", "acme", "--domain", shortDomain, "--url", "https://shop.example/"],
    // The partners here make their links themselves (no default link).
    ["program", "group", "set", "--workspace", "acme", "--no-default-links"],
    ["program", "reward", "set", "--workspace", "acme", "--event", "lead", "--type", "flat", "--amount", "150"],
    ["program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "10", "--max-duration", "12"],
  ]) {
    const r = await relink.cli(args);
    assert.equal(r.code, 0, `relink ${args.join(" ")}: ${r.stderr}`);
  }
});
after(() => relink?.stop());

async function rejects(fn) {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  assert.fail("the call succeeded, want an error");
}

/**
 * Clicks a link like a visitor (the redirect appends dub_id to conversion-
 * tracked destinations) and waits until the click is stored, which the
 * pipeline does in the background: a lead on an unstored click is 404.
 */
async function clickID(link) {
  const res = await fetch(link.shortLink, { redirect: "manual", headers: { "user-agent": `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.${Math.floor(Math.random() * 9999)}.0 Safari/537.36` } });
  assert.ok(res.status >= 300 && res.status < 400, `GET ${link.shortLink}: ${res.status}`);
  const id = new URL(res.headers.get("location")).searchParams.get("dub_id");
  assert.match(id ?? "", /^[a-zA-Z0-9]{16}$/, `Location ${res.headers.get("location")}`);
  const deadline = Date.now() + 10000;
  for (;;) {
    const l = await dub.links.get({ linkId: link.id });
    if (l.clicks > (link.clicksSeen ?? 0)) {
      link.clicksSeen = l.clicks;
      return id;
    }
    if (Date.now() > deadline) assert.fail(`click on ${link.shortLink} not stored within 10s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("tracking", () => {
  let link;
  let click;

  before(async () => {
    link = await dub.links.create({ url: "https://shop.example/pricing", trackConversion: true });
    click = await clickID(link);
  });

  test("track.lead attributes the lead to the click's link", async () => {
    const r = await dub.track.lead({
      clickId: click,
      eventName: "Sign up",
      customerExternalId: "user_1",
      customerName: "Ada Lovelace",
      customerEmail: "ada@example.com",
      mode: "wait",
      metadata: { plan: "free" },
    });
    assert.equal(r.click.id, click);
    assert.equal(r.link?.id, link.id);
    assert.equal(r.link?.shortLink, link.shortLink);
    assert.equal(r.link?.partnerId, null);
    assert.deepEqual(r.customer, { name: "Ada Lovelace", email: "ada@example.com", avatar: null, externalId: "user_1" });
  });

  test("a repeated lead within the window is a duplicate: link null, nothing counted", async () => {
    const r = await dub.track.lead({ clickId: click, eventName: "sign up", customerExternalId: "user_1" });
    assert.equal(r.link, null);
    assert.equal(r.customer.externalId, "user_1");
    assert.equal((await dub.links.get({ linkId: link.id })).leads, 1);
  });

  test("track.sale records once per invoiceId and replays the first response", async () => {
    const first = await dub.track.sale({ customerExternalId: "user_1", amount: 4900, invoiceId: "in_1", paymentProcessor: "stripe", metadata: { sku: "pro" } });
    assert.equal(first.eventName, "Purchase");
    assert.equal(first.customer?.externalId, "user_1");
    assert.deepEqual(first.sale, { amount: 4900, currency: "usd", paymentProcessor: "stripe", invoiceId: "in_1", metadata: { sku: "pro" } });
    const again = await dub.track.sale({ customerExternalId: "user_1", amount: 1, invoiceId: "in_1" });
    assert.deepEqual(again, first);
    const l = await dub.links.get({ linkId: link.id });
    assert.equal(l.sales, 1);
    assert.equal(l.saleAmount, 4900);
    assert.equal(l.conversions, 1);
  });

  test("non-USD sales are converted to USD cents; zero-decimal currencies too", async () => {
    const eur = await dub.track.sale({ customerExternalId: "user_1", amount: 1000, currency: "EUR" });
    assert.equal(eur.sale?.currency, "usd");
    assert.ok(eur.sale.amount > 1000, `10.00 EUR = ${eur.sale.amount} USD cents`);
    const jpy = await dub.track.sale({ customerExternalId: "user_1", amount: 1450, currency: "jpy" });
    assert.equal(jpy.sale?.currency, "usd");
    assert.ok(jpy.sale.amount > 500 && jpy.sale.amount < 2000, `1450 JPY = ${jpy.sale.amount} USD cents`);
  });

  test("an unknown customer is not an error; an unknown click is 404", async () => {
    const r = await dub.track.sale({ customerExternalId: "nobody", amount: 100 });
    assert.deepEqual(r, { eventName: "Purchase", customer: null, sale: null });
    const err = await rejects(() => dub.track.lead({ clickId: "nope", eventName: "Sign up", customerExternalId: "x" }));
    assert.ok(err instanceof errors.NotFound, `${err?.name}: ${err?.message}`);
    assert.equal(err.error.message, "Click event not found for clickId: nope");
  });

  test("a sale with no lead for the customer is 404", async () => {
    await dub.track.lead({ clickId: click, eventName: "Sign up", customerExternalId: "user_deferred", mode: "deferred" });
    const err = await rejects(() => dub.track.sale({ customerExternalId: "user_deferred", amount: 100 }));
    assert.ok(err instanceof errors.NotFound, `${err?.name}: ${err?.message}`);
    assert.equal(err.error.message, "Lead event not found for externalId: user_deferred and leadEventName: null");
  });
});

describe("customers", () => {
  test("list, get, update and delete; another workspace sees nothing", async () => {
    const ids = [];
    for await (const page of await dub.customers.list({ pageSize: 1 })) {
      ids.push(...page.result.map((c) => c.externalId));
    }
    assert.deepEqual(ids.sort(), ["user_1", "user_deferred"]);

    const byExt = await dub.customers.get({ id: "ext_user_1", includeExpandedFields: true });
    assert.match(byExt.id, /^cus_/);
    assert.equal(byExt.sales, 3);
    assert.equal(byExt.link?.shortLink?.startsWith("http"), true);
    const updated = await dub.customers.update({ id: byExt.id, requestBody: { name: "Ada King" } });
    assert.equal(updated.name, "Ada King");
    assert.equal((await dub.customers.get({ id: byExt.id })).name, "Ada King");

    const other = await relink.createWorkspace({ name: "Other", slug: "other", plan: "business" });
    const theirs = relink.dub({ token: other.apiKey });
    const err = await rejects(() => theirs.customers.get({ id: byExt.id }));
    assert.ok(err instanceof errors.NotFound, `${err?.name}: ${err?.message}`);
    const del = await rejects(() => theirs.customers.delete(byExt.id));
    assert.ok(del instanceof errors.NotFound, `${del?.name}: ${del?.message}`);
    const theirList = [];
    for await (const page of await theirs.customers.list()) theirList.push(...page.result);
    assert.equal(theirList.length, 0);

    const gone = await dub.customers.delete("ext_user_deferred");
    assert.match(gone.id, /^cus_/);
    const nf = await rejects(() => dub.customers.get({ id: "ext_user_deferred" }));
    assert.ok(nf instanceof errors.NotFound);
  });
});

describe("partners, commissions and embed tokens", () => {
  let partner;
  let plink;

  test("partners.create enrolls (201) and returns the same partner again", async () => {
    partner = await dub.partners.create({ name: "Pat Partner", email: "pat@example.com", tenantId: "tenant_pat", country: "DE" });
    assert.match(partner.id, /^pn_/);
    assert.equal(partner.partnerId, partner.id);
    assert.match(partner.programId, /^prog_/);
    assert.equal(partner.status, "approved");
    assert.equal(partner.tenantId, "tenant_pat");
    assert.ok(partner.leadRewardId && partner.saleRewardId);
    const again = await dub.partners.create({ name: "Someone Else", email: "pat@example.com" });
    assert.equal(again.id, partner.id);
    assert.equal(again.name, "Pat Partner");
  });

  test("partners.createLink (201), upsertLink and retrieveLinks", async () => {
    plink = await dub.partners.createLink({ tenantId: "tenant_pat", key: "pat" });
    assert.equal(plink.partnerId, partner.id);
    assert.equal(plink.programId, partner.programId);
    assert.equal(plink.tenantId, "tenant_pat");
    assert.equal(plink.trackConversion, true);
    assert.equal(plink.key, "pat");
    const up = await dub.partners.upsertLink({ partnerId: partner.id, url: plink.url, linkProps: { title: "Pat's link" } });
    assert.equal(up.id, plink.id);
    assert.equal(up.title, "Pat's link");
    const links = await dub.partners.retrieveLinks({ partnerId: partner.id });
    assert.deepEqual(links.map((l) => l.id), [plink.id]);
  });

  test("a lead and a sale on the partner link earn commissions; list and update them", async () => {
    const click = await clickID(plink);
    await dub.track.lead({ clickId: click, eventName: "Sign up", customerExternalId: "buyer_1", mode: "wait" });
    await dub.track.sale({ customerExternalId: "buyer_1", amount: 12345, invoiceId: "in_partner" });

    const list = [];
    for await (const page of await dub.commissions.list({ partnerId: partner.id, sortOrder: "asc" })) list.push(...page.result);
    assert.deepEqual(list.map((c) => [c.type, c.earnings, c.amount, c.status]), [
      ["lead", 150, 0, "pending"],
      ["sale", 1235, 12345, "pending"], // 10% of 123.45, rounded half up
    ]);
    assert.equal(list[1].partner.id, partner.id);
    assert.equal(list[1].customer?.externalId, "buyer_1");
    assert.equal(list[1].invoiceId, "in_partner");

    const updated = await dub.commissions.update({ id: list[1].id, requestBody: { status: "duplicate" } });
    assert.equal(updated.status, "duplicate");
    const after = [];
    for await (const page of await dub.commissions.list()) after.push(...page.result);
    assert.deepEqual(after.map((c) => c.type), ["lead"], "duplicates are hidden by default");

    const [listed] = await dub.partners.list({ email: "pat@example.com" });
    assert.equal(listed.id, partner.id);
    assert.equal(listed.totalClicks, 1);
    assert.equal(listed.totalLeads, 1);
    assert.equal(listed.totalSales, 1);
    assert.equal(listed.totalSaleAmount, 12345);
    assert.equal(listed.totalCommissions, 150);
  });

  test("partners.analytics: count, timeseries and top_links", async () => {
    const count = await dub.partners.analytics({ partnerId: partner.id });
    assert.deepEqual(count, { clicks: 1, leads: 1, sales: 1, saleAmount: 12345, earnings: 0 });
    const series = await dub.partners.analytics({ tenantId: "tenant_pat", groupBy: "timeseries", interval: "24h" });
    assert.equal(series.reduce((n, b) => n + b.clicks, 0), 1);
    const top = await dub.partners.analytics({ partnerId: partner.id, groupBy: "top_links" });
    assert.equal(top[0].id, plink.id);
    assert.equal(top[0].saleAmount, 12345);
  });

  test("embedTokens.referrals mints a new token each call (201)", async () => {
    const a = await dub.embedTokens.referrals({ tenantId: "tenant_pat" });
    const b = await dub.embedTokens.referrals({ partner: { email: "new.partner@example.com", name: "New Partner", tenantId: "tenant_new" } });
    for (const t of [a, b]) {
      assert.match(t.publicToken, /^dub_embed_[0-9A-Z]{25}$/);
      assert.ok(Date.parse(t.expires) > Date.now());
    }
    assert.notEqual(a.publicToken, b.publicToken);
    const enrolled = await dub.partners.list({ tenantId: "tenant_new" });
    assert.equal(enrolled[0]?.email, "new.partner@example.com");
    const err = await rejects(() => dub.embedTokens.referrals({ tenantId: "no_such_tenant" }));
    assert.ok(err instanceof errors.NotFound, `${err?.name}: ${err?.message}`);
  });

  test("plan gates: business cannot mint embed tokens, and sees none of acme's partners", async () => {
    const biz = await relink.createWorkspace({ name: "Biz", slug: "biz", plan: "business" });
    const theirs = relink.dub({ token: biz.apiKey });
    const err = await rejects(() => theirs.embedTokens.referrals({ tenantId: "tenant_pat" }));
    assert.ok(err instanceof errors.Forbidden, `${err?.name}: ${err?.message}`);
    assert.equal(err.error.message, "Unauthorized: Need higher plan.");
    assert.deepEqual(await theirs.partners.list(), []);
    const nf = await rejects(() => theirs.partners.createLink({ partnerId: partner.id }));
    assert.ok(nf instanceof errors.NotFound, `${nf?.name}: ${nf?.message}`);
  });
});
