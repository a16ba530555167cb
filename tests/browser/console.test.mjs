// The console in headless Chromium against the real binary.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { eventually, launchBrowser, OWNER_EMAIL, shot, signIn, startRelink, submit } from "./relink.mjs";

const CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe("console", () => {
  let relink, browser;
  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  test("sign-in: wrong password is refused, the right one opens the console", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${relink.appURL}/`);
    assert.match(page.url(), /\/console\/login/, "the root sends a signed-out visitor to sign-in");
    await page.fill('input[name="email"]', OWNER_EMAIL);
    await page.fill('input[name="password"]', "not the password");
    await page.click('[data-testid="login-submit"]');
    await page.waitForSelector('[data-testid="alert-error"]');
    assert.equal((await page.textContent('[data-testid="alert-error"]')).trim(), "Incorrect email or password.");
    await shot(page, "01-sign-in-error");

    await page.fill('input[name="password"]', "correct horse battery");
    await Promise.all([page.waitForURL(`${relink.appURL}/console`), page.click('[data-testid="login-submit"]')]);
    assert.equal((await page.textContent('[data-testid="user-email"]')).trim(), OWNER_EMAIL);
    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === "relink_session");
    assert.ok(session, "session cookie set");
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Lax");
    await shot(page, "02-overview");

    // A second workspace of the same owner shows up in the switcher;
    // choosing it reloads the console there.
    const r = await relink.cli(["workspace", "create", "--name", "Beta Labs", "--slug", "beta", "--plan", "pro",
      "--owner-email", OWNER_EMAIL, "--owner-password", "correct horse battery"]);
    assert.equal(r.code, 0, r.stderr);
    await page.reload();
    assert.deepEqual(await page.$$eval('[data-testid="workspace-select"] option', (os) => os.map((o) => o.textContent.trim())), ["Acme", "Beta Labs"]);
    await Promise.all([page.waitForURL(`${relink.appURL}/console`), page.selectOption('[data-testid="workspace-select"]', { label: "Beta Labs" })]);
    await page.waitForSelector('[data-testid="overview-workspace"] >> text=Beta Labs');
    assert.match(await page.textContent('[data-testid="workspace-plan"]'), /beta · pro/);
    await shot(page, "02b-switched-workspace");
    await page.selectOption('[data-testid="workspace-select"]', { label: "Acme" });
    await page.waitForSelector('[data-testid="overview-workspace"] >> text=Acme');

    await Promise.all([page.waitForURL(/\/console\/login/), page.click('[data-testid="sign-out"]')]);
    await page.goto(`${relink.appURL}/console/links`);
    assert.match(page.url(), /\/console\/login\?next=/, "signed out: the console needs signing in again");
    await ctx.close();
  });

  test("create a link, copy it, follow it, and see the click in the chart", async () => {
    const ctx = await browser.newContext({ userAgent: CHROME_UA });
    await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: relink.appURL });
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-links"]');
    await page.click('[data-testid="link-create"] summary');
    await page.fill('[data-testid="link-form"] input[name="url"]', "https://example.com/spring-launch");
    await page.fill('[data-testid="link-form"] input[name="key"]', "spring");
    await Promise.all([page.waitForURL(/\/console\/links\/link_/), page.click('[data-testid="link-submit"]')]);
    const short = (await page.textContent('[data-testid="link-shortlink"]')).trim();
    assert.equal(short, `${relink.appURL}/spring`);
    await shot(page, "03-link-created");

    await page.click('[data-testid="link-copy"]');
    await eventually(async () => (await page.evaluate(() => navigator.clipboard.readText())) === short, { what: "clipboard" });

    const qr = await page.getAttribute('[data-testid="qr-download"]', "href");
    const png = await page.request.get(new URL(qr, relink.appURL).toString());
    assert.equal(png.status(), 200);
    assert.equal(png.headers()["content-type"], "image/png");

    // Follow the short link the way a browser would (the destination is
    // not reachable from here, so the redirect is not followed further).
    const res = await fetch(short, { redirect: "manual", headers: { "User-Agent": CHROME_UA } });
    assert.ok(res.status >= 301 && res.status <= 308, `redirect status ${res.status}`);
    assert.equal(res.headers.get("location"), "https://example.com/spring-launch");

    // The pipeline writes the click within its flush interval; reload until
    // the chart shows it.
    await eventually(async () => {
      await page.reload();
      return (await page.textContent('[data-testid="total-clicks"] [data-testid="total-value"]')).trim() === "1";
    }, { what: "the click on the link page" });
    assert.equal(await page.getAttribute('[data-testid="series-Clicks"]', "data-total"), "1");
    await shot(page, "04-link-analytics");

    await page.click('[data-testid="nav-analytics"]');
    await page.click('a:has-text("24 hours")');
    assert.equal((await page.textContent('[data-testid="total-clicks"] [data-testid="total-value"]')).trim(), "1");
    assert.equal((await page.textContent('[data-testid="bars-browsers"] [data-testid="bar-label"]')).trim(), "Chrome");
    assert.equal(await page.locator('[data-testid="event-row"]').count(), 1);
    await shot(page, "05-dashboard");

    // Search narrows the list without a reload (htmx).
    await page.click('[data-testid="nav-links"]');
    await page.fill('[data-testid="link-search"]', "nothing-matches-this");
    await page.waitForSelector('[data-testid="links-list"] [data-testid="empty-state"]');
    await page.fill('[data-testid="link-search"]', "spring");
    await page.waitForSelector('[data-testid="link-row"]');
    await shot(page, "06-links-list");
    await ctx.close();
  });

  test("a domain logo uploaded in the console is drawn in the centre of its links' QR codes", async () => {
    const ctx = await browser.newContext({ userAgent: CHROME_UA });
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.goto(`${relink.appURL}/console/domains`);
    await page.fill('[data-testid="domains-form"] input[name="slug"]', "go.acme.test");
    await submit(page, `${relink.appURL}/console/domains`, () => page.click('[data-testid="domains-submit"]'));

    // An orange square logo, drawn by the browser itself.
    const dataURL = await page.evaluate(() => {
      const c = document.createElement("canvas");
      c.width = c.height = 64;
      const g = c.getContext("2d");
      g.fillStyle = "rgb(224, 90, 20)";
      g.fillRect(0, 0, 64, 64);
      return c.toDataURL("image/png");
    });
    await page.setInputFiles('[data-testid="domain-logo-file"]', {
      name: "logo.png", mimeType: "image/png", buffer: Buffer.from(dataURL.split(",")[1], "base64"),
    });
    await submit(page, `${relink.appURL}/console/domains`, () => page.click('[data-testid="domain-logo-upload"]'));
    await page.waitForSelector('[data-testid="domain-logo"]');
    await shot(page, "07-domain-logo");

    await page.click('[data-testid="nav-links"]');
    await page.click('[data-testid="link-create"] summary');
    await page.fill('[data-testid="link-form"] input[name="url"]', "https://example.com/qr-logo");
    await page.fill('[data-testid="link-form"] input[name="key"]', "qr-logo");
    await page.selectOption('[data-testid="link-form"] select[name="domain"]', "go.acme.test");
    await Promise.all([page.waitForURL(/\/console\/links\/link_/), page.click('[data-testid="link-submit"]')]);
    const centre = await page.evaluate(async () => {
      const img = document.querySelector('[data-testid="link-qr"] img');
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      return [...g.getImageData(c.width / 2, c.height / 2, 1, 1).data];
    });
    assert.deepEqual(centre, [224, 90, 20, 255], "the QR code's centre is the domain's logo");
    await shot(page, "08-qr-with-logo");
    await ctx.close();
  });

  test("every page in the navigation opens", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await signIn(page, relink.appURL);
    const navs = await page.$$eval('[data-testid="console-nav"] a', (as) => as.map((a) => [a.dataset.testid, a.getAttribute("href")]));
    assert.ok(navs.length >= 10, `nav has ${navs.length} links`);
    for (const [id, href] of navs) {
      const res = await page.goto(new URL(href, relink.appURL).toString());
      assert.equal(res.status(), 200, `${href} answered ${res.status()}`);
      await shot(page, `tour-${id.replace("nav-", "")}`);
    }
    assert.deepEqual(errors, [], "no console errors (CSP violations show up here)");
    await ctx.close();

    // On a phone the sidebar folds into a menu.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const p = await phone.newPage();
    await signIn(p, relink.appURL);
    assert.equal(await p.isVisible('[data-testid="console-nav"]'), false);
    await p.click('[data-testid="mobile-nav"] summary');
    await Promise.all([p.waitForURL(/\/console\/analytics/), p.click('[data-testid="mobile-nav"] a:has-text("Analytics")')]);
    await shot(p, "tour-mobile-analytics");
    await phone.close();
  });

  test("create an API key, use it, revoke it", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-keys"]');
    await page.fill('[data-testid="key-form"] input[name="name"]', "CI key");
    await page.click('[data-testid="key-create"]');
    const token = (await page.textContent('[data-testid="new-key-token"]')).trim();
    assert.match(token, /^dub_/);
    await shot(page, "07-key-created");

    const call = () => fetch(`${relink.apiURL}/links`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal((await call()).status, 200, "the new key works on the API");

    await page.goto(`${relink.appURL}/console/settings/keys`);
    assert.equal(await page.locator(`text=${token}`).count(), 0, "the token is not shown again");
    const row = page.locator('[data-testid="key-row"]', { hasText: "CI key" });
    page.once("dialog", (d) => d.accept());
    await row.locator('[data-testid="key-revoke"]').click();
    await eventually(async () => (await row.locator('[data-testid="key-status"]').textContent()).trim() === "Revoked", { what: "revoked status" });
    await shot(page, "08-key-revoked");
    assert.equal((await call()).status, 401, "the revoked key is refused");
    await ctx.close();
  });
});

describe("expired invite", () => {
  let relink, browser;
  before(async () => {
    relink = await startRelink({ env: { RELINK_INVITE_TTL: "2s" } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  test("an invite link past its lifetime is a 410 page, and invite_expired on the API", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, relink.appURL);
    await page.click('[data-testid="nav-members"]');
    await page.fill('[data-testid="invite-form"] input[name="email"]', "late@acme.test");
    await page.click('[data-testid="invite-submit"]');
    const link = (await page.textContent('[data-testid="invite-link"]')).trim();
    assert.match(link, /\/console\/invites\//);
    await shot(page, "09-invite-created");

    const guest = await (await browser.newContext()).newPage();
    const status = await eventually(async () => {
      const r = await guest.goto(link);
      return r.status() === 410 ? 410 : 0;
    }, { timeout: 15000, interval: 500, what: "the invite to expire" });
    assert.equal(status, 410);
    assert.equal((await guest.textContent('[data-testid="error-title"]')).trim(), "Invite expired");
    await shot(guest, "10-invite-expired");

    const token = new URL(link).pathname.split("/").pop();
    const res = await fetch(`${relink.apiURL}/invites/${token}`);
    assert.equal(res.status, 410);
    assert.equal((await res.json()).error.code, "invite_expired");
    await ctx.close();
  });
});
