// Test harness for the SDK suite: builds the relink binary, starts
// `relink serve` on free ports with a temporary SQLite database and a
// workspace made by the CLI, and stops it when the tests end.
//
// Usage in a *.test.mjs file:
//
//   import { before, after, test } from "node:test";
//   import { startRelink } from "./relink.mjs";
//   let relink;
//   before(async () => { relink = await startRelink(); });
//   after(() => relink.stop());
//   test("...", async () => { const dub = relink.dub(); ... });
//
// Set RELINK_SDK_VERBOSE=1 to see the server's log on stderr.

import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Dub } from "dub";

const run = promisify(execFile);

/** The repository root (tests/sdk/../..). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let binaryPromise;

/**
 * Builds ./cmd/relink once per process into a temporary directory keyed by
 * the checkout (go build leaves an up-to-date binary untouched, so later
 * test files only pay for the up-to-date check).
 */
export function buildBinary() {
  binaryPromise ??= (async () => {
    const key = createHash("sha256").update(repoRoot).digest("hex").slice(0, 12);
    const dir = join(tmpdir(), `relink-sdk-bin-${process.getuid?.() ?? "u"}-${key}`);
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

// Every child still running is killed, and every temporary directory
// removed, when this process exits, however it exits, so a failing suite
// leaves no server or database behind.
const children = new Set();
const tempDirs = new Set();
function killChildren() {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
}
process.on("exit", killChildren);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(sig, () => {
    killChildren();
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 })[sig]);
  });
}

/** The environment without RELINK_* and DUB_* variables of the caller. */
function cleanEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("RELINK_") && !k.startsWith("DUB_")) env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Starts a server. Options:
 *   workspace: { name, slug, plan } of the first workspace (default Acme/acme/advanced)
 *   env: extra RELINK_* variables for the server and the CLI
 * Returns a handle:
 *   apiURL, appURL            origins (http://localhost:PORT)
 *   apiKey, workspace         the first workspace and its key, from the CLI
 *   dub(opts)                 a Dub client on the API origin with apiKey (opts override)
 *   createWorkspace(w)        runs `relink workspace create` → { workspace, apiKey }
 *   cli(args)                 runs the binary with the server's environment
 *   logs()                    the server's log so far
 *   stop()                    SIGTERM, wait, clean up (idempotent)
 */
export async function startRelink(opts = {}) {
  const bin = await buildBinary();
  const dir = mkdtempSync(join(tmpdir(), "relink-sdk-"));
  tempDirs.add(dir);
  const [appPort, apiPort] = [await freePort(), await freePort()];
  const appURL = `http://localhost:${appPort}`;
  const apiURL = `http://localhost:${apiPort}`;
  const env = cleanEnv({
    RELINK_DATABASE_URL: `sqlite:${join(dir, "relink.db")}`,
    RELINK_APP_URL: appURL,
    RELINK_API_URL: apiURL,
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
  const createWorkspace = async ({ name = "Acme", slug = "acme", plan = "advanced" } = {}) => {
    const r = await cli(["workspace", "create", "--name", name, "--slug", slug, "--plan", plan]);
    if (r.code !== 0) throw new Error(`relink workspace create failed (${r.code}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  let first;
  try {
    first = await createWorkspace(opts.workspace);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const child = spawn(bin, ["serve"], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let log = "";
  const collect = (chunk) => {
    log += chunk;
    if (process.env.RELINK_SDK_VERBOSE) process.stderr.write(chunk);
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

  // Wait until /healthz answers on both ports, or the server dies.
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
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  return {
    apiURL,
    appURL,
    apiKey: first.apiKey,
    workspace: first.workspace,
    dub: (o = {}) => new Dub({ token: first.apiKey, serverURL: apiURL, ...o }),
    createWorkspace,
    cli,
    logs: () => log,
    stop,
  };
}
