// Folder permissions through the dub SDK (issue 13 item 8, spec/parity.md §13):
// a member's key acts as the member, so folders.list shows only the folders
// they may see, and links/folders calls on folders they may not read or
// change fail as the SDK's Forbidden error with upstream's message; bulk
// answers carry the per-item errors; a departed member's key is NotFound.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Dub } from "dub";
import * as errors from "dub/models/errors";

import { startServer } from "../lib/relink-server.mjs";

const OWNER = { email: "owner@acme.test", password: "correct horse battery" };
const FORBIDDEN = "You are not allowed to perform this action on this folder.";

async function rejects(fn) {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  assert.fail("expected the call to fail");
}

/** A console session over fetch: a cookie jar and the last page's CSRF token. */
function consoleSession(appURL) {
  const jar = new Map();
  let csrf = "";
  const send = async (method, path, form) => {
    const r = await fetch(path.startsWith("http") ? path : `${appURL}${path}`, {
      method, redirect: "manual",
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "), ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: form ? new URLSearchParams({ _csrf: csrf, ...form }) : undefined,
    });
    for (const c of r.headers.getSetCookie()) {
      const [kv] = c.split(";");
      const i = kv.indexOf("=");
      jar.set(kv.slice(0, i), kv.slice(i + 1));
    }
    const text = await r.text();
    const m = text.match(/name="_csrf" value="([^"]+)"/);
    if (m) csrf = m[1];
    return { status: r.status, text };
  };
  return { get: (p) => send("GET", p), post: (p, form) => send("POST", p, form) };
}

describe("folder permissions through the SDK", () => {
  let relink, owner, mia, miaKey;
  before(async () => {
    relink = await startServer({ name: "sdk-folders", workspace: { plan: "business", args: ["--owner-email", OWNER.email, "--owner-password", OWNER.password] } });
    owner = new Dub({ token: relink.apiKey, serverURL: relink.apiURL });
    // The owner invites Mia in the console; Mia joins and makes her own key.
    const o = consoleSession(relink.appURL);
    await o.get("/console/login");
    await o.post("/console/login", OWNER);
    await o.get("/console/settings/members");
    const invite = await o.post("/console/settings/members/invite", { email: "mia@acme.test", role: "member" });
    const link = invite.text.match(/data-testid="invite-link"[^>]*>([^<]+)</)[1].trim();
    const m = consoleSession(relink.appURL);
    await m.get(link);
    await m.post(new URL(link).pathname, { password: "mia's long password" });
    await m.get("/console/settings/keys");
    const made = await m.post("/console/settings/keys", { name: "mia's key" });
    miaKey = made.text.match(/dub_[0-9A-Za-z]{24}/)[0];
    mia = new Dub({ token: miaKey, serverURL: relink.apiURL });
  });
  after(() => relink?.stop());

  test("folders and links by folder role", async () => {
    const open = await owner.folders.create({ name: "Open", accessLevel: "write" });
    const readOnly = await owner.folders.create({ name: "Read only", accessLevel: "read" });
    const secret = await owner.folders.create({ name: "Secret", accessLevel: null });
    assert.equal(secret.accessLevel, null);
    const inRead = await owner.links.create({ url: "https://example.com/read", key: "sdk-read", folderId: readOnly.id });
    const inSecret = await owner.links.create({ url: "https://example.com/secret", key: "sdk-secret", folderId: secret.id });

    assert.deepEqual((await mia.folders.list()).map((f) => f.name).sort(), ["Open", "Read only"]);
    assert.deepEqual((await owner.folders.list()).map((f) => f.name).sort(), ["Open", "Read only", "Secret"]);

    const forbidden = async (what, fn) => {
      const err = await rejects(fn);
      assert.ok(err instanceof errors.Forbidden, `${what}: got ${err?.name}: ${err?.message}`);
      assert.equal(err.error.code, "forbidden", what);
      assert.equal(err.error.message, FORBIDDEN, what);
    };
    await forbidden("links.get in a private folder", () => mia.links.get({ linkId: inSecret.id }));
    await forbidden("links.update in a read-only folder", () => mia.links.update(inRead.id, { title: "x" }));
    await forbidden("links.delete in a read-only folder", () => mia.links.delete(inRead.id));
    await forbidden("links.create into a read-only folder", () => mia.links.create({ url: "https://example.com/n", folderId: readOnly.id }));
    await forbidden("links.upsert of a read-only folder's link", () => mia.links.upsert({ url: "https://example.com/read", title: "x" }));
    await forbidden("links.list of a private folder", () => mia.links.list({ folderId: secret.id }));
    await forbidden("links.count of a private folder", () => mia.links.count({ folderId: secret.id }));
    await forbidden("folders.update by an editor", () => mia.folders.update(open.id, { name: "Mine" }));
    await forbidden("folders.delete by an editor", () => mia.folders.delete(open.id));
    await forbidden("analytics.retrieve of a private folder", () => mia.analytics.retrieve({ folderId: secret.id }));

    // Reading a read-only folder's link works; writing to the open one too.
    assert.equal((await mia.links.get({ linkId: inRead.id })).folderId, readOnly.id);
    const made = await mia.links.create({ url: "https://example.com/open", folderId: open.id });
    assert.equal(made.folderId, open.id);
    const listed = (await mia.links.list({ search: "example.com" })).result;
    assert.ok(!listed.some((l) => l.id === inSecret.id), "the private folder's link is not listed");
    assert.ok(listed.some((l) => l.id === inRead.id));

    // Bulk create: the per-item error as Dub words it (a LinkError in the SDK's union).
    const bulk = await mia.links.createMany([{ url: "https://example.com/b1", folderId: readOnly.id }, { url: "https://example.com/b2" }]);
    assert.equal(bulk.length, 2);
    assert.equal(bulk[0].url, "https://example.com/b2");
    assert.equal(bulk[1].code, "forbidden");
    assert.equal(bulk[1].error, `You don't have write access to the folder: ${readOnly.id}`);
    // Bulk delete skips the read-only folder's link.
    const del = await mia.links.deleteMany({ linkIds: [inRead.id, made.id] });
    assert.equal(del.deletedCount, 1);
    assert.equal((await owner.links.get({ linkId: inRead.id })).id, inRead.id);
  });

  test("a member who left: the key is refused", async () => {
    const o = consoleSession(relink.appURL);
    await o.get("/console/login");
    await o.post("/console/login", OWNER);
    const page = await o.get("/console/settings/members");
    const userID = page.text.match(/\/console\/settings\/members\/(user_[^/"]+)\/remove/)[1];
    const removed = await o.post(`/console/settings/members/${userID}/remove`, {});
    assert.ok(removed.status < 400, `remove: ${removed.status}`);
    const err = await rejects(() => mia.folders.list());
    assert.ok(err instanceof errors.NotFound, `got ${err?.name}: ${err?.message}`);
    assert.equal(err.error.message, "Workspace not found.");
  });
});
