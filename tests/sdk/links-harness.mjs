// Self-contained server harness for the links/domains/tags/folders/QR SDK
// tests. It mirrors the shared harness being built on the foundation-tests
// branch (tests/sdk/relink.mjs, same startRelink API); once that lands on
// main these test files can import it instead and this file can go.
//
// It builds ./cmd/relink, creates a workspace with `relink workspace create`
// on a temporary SQLite database, starts `relink serve` on free ports and
// stops it (SIGTERM) when the tests end.

import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Dub } from "dub";

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let binary;
function build() {
  binary ??= (async () => {
    const bin = join(mkdtempSync(join(tmpdir(), "relink-links-bin-")), "relink");
    await run("go", ["build", "-o", bin, "./cmd/relink"], { cwd: repoRoot, maxBuffer: 16 << 20 });
    return bin;
  })();
  return binary;
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

const children = new Set();
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

/**
 * startRelink({ plan }) → { apiURL, appURL, apiKey, workspace, dub(), createWorkspace(), stop() }
 */
export async function startRelink({ plan = "advanced" } = {}) {
  const bin = await build();
  const dir = mkdtempSync(join(tmpdir(), "relink-links-sdk-"));
  const [appPort, apiPort] = [await freePort(), await freePort()];
  const appURL = `http://localhost:${appPort}`;
  const apiURL = `http://localhost:${apiPort}`;
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("RELINK_") && !k.startsWith("DUB_")) env[k] = v;
  }
  Object.assign(env, {
    RELINK_DATABASE_URL: `sqlite:${join(dir, "relink.db")}`,
    RELINK_APP_URL: appURL,
    RELINK_API_URL: apiURL,
  });
  const createWorkspace = async ({ name = "Acme", slug = "acme", plan: p = plan } = {}) => {
    const { stdout } = await run(bin, ["workspace", "create", "--name", name, "--slug", slug, "--plan", p], { env, cwd: dir });
    return JSON.parse(stdout);
  };
  const first = await createWorkspace();
  const child = spawn(bin, ["serve"], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let log = "";
  child.stdout.on("data", (c) => (log += c));
  child.stderr.on("data", (c) => (log += c));
  const exited = new Promise((res) => child.once("exit", () => { children.delete(child); res(); }));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30000;
  for (const port of [apiPort, appPort]) {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {
        // not up yet
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`relink serve did not start:\n${log}`);
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
    logs: () => log,
    stop,
  };
}
