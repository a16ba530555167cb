// Test harness for the SDK suite: the shared server harness
// (../lib/relink-server.mjs) plus a Dub client on the API origin.
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

import { Dub } from "dub";

import { startServer } from "../lib/relink-server.mjs";

/**
 * Starts a server. Options:
 *   workspace: { name, slug, plan } of the first workspace (default Acme/acme/advanced)
 *   env: extra RELINK_* variables for the server and the CLI
 * Returns the shared harness's handle (apiURL, appURL, apiKey, workspace,
 * cli, logs, stop) plus:
 *   dub(opts)                 a Dub client on the API origin with apiKey (opts override)
 *   createWorkspace(w)        runs `relink workspace create` → { workspace, apiKey }
 */
export async function startRelink(opts = {}) {
  const { name, slug, plan } = opts.workspace ?? {};
  const relink = await startServer({ name: "sdk", workspace: { name, slug, plan }, env: opts.env });
  const createWorkspace = async ({ name = "Acme", slug = "acme", plan = "advanced" } = {}) => {
    const r = await relink.cli(["workspace", "create", "--name", name, "--slug", slug, "--plan", plan]);
    if (r.code !== 0) throw new Error(`relink workspace create failed (${r.code}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  return {
    ...relink,
    dub: (o = {}) => new Dub({ token: relink.apiKey, serverURL: relink.apiURL, ...o }),
    createWorkspace,
  };
}
