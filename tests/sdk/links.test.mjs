// Every link operation through the official SDK against a live Relink: the
// SDK's own response validation is the first assertion, the values checked
// here the second. (spec/links.md §5)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import * as errors from "dub/models/errors";

import { startRelink } from "./relink.mjs";

let relink;
let dub;
before(async () => {
  relink = await startRelink({ workspace: { name: "Acme", slug: "acme", plan: "business" } });
  dub = relink.dub();
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

describe("links through the SDK", () => {
  let tag;
  let folder;
  let link;

  before(async () => {
    await dub.domains.create({ slug: "sdk.link" });
    tag = await dub.tags.create({ name: "Launch", color: "green" });
    folder = await dub.folders.create({ name: "SDK" });
  });

  test("create returns a full Link", async () => {
    link = await dub.links.create({
      url: "https://example.com/landing",
      domain: "sdk.link",
      key: "Launch",
      externalId: "ext_sdk-1",
      tagIds: [tag.id],
      folderId: folder.id,
      utmSource: "newsletter",
      utmMedium: "email",
      title: "Launch",
      geo: { FR: "https://example.fr" },
      expiresAt: "2031-01-01T00:00:00.000Z",
      trackConversion: true,
      comments: "from the SDK",
    });
    assert.match(link.id, /^link_/);
    assert.equal(link.domain, "sdk.link");
    assert.equal(link.key, "Launch");
    assert.equal(link.shortLink, "https://sdk.link/Launch");
    assert.equal(link.qrCode, `${relink.apiURL}/qr?url=https://sdk.link/Launch?qr=1`);
    assert.equal(link.url, "https://example.com/landing?utm_source=newsletter&utm_medium=email");
    assert.equal(link.utmSource, "newsletter");
    assert.equal(link.utmCampaign, null);
    assert.equal(link.externalId, "sdk-1");
    assert.deepEqual(link.tags, [{ id: tag.id, name: "Launch", color: "green" }]);
    assert.equal(link.tagId, tag.id);
    assert.equal(link.folderId, folder.id);
    assert.deepEqual(link.geo, { FR: "https://example.fr" });
    assert.equal(link.expiresAt, "2031-01-01T00:00:00.000Z");
    assert.equal(link.trackConversion, true);
    assert.equal(link.workspaceId, relink.workspace.id);
    assert.equal(link.projectId, relink.workspace.id.replace(/^ws_/, ""));
    assert.deepEqual(link.webhookIds, []);
    assert.equal(link.clicks, 0);
    assert.equal(link.saleAmount, 0);
  });

  test("create with only a url gets a random 7-character key on the primary domain", async () => {
    const l = await dub.links.create({ url: "example.org" });
    assert.equal(l.domain, "sdk.link");
    assert.match(l.key, /^[0-9A-Za-z]{7}$/);
    assert.equal(l.url, "https://example.org/");
  });

  test("get by domain and key (any case), by linkId and by externalId", async () => {
    for (const req of [
      { domain: "sdk.link", key: "launch" },
      { linkId: link.id },
      { externalId: "ext_sdk-1" },
    ]) {
      const got = await dub.links.get(req);
      assert.equal(got.id, link.id, JSON.stringify(req));
      assert.equal(got.tags.length, 1);
    }
  });

  test("update changes fields and keeps the rest", async () => {
    const u = await dub.links.update(link.id, { utmCampaign: "spring", title: null, archived: true });
    assert.equal(u.url, "https://example.com/landing?utm_source=newsletter&utm_medium=email&utm_campaign=spring");
    assert.equal(u.title, null);
    assert.equal(u.archived, true);
    assert.equal(u.key, "Launch");
    const back = await dub.links.update("ext_sdk-1", { archived: false });
    assert.equal(back.archived, false);
  });

  test("upsert updates the link with the same url, else creates", async () => {
    const a = await dub.links.upsert({ url: "https://upsert.example.com", key: "ups" });
    const b = await dub.links.upsert({ url: "https://upsert.example.com", comments: "again" });
    assert.equal(b.id, a.id);
    assert.equal(b.comments, "again");
    const c = await dub.links.upsert({ url: "https://upsert.example.com/other" });
    assert.notEqual(c.id, a.id);
  });

  test("list with the SDK's defaults, filters and pagination", async () => {
    const page = await dub.links.list({ search: "example", showArchived: true });
    assert.ok(page.result.length >= 3);
    for (const l of page.result) assert.match(l.id, /^link_/);
    const inFolder = await dub.links.list({ folderId: folder.id });
    assert.deepEqual(inFolder.result.map((l) => l.id), [link.id]);
    const tagged = await dub.links.list({ tagIds: [tag.id] });
    assert.deepEqual(tagged.result.map((l) => l.id), [link.id]);
    // The iterator walks pages until one is shorter than pageSize.
    let seen = 0;
    let pages = 0;
    for await (const p of await dub.links.list({ pageSize: 2, showArchived: true })) {
      seen += p.result.length;
      pages++;
    }
    // A plain list shows links in no folder (upstream); the plain count
    // counts every folder (issue 13 item 10), so compare with "unsorted".
    const total = await dub.links.count({ showArchived: true, folderId: "unsorted" });
    assert.equal(seen, total);
    assert.equal(await dub.links.count({ showArchived: true }), total + 1, "the plain count includes the link in a folder");
    assert.equal(pages, Math.floor(total / 2) + 1);
  });

  test("count is a number", async () => {
    const n = await dub.links.count();
    assert.equal(typeof n, "number");
    assert.equal(await dub.links.count({ tagIds: [tag.id] }), 1);
  });

  test("createMany returns links and error entries the SDK parses", async () => {
    const res = await dub.links.createMany([
      { url: "https://bulk.example.com/1", key: "bulk-1" },
      { url: "https://bulk.example.com/2", key: "LAUNCH", domain: "sdk.link" },
      { url: "https://bulk.example.com/3", tagIds: ["tag_nope"] },
    ]);
    assert.equal(res.length, 3);
    assert.equal(res[0].key, "bulk-1");
    assert.equal(res[1].code, "conflict");
    assert.equal(res[1].error, "Duplicate key: This short link already exists.");
    assert.equal(res[2].code, "unprocessable_entity");
  });

  test("updateMany and deleteMany", async () => {
    const made = await dub.links.createMany([
      { url: "https://many.example.com/1", externalId: "many-1" },
      { url: "https://many.example.com/2", externalId: "many-2" },
    ]);
    const updated = await dub.links.updateMany({ linkIds: made.map((l) => l.id), data: { comments: "bulk" } });
    assert.deepEqual(updated.map((l) => l.comments), ["bulk", "bulk"]);
    const byExt = await dub.links.updateMany({ externalIds: ["many-1"], data: { title: "t" } });
    assert.equal(byExt[0].title, "t");
    const del = await dub.links.deleteMany({ linkIds: [made[0].id, "ext_many-2", "link_nope"] });
    assert.equal(del.deletedCount, 2);
  });

  test("delete answers {id}; then the link is gone", async () => {
    const l = await dub.links.create({ url: "https://gone.example.com" });
    const res = await dub.links.delete(l.id);
    assert.deepEqual(res, { id: l.id });
    const err = await rejects(() => dub.links.get({ linkId: l.id }));
    assert.ok(err instanceof errors.NotFound, err.constructor.name);
  });

  test("typed errors: conflict, validation, forbidden, another workspace's link", async () => {
    const dup = await rejects(() => dub.links.create({ url: "https://x.com", domain: "sdk.link", key: "launch" }));
    assert.ok(dup instanceof errors.Conflict, dup.constructor.name);
    assert.equal(dup.error.message, "Duplicate key: This short link already exists.");
    const bad = await rejects(() => dub.links.create({ url: "https://x.com", keyLength: 2 }));
    assert.ok(bad instanceof errors.UnprocessableEntity, bad.constructor.name);
    assert.equal(bad.error.message, "too_small: keyLength: Too small: expected number to be >=3");
    const dom = await rejects(() => dub.links.create({ url: "https://x.com", domain: "nope.link" }));
    assert.ok(dom instanceof errors.Forbidden, dom.constructor.name);

    const other = await relink.createWorkspace({ name: "Other", slug: "other" });
    const otherDub = relink.dub({ token: other.apiKey });
    const theirs = await otherDub.links.create({ url: "https://theirs.example.com" });
    for (const call of [
      () => dub.links.get({ linkId: theirs.id }),
      () => dub.links.update(theirs.id, { url: "https://evil.example.com" }),
      () => dub.links.delete(theirs.id),
    ]) {
      const err = await rejects(call);
      assert.ok(err instanceof errors.Unauthorized, err.constructor.name);
      assert.equal(err.error.message, `Link does not belong to workspace ${relink.workspace.id}.`);
    }
    assert.equal((await otherDub.links.get({ linkId: theirs.id })).url, "https://theirs.example.com");
  });
});
