// Harness for the browser suite: builds the relink binary, starts
// `relink serve` on free ports with a temporary SQLite database and a
// workspace (with an owner who can sign in) made by the CLI, launches
// headless Chromium (/usr/bin/chromium through playwright-core), and stops
// everything when the tests end. The server start is the shared
// ../lib/relink-server.mjs.
//
// Set RELINK_BROWSER_VERBOSE=1 to see the server's log on stderr.

import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

import { launchChromium } from "../lib/browser.mjs";
import { startServer } from "../lib/relink-server.mjs";

export { eventually } from "../lib/relink-server.mjs";

/** Where screenshots go (gitignored). */
export const artifacts = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
mkdirSync(artifacts, { recursive: true });

export const OWNER_EMAIL = "owner@acme.test";
export const OWNER_PASSWORD = "correct horse battery";

/**
 * Starts a server with a Business-plan workspace owned by OWNER_EMAIL
 * (opts.workspace.plan picks another plan). opts.env adds RELINK_* variables. Returns { appURL, apiURL, apiKey, cli, logs, stop }.
 */
export async function startRelink(opts = {}) {
  return startServer({
    name: "browser",
    workspace: { plan: opts.workspace?.plan ?? "business", args: ["--owner-email", OWNER_EMAIL, "--owner-password", OWNER_PASSWORD] },
    env: { RELINK_CLICK_FLUSH_INTERVAL: "200ms", ...opts.env },
  });
}

/** Headless Chromium with the suites' deadlines (../lib/browser.mjs). */
export const launchBrowser = () => launchChromium(chromium);

/** Signs in through the form on a fresh page of ctx. */
export async function signIn(page, appURL, email = OWNER_EMAIL, password = OWNER_PASSWORD) {
  await page.goto(`${appURL}/console/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await Promise.all([page.waitForURL(`${appURL}/console`), page.click('[data-testid="login-submit"]')]);
}

// submit runs action (a click that submits a form) and waits for the page
// it leads to. page.waitForURL alone resolves at once when the page is
// already at a matching URL, as it is for a form that redirects back to its
// own page, and the test would then read the old page; so the wait is first
// for the next main-frame navigation to commit, then for url and its load.
export async function submit(page, url, action) {
  const navigated = page.waitForEvent("framenavigated", { predicate: (f) => f === page.mainFrame() });
  await action();
  await navigated;
  await page.waitForURL(url);
}

// runImport starts an import with the button and waits for that run's
// report. The page shows the workspace's last run (data-state="done")
// until htmx swaps in the new run's fragment, so the old fragment is
// marked first and only a fragment without the mark counts.
export async function runImport(page, button, timeout = 30000) {
  await page.evaluate(() => document.getElementById("import-progress")?.setAttribute("data-stale", ""));
  await page.click(button);
  await page.waitForSelector('[data-testid="import-progress"][data-state="done"]:not([data-stale])', { timeout });
}

/** Saves a full-page screenshot as artifacts/NAME.png. */
export async function shot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}
