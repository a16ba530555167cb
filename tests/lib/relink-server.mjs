// Starts the real relink binary for the Node suites (tests/sdk,
// tests/browser, tests/embed): builds ./cmd/relink once per process, picks
// free ports, creates the first workspace with the CLI on a temporary SQLite
// database, runs `relink serve` and waits for /healthz on both origins.
// Node built-ins only, so every suite can import it whatever its packages.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository root (tests/lib/../..). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let binaryPromise;
/**
 * Builds ./cmd/relink once per process into a temporary directory keyed by
 * the checkout (go build leaves an up-to-date binary untouched, so later
 * test files only pay for the up-to-date check).
 */
export function buildBinary() {
  // `make test` builds the binary once (RELINK_TEST_BIN) before it runs the
  // suites side by side, so they never write one file at the same time.
  if (process.env.RELINK_TEST_BIN) return Promise.resolve(process.env.RELINK_TEST_BIN);
  binaryPromise ??= (async () => {
    const key = createHash("sha256").update(repoRoot).digest("hex").slice(0, 12);
    const dir = join(tmpdir(), `relink-test-bin-${process.getuid?.() ?? "u"}-${key}`);
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

// Ports handed out by freePort in this process: never twice.
const givenPorts = new Set();

/**
 * A TCP port free on 127.0.0.1 right now, for a server this process starts.
 * Picked at random below the kernel's ephemeral range (32768–60999), where
 * outgoing connections (to PostgreSQL, Redis, the browser's) never take it
 * between this check and the server's bind, as internal/freeport does for
 * the Go tests; never the same port twice in one process.
 */
export async function freePort() {
  for (let tries = 0; tries < 1000; tries++) {
    const port = 20000 + Math.floor(Math.random() * (32768 - 20000));
    if (givenPorts.has(port)) continue;
    const free = await new Promise((res) => {
      const srv = createServer();
      srv.unref();
      srv.once("error", () => res(false));
      srv.listen(port, "127.0.0.1", () => srv.close(() => res(true)));
    });
    if (free) {
      givenPorts.add(port);
      return port;
    }
  }
  throw new Error("freePort: no free port in [20000, 32768) after 1000 tries");
}

// Every child still running is killed, and every temporary directory
// removed, when this process exits, however it exits, so a failing suite
// leaves no server or database behind.
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
  process.on(sig, () => {
    cleanup();
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 })[sig]);
  });
}

/** The environment without the caller's RELINK_* and DUB_* variables. */
function cleanEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("RELINK_") && !k.startsWith("DUB_")) env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Starts a server. Options:
 *   workspace: extra arguments of `relink workspace create` for the first
 *              workspace (after --name/--slug/--plan, which default to
 *              Acme/acme/advanced; override with name, slug, plan)
 *   env:       extra RELINK_* variables for the server and the CLI
 *   name:      a label for temporary directories; RELINK_<NAME>_VERBOSE=1
 *              echoes the server's log
 * Returns { appURL, apiURL, apiKey, workspace, dbPath, cli, logs, stop }:
 *   cli(args) runs the binary with the server's environment and resolves to
 *   { code, stdout, stderr }; stop() sends SIGTERM, waits, cleans up.
 */
export async function startServer(opts = {}) {
  // The ports are free when picked and taken when the server binds them; in
  // between, another suite running beside this one (make test starts them
  // all at once) can take one. Then the whole start is done again with new
  // ports, a new directory and a new workspace.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(opts);
    } catch (err) {
      if (attempt >= 4 || !/address already in use/.test(String(err?.message))) throw err;
    }
  }
}

async function startServerOnce({ name = "relink", workspace = {}, env: extraEnv = {} } = {}) {
  const bin = await buildBinary();
  const dir = mkdtempSync(join(tmpdir(), `relink-${name}-`));
  tempDirs.add(dir);
  const [appPort, apiPort] = [await freePort(), await freePort()];
  const appURL = `http://localhost:${appPort}`;
  const apiURL = `http://localhost:${apiPort}`;
  const dbPath = join(dir, "relink.db");
  const env = cleanEnv({
    RELINK_DATABASE_URL: `sqlite:${dbPath}`,
    RELINK_APP_URL: appURL,
    RELINK_API_URL: apiURL,
    ...extraEnv,
  });
  const removeDir = () => {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  };

  const cli = async (args) => {
    try {
      const { stdout, stderr } = await run(bin, args, { env, cwd: dir });
      return { code: 0, stdout, stderr };
    } catch (err) {
      if (typeof err.code !== "number") throw err;
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
  const { name: wsName = "Acme", slug = "acme", plan = "advanced", args: wsArgs = [] } = workspace;
  const created = await cli(["workspace", "create", "--name", wsName, "--slug", slug, "--plan", plan, ...wsArgs]);
  if (created.code !== 0) {
    removeDir();
    throw new Error(`relink workspace create failed (${created.code}): ${created.stderr}`);
  }
  const first = JSON.parse(created.stdout);

  const child = spawn(bin, ["serve"], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let log = "";
  const verbose = process.env[`RELINK_${name.toUpperCase()}_VERBOSE`];
  const collect = (chunk) => {
    log += chunk;
    if (verbose) process.stderr.write(chunk);
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
    removeDir();
  };

  // Wait until /healthz answers on both ports, or the server dies. The
  // deadline only stops a test whose server never starts: with every suite
  // running at once beside other work (load average 50), a start took over
  // 30 s.
  const startTimeout = 90000;
  const deadline = Date.now() + startTimeout;
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
        throw new Error(`relink serve did not answer /healthz on ${port} within ${startTimeout / 1000}s:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  return { appURL, apiURL, apiKey: first.apiKey, workspace: first.workspace, dbPath, cli, logs: () => log, stop };
}

/**
 * Retries fn until it returns a truthy value or the time is up. The default
 * minute only stops a condition that never comes: under make test's load a
 * write the test waits for can take longer than the 10 s it had.
 */
export async function eventually(fn, { timeout = 60000, interval = 200, what = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}
