// Harness for the embed browser suite: builds the relink binary, starts
// `relink serve` on free ports with a temporary SQLite database and an
// Advanced workspace made by the CLI, serves host pages from another origin
// (a tiny static server on its own port), launches headless Chromium
// (/usr/bin/chromium through playwright-core), and cleans everything up when
// the tests end. The server start is the shared ../lib/relink-server.mjs.
//
// Set RELINK_EMBED_VERBOSE=1 to see the server's log on stderr.

import { mkdirSync } from "node:fs";
import { createServer as createHTTPServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

import { launchChromium } from "../lib/browser.mjs";
import { startServer } from "../lib/relink-server.mjs";

/** Where screenshots go (gitignored by /tests/*\/artifacts/). */
export const artifacts = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
mkdirSync(artifacts, { recursive: true });

/**
 * Starts relink with an Advanced workspace "acme". Returns
 * { appURL, apiURL, apiKey, dbPath, cli, api, logs, stop }; cli(args)
 * resolves to stdout and throws when the command fails.
 */
export async function startRelink() {
  const relink = await startServer({
    name: "embed",
    env: { RELINK_CLICK_FLUSH_INTERVAL: "100ms", RELINK_CLICK_DEDUP_WINDOW: "0" },
  });
  const cli = async (args) => {
    const r = await relink.cli(args);
    if (r.code !== 0) throw new Error(`relink ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  };

  /** Calls the JSON API with the workspace key; throws unless status matches. */
  const api = async (method, path, body, status = 200) => {
    const res = await fetch(relink.apiURL + path, {
      method,
      headers: { Authorization: `Bearer ${relink.apiKey}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };

  return { ...relink, cli, api };
}

/**
 * Serves host pages on another origin (127.0.0.1:PORT): GET /host?… renders
 * hostPage(query). Returns { origin, stop }.
 */
export async function startHost(hostPage) {
  const srv = createHTTPServer((req, res) => {
    const u = new URL(req.url, "http://127.0.0.1");
    if (u.pathname !== "/host") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(hostPage(u.searchParams));
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { origin: `http://127.0.0.1:${srv.address().port}`, stop: () => new Promise((r) => srv.close(r)) };
}

/** Headless Chromium with the suites' deadlines (../lib/browser.mjs). */
export const launchBrowser = () => launchChromium(chromium);

/**
 * Retries fn until it returns a truthy value or the time is up. The default
 * minute only stops a condition that never comes: under make test's load a
 * write the test waits for can take longer than the 10 s it had.
 */
export async function eventually(fn, { timeout = 60000, interval = 100, what = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
    } catch (err) {
      last = String(err);
    }
    if (last === true || (last && typeof last !== "string")) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

export async function shot(page, name, { fullPage = true } = {}) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage });
}
