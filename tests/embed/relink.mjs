// Harness for the embed browser suite: builds the relink binary, starts
// `relink serve` on free ports with a temporary SQLite database and an
// Advanced workspace made by the CLI, serves host pages from another origin
// (a tiny static server on its own port), launches headless Chromium
// (/usr/bin/chromium through playwright-core), and cleans everything up when
// the tests end. The server start follows tests/sdk/relink.mjs.
//
// Set RELINK_EMBED_VERBOSE=1 to see the server's log on stderr.

import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer as createHTTPServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { chromium } from "playwright-core";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

/** The repository root (tests/embed/../..). */
export const repoRoot = resolve(here, "../..");

/** Where screenshots go (gitignored by /tests/*\/artifacts/). */
export const artifacts = join(here, "artifacts");
mkdirSync(artifacts, { recursive: true });

let binaryPromise;
function buildBinary() {
  binaryPromise ??= (async () => {
    const key = createHash("sha256").update(repoRoot).digest("hex").slice(0, 12);
    const dir = join(tmpdir(), `relink-embed-bin-${process.getuid?.() ?? "u"}-${key}`);
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, "relink");
    try {
      await run("go", ["build", "-o", bin, "./cmd/relink"], { cwd: repoRoot, maxBuffer: 16 << 20 });
    } catch (err) {
      throw new Error(`go build ./cmd/relink failed:\n${err.stderr || err.message}`);
    }
    return bin;
  })();
  return binaryPromise;
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

const children = new Set();
const tempDirs = new Set();
function cleanup() {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {
      // gone
    }
  }
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
}
process.on("exit", cleanup);

function cleanEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("RELINK_") && !k.startsWith("DUB_")) env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Starts relink with an Advanced workspace "acme". Returns
 * { appURL, apiURL, apiKey, dbPath, cli, api, logs, stop }.
 */
export async function startRelink() {
  const bin = await buildBinary();
  const dir = mkdtempSync(join(tmpdir(), "relink-embed-"));
  tempDirs.add(dir);
  const [appPort, apiPort] = [await freePort(), await freePort()];
  const appURL = `http://localhost:${appPort}`;
  const apiURL = `http://localhost:${apiPort}`;
  const dbPath = join(dir, "relink.db");
  const env = cleanEnv({
    RELINK_DATABASE_URL: `sqlite:${dbPath}`,
    RELINK_APP_URL: appURL,
    RELINK_API_URL: apiURL,
    RELINK_CLICK_FLUSH_INTERVAL: "100ms",
    RELINK_CLICK_DEDUP_WINDOW: "0",
  });
  const cli = async (args) => {
    try {
      const { stdout } = await run(bin, args, { env, cwd: dir });
      return stdout;
    } catch (err) {
      throw new Error(`relink ${args.join(" ")} failed: ${err.stderr || err.message}`);
    }
  };
  const first = JSON.parse(await cli(["workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "advanced"]));

  const child = spawn(bin, ["serve"], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let log = "";
  const collect = (chunk) => {
    log += chunk;
    if (process.env.RELINK_EMBED_VERBOSE) process.stderr.write(chunk);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise((res) => child.once("exit", (code, signal) => {
    children.delete(child);
    res({ code, signal });
  }));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  };
  const deadline = Date.now() + 30000;
  let dead = null;
  exited.then((e) => { dead = e; });
  for (const port of [apiPort, appPort]) {
    for (;;) {
      if (dead) throw new Error(`relink serve exited (${JSON.stringify(dead)}):\n${log}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {
        // not yet
      }
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`relink serve did not answer on ${port}:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Calls the JSON API with the workspace key; throws unless status matches. */
  const api = async (method, path, body, status = 200) => {
    const res = await fetch(apiURL + path, {
      method,
      headers: { Authorization: `Bearer ${first.apiKey}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };

  return { appURL, apiURL, apiKey: first.apiKey, dbPath, cli, api, logs: () => log, stop };
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

/** Headless Chromium with a fresh profile per launch. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

/** Retries fn until it returns a truthy value or the time is up. */
export async function eventually(fn, { timeout = 10000, interval = 100, what = "condition" } = {}) {
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

export async function shot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}
