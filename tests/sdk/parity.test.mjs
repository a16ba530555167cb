// The operations of issue 13 items 6-7 through the official SDK
// (spec/parity.md §8, §11): the SDK's own schema validation is the assertion, and
// the error classes it maps statuses to.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Dub } from "dub";
import * as errors from "dub/models/errors";

import { startRelink } from "./relink.mjs";

let relink;
let dub; // enterprise workspace
let adv; // advanced workspace
before(async () => {
  relink = await startRelink({ workspace: { name: "Acme", slug: "acme", plan: "enterprise" } });
  dub = relink.dub();
  const other = await relink.createWorkspace({ name: "Adv", slug: "adv", plan: "advanced" });
  adv = new Dub({ token: other.apiKey, serverURL: relink.apiURL });
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

describe("domains without a registrar (spec/parity.md §11.1)", () => {
  test("domains.checkStatus: validation, the plan gate, then Forbidden", async () => {
    const err = await rejects(() => dub.domains.checkStatus({ domains: ["acme.link", "acme.com"] }));
    assert.ok(err instanceof errors.Forbidden, err.constructor.name);
    assert.equal(err.error.message, "GET /domains/status is not available for your workspace. Contact support for more information.");
    const none = await rejects(() => dub.domains.checkStatus({ domains: "acme.com" }));
    assert.ok(none instanceof errors.BadRequest, none.constructor.name);
    assert.equal(none.error.message, "You must provide at least one domain to check. We only support .link domains for now.");
    const plan = await rejects(() => adv.domains.checkStatus({ domains: "acme.link" }));
    assert.ok(plan instanceof errors.Forbidden, plan.constructor.name);
    assert.equal(plan.error.message, "Unauthorized: Need higher plan.");
  });

  test("domains.register: validation, then Forbidden", async () => {
    const err = await rejects(() => dub.domains.register({ domain: "acme.link" }));
    assert.ok(err instanceof errors.Forbidden, err.constructor.name);
    assert.equal(err.error.message, "POST /domains/register is not available for your workspace. Contact support for more information.");
    const bad = await rejects(() => dub.domains.register({ domain: "acme.com" }));
    assert.ok(bad instanceof errors.UnprocessableEntity, bad.constructor.name);
    assert.equal(bad.error.message, 'invalid_format: domain: Invalid string: must end with ".link"');
  });
});

describe("discount codes (spec/parity.md §8)", () => {
  test("discountCodes.create (200), list, delete", async () => {
    const r = await relink.cli(["program", "discount", "set", "--workspace", "acme", "--type", "percentage", "--amount", "25", "--max-duration", "3"]);
    assert.equal(r.code, 0, r.stderr);
    const discount = JSON.parse(r.stdout);
    const partner = await dub.partners.create({ email: "sam@partners.test", name: "Sam Carter" });
    const link = await dub.links.create({ url: "https://shop.test/", key: "sam", programId: partner.programId, partnerId: partner.id });

    const code = await dub.discountCodes.create({ partnerId: partner.id, linkId: link.id });
    assert.equal(code.code, "SAM25OFF");
    assert.equal(code.discountId, discount.ID);
    assert.equal(code.linkId, link.id);
    const list = await dub.discountCodes.list({ partnerId: partner.id });
    assert.deepEqual(list.map((c) => c.id), [code.id]);
    assert.deepEqual(await dub.discountCodes.list({ discountId: "disc_nope" }).catch((e) => e.constructor.name), "NotFound");

    const taken = await rejects(() => dub.discountCodes.create({ partnerId: partner.id, linkId: link.id, code: "OTHER" }));
    assert.ok(taken instanceof errors.BadRequest, taken.constructor.name);
    assert.equal(taken.error.message, "This link already has a discount code (SAM25OFF) assigned.");
    const bad = await rejects(() => dub.discountCodes.create({ partnerId: partner.id, linkId: link.id, code: "NOT VALID!" }));
    assert.ok(bad instanceof errors.UnprocessableEntity, bad.constructor.name);

    const deleted = await dub.discountCodes.delete("SAM25OFF");
    assert.deepEqual(deleted, { id: code.id });
    const gone = await rejects(() => dub.discountCodes.delete(code.id));
    assert.ok(gone instanceof errors.NotFound, gone.constructor.name);
    assert.deepEqual(await dub.discountCodes.list(), []);
  });
});
