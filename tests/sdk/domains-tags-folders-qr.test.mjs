// Domains, tags, folders and QR codes through the official SDK (spec/links.md
// §6-9): success statuses (201 on create) and shapes the SDK validates.
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

describe("domains", () => {
  test("create, list, update, delete", async () => {
    const d = await dub.domains.create({ slug: "brand.link", notFoundUrl: "https://brand.com/404", placeholder: "https://brand.com" });
    assert.match(d.id, /^dom_/);
    assert.equal(d.slug, "brand.link");
    assert.equal(d.primary, true);
    assert.equal(d.notFoundUrl, "https://brand.com/404");
    assert.equal(d.registeredDomain, null);
    await dub.domains.create({ slug: "second.link", archived: true });

    const active = await dub.domains.list();
    assert.deepEqual(active.result.map((x) => x.slug), ["brand.link"]);
    const archived = await dub.domains.list({ archived: true });
    assert.deepEqual(archived.result.map((x) => x.slug), ["second.link"]);

    const u = await dub.domains.update("second.link", { expiredUrl: "https://brand.com/expired" });
    assert.equal(u.archived, false, "the SDK sends archived:false by default, which unarchives");
    assert.equal(u.expiredUrl, "https://brand.com/expired");
    const renamed = await dub.domains.update("second.link", { slug: "third.link" });
    assert.equal(renamed.slug, "third.link");

    assert.deepEqual(await dub.domains.delete("third.link"), { slug: "third.link" });
    const err = await rejects(() => dub.domains.delete("third.link"));
    assert.ok(err instanceof errors.NotFound, err.constructor.name);
    const taken = await rejects(() => dub.domains.create({ slug: "brand.link" }));
    assert.ok(taken instanceof errors.Conflict, taken.constructor.name);
  });
});

describe("tags", () => {
  test("create (201), list, update, delete", async () => {
    const t = await dub.tags.create({ name: "Alpha", color: "purple" });
    assert.match(t.id, /^tag_/);
    assert.deepEqual({ name: t.name, color: t.color }, { name: "Alpha", color: "purple" });
    const b = await dub.tags.create({ name: "beta" });
    assert.ok(["red", "yellow", "green", "blue", "purple", "brown", "gray"].includes(b.color));
    const list = await dub.tags.list();
    assert.deepEqual(list.map((x) => x.name), ["Alpha", "beta"]);
    const desc = await dub.tags.list({ sortBy: "createdAt", sortOrder: "desc" });
    assert.deepEqual(desc.map((x) => x.name), ["beta", "Alpha"]);
    const u = await dub.tags.update(t.id, { name: "Alpha 2", color: "pink" });
    assert.deepEqual({ name: u.name, color: u.color }, { name: "Alpha 2", color: "pink" });
    assert.deepEqual(await dub.tags.delete(b.id), { id: b.id });
    const dup = await rejects(() => dub.tags.create({ name: "ALPHA 2" }));
    assert.ok(dup instanceof errors.Conflict, dup.constructor.name);
  });
});

describe("folders", () => {
  test("create (201), list, update, delete", async () => {
    const f = await dub.folders.create({ name: "Q3", description: "launch" });
    assert.match(f.id, /^fold_/);
    assert.equal(f.type, "default");
    assert.equal(f.accessLevel, "write");
    await dub.folders.create({ name: "Q4", accessLevel: "read" });
    const list = await dub.folders.list();
    assert.deepEqual(list.map((x) => x.name), ["Q3", "Q4"]);
    const u = await dub.folders.update(f.id, { name: "Q3b", description: null });
    assert.equal(u.name, "Q3b");
    assert.equal(u.description, null);
    assert.deepEqual(await dub.folders.delete(f.id), { id: f.id });

    const free = await relink.createWorkspace({ name: "Free", slug: "free", plan: "free" });
    const err = await rejects(() => relink.dub({ token: free.apiKey }).folders.create({ name: "x" }));
    assert.ok(err instanceof errors.Forbidden, err.constructor.name);
    assert.equal(err.error.message, "Unauthorized: Need higher plan.");
  });
});

describe("QR codes", () => {
  test("get returns a PNG", async () => {
    const link = await dub.links.create({ url: "https://qr.example.com" });
    const png = await dub.qrCodes.get({ url: link.shortLink + "?qr=1", size: 300, level: "Q", fgColor: "#222222" });
    assert.equal(typeof png, "string");
    assert.ok(png.includes("PNG"), "PNG signature");
    // And the raw bytes are a size×size PNG.
    const res = await fetch(`${relink.apiURL}/qr?url=${encodeURIComponent(link.qrCode.split("url=")[1])}&size=300`);
    assert.equal(res.headers.get("content-type"), "image/png");
    const buf = Buffer.from(await res.arrayBuffer());
    assert.equal(buf.readUInt32BE(16), 300);
    assert.equal(buf.readUInt32BE(20), 300);
    const bad = await rejects(() => dub.qrCodes.get({ url: "not a url" }));
    assert.ok(bad instanceof errors.UnprocessableEntity, bad.constructor.name);
  });
});
