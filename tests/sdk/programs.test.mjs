// Partner-program operations through the official SDK against a live Relink
// (spec/parity.md §2-§7): manual commissions and clawbacks, bulk status changes,
// payouts, applications from the public application page, ban and
// deactivate, bounty submissions. The SDK's response validation is the
// first assertion; the values checked here are the second.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import * as errors from "dub/models/errors";

import { startRelink } from "./relink.mjs";

let relink;
let dub;
let partner;
let link;

async function cli(...args) {
  const r = await relink.cli(args);
  assert.equal(r.code, 0, `relink ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : null;
}

before(async () => {
  relink = await startRelink({ workspace: { name: "Acme", slug: "acme", plan: "advanced" } });
  dub = relink.dub();
  const shortDomain = new URL(relink.appURL).host;
  await cli("program", "set", "--workspace", "acme", "--domain", shortDomain, "--url", "https://shop.example/", "--applications", "open");
  // The partners here make their links themselves (a default link would take the key "pat").
  await cli("program", "group", "set", "--workspace", "acme", "--no-default-links");
  await cli("program", "reward", "set", "--workspace", "acme", "--event", "lead", "--type", "flat", "--amount", "300");
  await cli("program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "10");
  partner = await dub.partners.create({ email: "pat@example.com", name: "Pat", tenantId: "t_pat" });
  link = await dub.partners.createLink({ partnerId: partner.id, key: "pat" });
});
after(() => relink?.stop());

async function rejects(fn, Kind) {
  try {
    await fn();
  } catch (err) {
    if (Kind) assert.ok(err instanceof Kind, `${err.constructor.name}: ${err.message}`);
    return err;
  }
  assert.fail("the call succeeded, want an error");
}

describe("commissions", () => {
  test("commissions.create: custom, clawback, lead and sale commissions answer 202", async () => {
    const custom = await dub.commissions.create({ type: "custom", partnerId: partner.id, amount: 1500, description: "Launch bonus" });
    assert.deepEqual(custom, { success: true, message: "Your commissions are being created and will appear shortly." });
    const clawback = await dub.commissions.create({ type: "custom", partnerId: partner.id, amount: -500, description: "order_canceled" });
    assert.equal(clawback.message, "A clawback has been queued for the partner!");
    await dub.commissions.create({ type: "lead", partnerId: partner.id, customer: { externalId: "cust_1", country: "US", email: "c1@example.com" } });
    await dub.commissions.create({ type: "sale", partnerId: partner.id, customer: { externalId: "cust_1", country: "US" }, sale: { amount: 20000, invoiceId: "inv_1" } });
    const all = (await dub.commissions.list({ partnerId: partner.id })).result;
    const byType = Object.fromEntries(["custom", "lead", "sale"].map((t) => [t, all.filter((c) => c.type === t)]));
    assert.deepEqual(byType.custom.map((c) => c.earnings).sort((a, b) => a - b), [-500, 1500]);
    assert.equal(byType.lead[0].earnings, 300);
    assert.equal(byType.sale[0].earnings, 2000);
    assert.equal(byType.sale[0].invoiceId, "inv_1");
  });

  test("commissions.create: a clawback without description is a 422 in Dub's wording", async () => {
    const err = await rejects(() => dub.commissions.create({ type: "custom", partnerId: partner.id, amount: -100 }), errors.UnprocessableEntity);
    assert.equal(err.error.message, "custom: description: `description` is required when creating a clawback (negative amount).");
    const missing = await rejects(() => dub.commissions.create({ type: "custom", partnerId: "pn_nobody", amount: 100 }), errors.NotFound);
    assert.match(missing.error.message, /^Partner pn_nobody is not enrolled in program prog_/);
  });

  test("commissions.updateMany: all-or-nothing, ordered by id; 'bulk' is never taken for an id", async () => {
    const custom = ((await dub.commissions.list({ partnerId: partner.id, type: "custom" })).result).map((c) => c.id);
    const out = await dub.commissions.updateMany({ commissionIds: custom, status: "duplicate" });
    assert.deepEqual(out, [...custom].sort().map((id) => ({ id, status: "duplicate" })));
    const err = await rejects(() => dub.commissions.updateMany({ commissionIds: [custom[0]], status: "duplicate" }), errors.BadRequest);
    assert.equal(err.error.message, `The following commission(s) are already in the duplicate status: ${custom[0]}`);
    await dub.commissions.updateMany({ commissionIds: custom, status: "pending" });
  });
});

describe("payouts", () => {
  test("payouts.list: processed commissions gather into one pending payout per partner", async () => {
    await cli("program", "payouts", "list", "--workspace", "acme"); // aggregates what is due
    const payouts = await dub.payouts.list({});
    assert.equal(payouts.length, 1);
    const [p] = payouts;
    assert.equal(p.status, "pending");
    assert.equal(p.currency, "USD");
    assert.equal(p.amount, 1000); // 1500 - 500; lead and sale wait out the holding period
    assert.equal(p.partner.id, partner.id);
    assert.equal(p.partner.tenantId, "t_pat");
    assert.equal(p.mode, "external");
    assert.deepEqual(await dub.payouts.list({ status: "completed" }), []);
    assert.equal((await dub.payouts.list({ tenantId: "t_pat" })).length, 1);
  });

  test("payouts.list: confirmed and paid through the CLI; its commissions become paid", async () => {
    const [confirmed] = await cli("program", "payouts", "confirm", "--workspace", "acme");
    assert.equal(confirmed.status, "processing");
    const [p] = await dub.payouts.list({ status: "processing" });
    assert.equal(p.invoiceId, confirmed.invoiceId);
    assert.ok(p.initiatedAt);
    await cli("program", "payouts", "pay", "--workspace", "acme", "--payout", p.id);
    const [paid] = await dub.payouts.list({ status: "completed" });
    assert.ok(paid.paidAt);
    const custom = (await dub.commissions.list({ partnerId: partner.id, type: "custom" })).result;
    assert.ok(custom.every((c) => c.status === "paid" && c.paidAt), JSON.stringify(custom));
    const err = await rejects(() => dub.payouts.list({ pageSize: 101 }), errors.UnprocessableEntity);
    assert.equal(err.error.message, "too_big: pageSize: Max page size is 100.");
  });
});

/** Applies through the public application page like a browser would. */
async function apply(name, email, country) {
  const page = `${relink.appURL}/apply/acme`;
  const form = await fetch(page);
  assert.equal(form.status, 200);
  const cookie = form.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const csrf = (await form.text()).match(/name="_csrf" value="([^"]+)"/)[1];
  const res = await fetch(page, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ _csrf: csrf, name, email, country, website: `https://${name.toLowerCase()}.example`, promotion: "A newsletter" }),
  });
  assert.equal(res.status, 200, await res.text());
}

describe("partner applications", () => {
  let ann;
  let bob;
  before(async () => {
    await apply("Ann", "ann@example.com", "DE");
    await apply("Bob", "bob@example.com", "US");
    const list = await dub.partnerApplications.list({});
    ann = list.find((a) => a.partner.email === "ann@example.com");
    bob = list.find((a) => a.partner.email === "bob@example.com");
  });

  test("partnerApplications.list: pending applications with their answers", async () => {
    assert.equal(ann.partner.status, "pending");
    assert.equal(ann.partner.country, "DE");
    assert.equal(ann.partner.website, "https://ann.example");
    assert.deepEqual(ann.applicationFormData, [{ label: "How do you plan to promote Acme?", value: "A newsletter" }]);
    assert.equal((await dub.partnerApplications.list({ country: "US" })).length, 1);
  });

  test("partnerApplications.approve: the partner is enrolled, with links", async () => {
    assert.deepEqual(await dub.partnerApplications.approve({ partnerId: ann.partner.id }), { partnerId: ann.partner.id });
    const [p] = await dub.partners.list({ email: "ann@example.com" });
    assert.equal(p.status, "approved");
    const err = await rejects(() => dub.partnerApplications.approve({ partnerId: ann.partner.id }), errors.BadRequest);
    assert.equal(err.error.message, "This enrollment cannot be approved because it is already approved.");
  });

  test("partnerApplications.reject: rejected, then not pending any more", async () => {
    assert.deepEqual(await dub.partnerApplications.reject({ partnerId: bob.partner.id, rejectionReason: "notTheRightFit" }), { partnerId: bob.partner.id });
    const [p] = await dub.partners.list({ email: "bob@example.com" });
    assert.equal(p.status, "rejected");
    assert.deepEqual(await dub.partnerApplications.list({}), []);
    const err = await rejects(() => dub.partnerApplications.reject({ partnerId: bob.partner.id }), errors.BadRequest);
    assert.equal(err.error.message, "This enrollment cannot be rejected because it is no longer pending.");
  });
});

describe("bounties", () => {
  let bountyId;
  let submissionId;
  before(async () => {
    const b = await cli("program", "bounty", "add", "--workspace", "acme", "--name", "Post about us", "--type", "submission", "--reward", "2500");
    bountyId = b.id;
    const { publicToken } = await dub.embedTokens.referrals({ partnerId: partner.id });
    const res = await fetch(`${relink.appURL}/api/embed/referrals/bounties/${bountyId}/submissions`, {
      method: "POST",
      headers: { authorization: `Bearer ${publicToken}`, "content-type": "application/json" },
      body: JSON.stringify({ urls: ["https://blog.example/post"], description: "My post" }),
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    submissionId = JSON.parse(body).id;
  });

  test("bounties.listSubmissions: the partner's submission", async () => {
    const subs = await dub.bounties.listSubmissions({ bountyId });
    assert.equal(subs.length, 1);
    assert.equal(subs[0].id, submissionId);
    assert.equal(subs[0].status, "submitted");
    assert.deepEqual(subs[0].urls, ["https://blog.example/post"]);
    const err = await rejects(() => dub.bounties.listSubmissions({ bountyId: "bnty_nope" }), errors.NotFound);
    assert.equal(err.error.message, "Bounty bnty_nope not found.");
  });

  test("bounties.rejectSubmission and approveSubmission: approval earns the reward", async () => {
    const rejected = await dub.bounties.rejectSubmission({ bountyId, submissionId, requestBody: { rejectionReason: "invalidProof", rejectionNote: "No link" } });
    assert.equal(rejected.status, "rejected");
    assert.equal(rejected.rejectionReason, "invalidProof");
    const approved = await dub.bounties.approveSubmission({ bountyId, submissionId });
    assert.equal(approved.status, "approved");
    assert.ok(approved.reviewedAt);
    const custom = (await dub.commissions.list({ partnerId: partner.id, type: "custom", status: "processed" })).result;
    assert.ok(custom.some((c) => c.earnings === 2500 && c.description === 'Commission for successfully completed "Post about us" bounty.'), JSON.stringify(custom));
  });
});

describe("ban and deactivate", () => {
  test("partners.deactivate: deactivated, links expire, commissions stay", async () => {
    const sam = await dub.partners.create({ email: "sam@example.com", tenantId: "t_sam" });
    await dub.partners.createLink({ partnerId: sam.id, key: "sam" });
    assert.deepEqual(await dub.partners.deactivate({ tenantId: "t_sam" }), { partnerId: sam.id });
    const [p] = await dub.partners.list({ tenantId: "t_sam" });
    assert.equal(p.status, "deactivated");
    const [l] = await dub.partners.retrieveLinks({ partnerId: sam.id });
    assert.ok((await dub.links.get({ linkId: l.id })).expiresAt);
  });

  test("partners.ban: banned with the reason; the link stops redirecting; pending money canceled", async () => {
    const err = await rejects(() => dub.partners.ban({ partnerId: partner.id, reason: "rude" }));
    assert.ok(err instanceof errors.UnprocessableEntity || err.name === "SDKValidationError", err.message);
    assert.deepEqual(await dub.partners.ban({ partnerId: partner.id, reason: "fraud" }), { partnerId: partner.id });
    const [p] = await dub.partners.list({ tenantId: "t_pat" });
    assert.equal(p.status, "banned");
    assert.equal(p.bannedReason, "fraud");
    const l = await dub.links.get({ linkId: link.id });
    assert.ok(l.disabledAt, "the banned partner's link is disabled");
    const pending = (await dub.commissions.list({ partnerId: partner.id, status: "pending" })).result;
    assert.deepEqual(pending, []);
    const again = await rejects(() => dub.partners.ban({ partnerId: partner.id, reason: "spam" }), errors.BadRequest);
    assert.equal(again.error.message, "This partner is already banned from your program.");
  });
});
