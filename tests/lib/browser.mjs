// The browser suites' one Chromium launch (tests/browser, tests/embed).
//
// Playwright's own defaults give a navigation or an action 30 s. make test
// starts every suite at once beside the Go tests, and on a two-core machine
// under that load (load average above 30) a page that loads an iframe took
// longer than that to fire "load": every test of tests/embed failed at its
// first page.goto in one CI run (2026-11-29) and passed in the next. The
// deadline only stops a test that would never pass, so every context gets
// TIMEOUT_MS instead; a real hang still fails.
//
// What a browser operation costs here (2026-11-29, a quiet two-core machine,
// the machine's busy CPU-seconds per operation): a launch 2.8, a new context
// with its first page 1.1, a new page in a context 0.5, a navigation in an
// open page 0.1 (a console page 0.2–0.3, the embedded dashboard on its host
// page 1.0), a console sign-in 2.3. Chromium spends much of it starting
// renderer processes. Site isolation is off: a cross-site iframe (the
// embedded dashboard on its host page) runs in its host's renderer instead
// of a new process per navigation, and a navigation to another site keeps
// its process. That halved the dashboard's navigation (1.0 → 0.5) and took
// the embed suite from 322–395 to 236 busy CPU-s. The pages see the same web
// platform (origins, the same-origin policy, postMessage); only Chromium's
// process model differs. (Recycling contexts between tests instead of
// making new ones saved nothing once site isolation was off.) Each test
// file prints what it asked of Chromium when it ends ("# chromium: …").
//
// Chromium keeps only the last --disable-features it is given, so the list
// below must carry Playwright's own (playwright-core's chromiumSwitches:
// Translate, PaintHolding, RenderDocument, MediaRouter, …): passed alone it
// switched them all back on. Restoring them took the console suite from
// 262 to 242 busy CPU-s and demo.test.mjs from 79–84 to 64–70
// (2026-11-30, a quiet two-core machine; docs/testing.md).

import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export const TIMEOUT_MS = 120000;

/** The features the suites turn off besides Playwright's: site isolation's. */
const OWN_DISABLED = ["site-per-process", "IsolateOrigins", "ProactivelySwapBrowsingInstance", "BackForwardCache"];

/**
 * Playwright's --disable-features list, read from the suite's own
 * playwright-core (resolved from the suite's directory, where npm test
 * runs). Throws when its layout changed, rather than silently launching
 * Chromium with those features on.
 */
export function playwrightDisabledFeatures() {
  const require = createRequire(join(process.cwd(), "package.json"));
  const root = dirname(require.resolve("playwright-core/package.json"));
  const { chromiumSwitches } = require(join(root, "lib/server/chromium/chromiumSwitches.js"));
  const arg = chromiumSwitches(false).find((a) => a.startsWith("--disable-features="));
  if (!arg) throw new Error("playwright-core's chromiumSwitches has no --disable-features: update tests/lib/browser.mjs");
  return arg.slice("--disable-features=".length).split(",").filter(Boolean);
}

/** A context (or a page's context) with the suites' deadlines. */
function patient(ctx) {
  ctx.setDefaultTimeout(TIMEOUT_MS);
  ctx.setDefaultNavigationTimeout(TIMEOUT_MS);
  return ctx;
}

/**
 * Launches headless Chromium (/usr/bin/chromium, or CHROMIUM_PATH) through
 * the suite's own playwright-core `chromium`. Playwright gives every launch a
 * fresh, temporary user-data-dir, so no state leaks between runs. Contexts
 * and pages it makes get TIMEOUT_MS.
 */
export async function launchChromium(chromium) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    headless: true,
    timeout: TIMEOUT_MS,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-site-isolation-trials", "--disable-features=" + [...playwrightDisabledFeatures(), ...OWN_DISABLED].join(",")],
  });
  const counts = { contexts: 0, pages: 0, navigations: 0 };
  process.on("exit", () => console.log(`# chromium: ${JSON.stringify(counts)}`));
  const newContext = browser.newContext.bind(browser);
  // browser.newPage makes its context with this.newContext, so this covers
  // both.
  browser.newContext = async (opts) => {
    counts.contexts++;
    const ctx = patient(await newContext(opts));
    ctx.on("page", (page) => {
      counts.pages++;
      const goto = page.goto.bind(page);
      page.goto = (...args) => {
        counts.navigations++;
        return goto(...args);
      };
    });
    return ctx;
  };
  return browser;
}
