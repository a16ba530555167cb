// The SDK's typed errors against a live Relink (issue 2, item 15): the
// error envelope must parse into the SDK's own error classes.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Dub } from "dub";
import { HTTPClient } from "dub/lib/http.js";
import * as errors from "dub/models/errors";

import { startRelink } from "./relink.mjs";

let relink;
before(async () => {
  relink = await startRelink();
});
after(() => relink?.stop());

/** Runs fn, which must throw; returns the error. */
async function rejects(fn) {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  assert.fail("the call succeeded, want an error");
}

/**
 * An SDK client whose requests carry the given Authorization header (null:
 * none). The SDK insists on a token and always sends it as Bearer, so a
 * request hook rewrites the header on the wire.
 */
function withAuthorization(serverURL, value) {
  const httpClient = new HTTPClient();
  httpClient.addHook("beforeRequest", (req) => {
    const r = new Request(req);
    if (value === null) r.headers.delete("authorization");
    else r.headers.set("authorization", value);
    return r;
  });
  return new Dub({ token: "dub_placeholder", serverURL, httpClient });
}

const docURL = (anchor) => `https://dub.co/docs/api-reference/errors#${anchor}`;

describe("authentication errors through the SDK", () => {
  test("a bad key is Unauthorized with code unauthorized", async () => {
    for (const serverURL of [relink.apiURL, `${relink.appURL}/api`]) {
      const dub = new Dub({ token: "dub_000000000000000000000000", serverURL });
      const err = await rejects(() => dub.links.list());
      assert.ok(err instanceof errors.Unauthorized, `${serverURL}: got ${err?.name}: ${err?.message}`);
      assert.equal(err.statusCode, 401);
      assert.equal(err.error.code, "unauthorized");
      assert.equal(err.error.message, "Unauthorized: Invalid API key.");
      assert.equal(err.error.docUrl, docURL("unauthorized"));
      assert.match(err.contentType, /^application\/json/);
      // Credential failures come before the rate limiter: no budget headers.
      assert.equal(err.headers.get("x-ratelimit-limit"), null);
    }
  });

  test("no Authorization header is Unauthorized", async () => {
    const dub = withAuthorization(relink.apiURL, null);
    const err = await rejects(() => dub.links.list());
    assert.ok(err instanceof errors.Unauthorized, `got ${err?.name}: ${err?.message}`);
    assert.equal(err.error.code, "unauthorized");
    assert.equal(err.error.message, "Missing Authorization header.");
  });

  test("an Authorization header without Bearer is BadRequest", async () => {
    const dub = withAuthorization(relink.apiURL, "Token x");
    const err = await rejects(() => dub.links.list());
    assert.ok(err instanceof errors.BadRequest, `got ${err?.name}: ${err?.message}`);
    assert.equal(err.statusCode, 400);
    assert.equal(err.error.code, "bad_request");
    assert.equal(
      err.error.message,
      "Misconfigured authorization header. Did you forget to add 'Bearer '? Learn more: https://d.to/auth",
    );
    assert.equal(err.error.docUrl, docURL("bad-request"));
  });

  test("a token that is not a dub_ workspace key is NotFound", async () => {
    const dub = new Dub({ token: "personal-token", serverURL: relink.apiURL });
    const err = await rejects(() => dub.links.list());
    assert.ok(err instanceof errors.NotFound, `got ${err?.name}: ${err?.message}`);
    assert.equal(err.error.code, "not_found");
    assert.match(err.error.message, /^Workspace ID not found\./);
  });
});

describe("workspaces by path", () => {
  const get = (path, token = relink.apiKey) =>
    fetch(`${relink.apiURL}${path}`, { headers: { authorization: `Bearer ${token}` } });

  test("the key's own workspace, by slug or id", async () => {
    for (const sel of [relink.workspace.slug, relink.workspace.id]) {
      const res = await get(`/workspaces/${sel}`);
      assert.equal(res.status, 200, sel);
      const body = await res.json();
      assert.equal(body.id, relink.workspace.id);
      assert.equal(body.slug, relink.workspace.slug);
      assert.match(body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  test("an unknown or foreign workspace is a 404 in the exact envelope", async () => {
    const other = await relink.createWorkspace({ name: "Other", slug: "other-ws", plan: "pro" });
    for (const sel of ["no-such-workspace", "other-ws", other.workspace.id]) {
      const res = await get(`/workspaces/${sel}`);
      assert.equal(res.status, 404, sel);
      assert.match(res.headers.get("content-type"), /^application\/json/);
      assert.deepEqual(await res.json(), {
        error: { code: "not_found", message: "Workspace not found.", doc_url: docURL("not-found") },
      });
    }
    // The other workspace's own key does see it.
    const res = await get("/workspaces/other-ws", other.apiKey);
    assert.equal(res.status, 200);
  });

  test("an unknown API route with a valid key is a JSON 404", async () => {
    const res = await get("/no-such-endpoint");
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), {
      error: { code: "not_found", message: "The requested endpoint does not exist.", doc_url: docURL("not-found") },
    });
  });
});

describe("rate limits through the SDK", () => {
  test("the 61st request of a free workspace is RateLimitExceeded", async () => {
    const free = await relink.createWorkspace({ name: "Free", slug: "free-ws", plan: "free" });
    // The window slides (Upstash's approximation: the previous fixed
    // window's count, weighted by its overlap, plus the current one's), so
    // the 61st request is refused exactly when all 61 fall in one fixed
    // window. On a loaded runner 60 requests take ~15 s and may straddle a
    // window's end: then the previous window's requests count a little less
    // and a few more pass. Every response's X-RateLimit-Reset (the fixed
    // window's end) says which case this run is.
    const resets = [];
    const httpClient = new HTTPClient();
    httpClient.addHook("response", (res) => {
      resets.push(res.headers.get("x-ratelimit-reset"));
    });
    const dub = new Dub({ token: free.apiKey, serverURL: relink.apiURL, httpClient });
    for (let i = 1; i <= 60; i++) {
      try {
        await dub.links.list();
      } catch (err) {
        // Until GET /links exists this is a NotFound; it must never be a 429.
        assert.ok(!(err instanceof errors.RateLimitExceeded), `request ${i} was rate limited`);
      }
    }
    let err = await dub.links.list().then(() => null, (e) => e);
    if (new Set(resets).size === 1) {
      assert.ok(err, "the 61st request in one window succeeded, want RateLimitExceeded");
    } else {
      // Straddled: the limit still holds within a few more requests.
      for (let i = 62; i <= 80 && !err; i++) {
        err = await dub.links.list().then(() => null, (e) => e);
      }
      assert.ok(err, `no RateLimitExceeded by the 80th request (windows crossed: ${[...new Set(resets)]})`);
    }
    assert.ok(err instanceof errors.RateLimitExceeded, `got ${err?.name}: ${err?.message}`);
    assert.equal(err.statusCode, 429);
    assert.equal(err.error.code, "rate_limit_exceeded");
    assert.equal(err.error.message, "Too many requests.");
    assert.equal(err.headers.get("x-ratelimit-limit"), "60");
    assert.equal(err.headers.get("x-ratelimit-remaining"), "0");
    const reset = Number(err.headers.get("x-ratelimit-reset"));
    assert.ok(reset > Date.now() - 5000 && reset <= Date.now() + 61000, `X-RateLimit-Reset ${reset} is not a ms epoch within the minute`);
    const retryAfter = Number(err.headers.get("retry-after"));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.ok(Number(err.headers.get("retry-after-ms")) <= 60000);
  });
});
