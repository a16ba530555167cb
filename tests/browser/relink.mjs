// Harness for the browser suite: builds the relink binary, starts
// `relink serve` on free ports with a temporary SQLite database and a
// workspace (with an owner who can sign in) made by the CLI, launches
// headless Chromium (/usr/bin/chromium through playwright-core), and stops
// everything when the tests end. The server-start approach follows
// tests/sdk/relink.mjs.
//
// Set RELINK_BROWSER_VERBOSE=1 to see the server's log on stderr.

import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { chromium } from "playwright-core";

const run = promisify(execFile);

/** The repository root (tests/browser/../..). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Where screenshots go (gitignored). */
export const artifacts = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
mkdirSync(artifacts, { recursive: true });

export const OWNER_EMAIL = "owner@acme.test";
export const OWNER_PASSWORD = "correct horse battery";

let binaryPromise;

/** Builds ./cmd/relink once per process. */
export function buildBinary() {
  binaryPromise ??= (async () => {
    const key = createHash("sha256").update(repoRoot).digest("hex").slice(0, 12);
    const dir = join(tmpdir(), `relink-browser-bin-${process.getuid?.() ?? "u"}-${key}`);
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

/** A TCP port that was free a moment ago. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

// Children and temporary directories are cleaned up however the process exits.
const children = new Set();
const tempDirs = new Set();
function cleanup() {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
}
process.on("exit", cleanup);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(sig, () => {
    cleanup();
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 })[sig]);
  });
}

function cleanEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("RELINK_") && !k.startsWith("DUB_")) env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Starts a server with a Business-plan workspace owned by OWNER_EMAIL.
 * opts.env adds RELINK_* variables. Returns { appURL, apiURL, apiKey, cli, logs, stop }.
 */
export async function startRelink(opts = {}) {
  const bin = await buildBinary();
  const dir = mkdtempSync(join(tmpdir(), "relink-browser-"));
  tempDirs.add(dir);
  const [appPort, apiPort] = [await freePort(), await freePort()];
  const appURL = `http://localhost:${appPort}`;
  const apiURL = `http://localhost:${apiPort}`;
  const env = cleanEnv({
    RELINK_DATABASE_URL: `sqlite:${join(dir, "relink.db")}`,
    RELINK_APP_URL: appURL,
    RELINK_API_URL: apiURL,
    RELINK_CLICK_FLUSH_INTERVAL: "200ms",
    ...opts.env,
  });
  const cli = async (args) => {
    try {
      const { stdout, stderr } = await run(bin, args, { env, cwd: dir });
      return { code: 0, stdout, stderr };
    } catch (err) {
      if (typeof err.code !== "number") throw err;
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
  const r = await cli(["workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "business",
    "--owner-email", OWNER_EMAIL, "--owner-password", OWNER_PASSWORD]);
  if (r.code !== 0) throw new Error(`relink workspace create failed (${r.code}): ${r.stderr}`);
  const first = JSON.parse(r.stdout);

  const child = spawn(bin, ["serve"], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let log = "";
  const collect = (chunk) => {
    log += chunk;
    if (process.env.RELINK_BROWSER_VERBOSE) process.stderr.write(chunk);
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
      if (dead) {
        await stop();
        throw new Error(`relink serve exited (${JSON.stringify(dead)}) before answering:\n${log}`);
      }
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`relink serve did not answer /healthz on ${port} within 30s:\n${log}`);
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  return { appURL, apiURL, apiKey: first.apiKey, workspace: first.workspace, cli, logs: () => log, stop };
}

/**
 * Launches headless Chromium. Playwright gives every launch a fresh,
 * temporary user-data-dir, so no state leaks between runs.
 */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

/** Signs in through the form on a fresh page of ctx. */
export async function signIn(page, appURL, email = OWNER_EMAIL, password = OWNER_PASSWORD) {
  await page.goto(`${appURL}/console/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await Promise.all([page.waitForURL(`${appURL}/console`), page.click('[data-testid="login-submit"]')]);
}

/** Saves a full-page screenshot as artifacts/NAME.png. */
export async function shot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/** Retries fn until it returns a truthy value or the time is up. */
export async function eventually(fn, { timeout = 10000, interval = 200, what = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}
