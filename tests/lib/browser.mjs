// The browser suites' one Chromium launch (tests/browser, tests/embed).
//
// Playwright's own defaults give a navigation or an action 30 s. make test
// starts every suite at once beside the Go tests, and on a two-core machine
// under that load (load average above 30) a page that loads an iframe took
// longer than that to fire "load": every test of tests/embed failed at its
// first page.goto in one CI run (2026-11-29) and passed in the next. The
// deadline only stops a test that would never pass, so every context gets
// TIMEOUT_MS instead; a real hang still fails.

export const TIMEOUT_MS = 120000;

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
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (opts) => patient(await newContext(opts));
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (opts) => {
    const page = await newPage(opts);
    patient(page.context());
    return page;
  };
  return browser;
}
