// The partner portal (issue 36 items 1-3, 7, docs/portal.md) in headless
// Chromium at 1280 and 390 px, against the built binary with RELINK_SMTP_URL
// pointing at a local SMTP sink this file starts: sign-in by the mailed link,
// the program switch between two workspaces, approval → e-mail → portal, and
// a fresh demo partner creating a link; the branded group's accent. Screenshots:
// artifacts/portal-<what>-<width>.png.

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, test } from "node:test";

import { startServer } from "../lib/relink-server.mjs";
import { eventually, launchBrowser, shot } from "./relink.mjs";

const WIDTHS = [1280, 390];

/** A local SMTP server (no extensions) keeping every message's DATA. */
function startSMTPSink() {
  const msgs = [];
  const srv = createServer((sock) => {
    let buf = "";
    let data = null;
    sock.write("220 sink\r\n");
    sock.on("data", (chunk) => {
      buf += chunk.toString("utf8");
      let i;
      while ((i = buf.indexOf("\r\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (data !== null) {
          if (line === ".") {
            msgs.push(data);
            data = null;
            sock.write("250 kept\r\n");
          } else data += (line.startsWith(".") ? line.slice(1) : line) + "\n";
          continue;
        }
        const cmd = line.toUpperCase();
        if (cmd.startsWith("DATA")) {
          data = "";
          sock.write("354 go on\r\n");
        } else if (cmd.startsWith("QUIT")) sock.end("221 bye\r\n");
        else sock.write("250 ok\r\n");
      }
    });
    sock.on("error", () => {});
  });
  return new Promise((res) => srv.listen(0, "127.0.0.1", () => res({
    addr: `127.0.0.1:${srv.address().port}`,
    to: (addr) => msgs.filter((m) => m.includes(`To: ${addr}\n`)),
    stop: () => new Promise((r) => srv.close(r)),
  })));
}

let relink, sink, browser, globexKey, demoKey;
const LINK = /http:\/\/\S+\/partners\/login\/[A-Za-z0-9_-]+/;

async function apiAs(key, method, path, body, status = 200) {
  const res = await fetch(relink.apiURL + path, {
    method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, status, `${method} ${path}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function cli(...args) {
  const r = await relink.cli(args);
  if (r.code !== 0) throw new Error(`relink ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

before(async () => {
  sink = await startSMTPSink();
  relink = await startServer({ name: "portal", env: { RELINK_SMTP_URL: `smtp://${sink.addr}`, RELINK_MAIL_FROM: "Relink <relink@relink.test>" } });
  const shortHost = new URL(relink.appURL).host;
  await cli("program", "set", "--workspace", "acme", "--name", "Acme Partners", "--domain", shortHost, "--url", "https://shop.example/", "--applications", "open");
  // Acme's group is branded (docs/programs.md "Group branding"); Globex's is not.
  await cli("program", "group", "set", "--workspace", "acme", "--additional-link", "shop.example", "--brand-color", "#ff5500");
  await cli("program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "20");
  globexKey = JSON.parse(await cli("workspace", "create", "--name", "Globex", "--slug", "globex", "--plan", "advanced")).apiKey;
  await cli("program", "set", "--workspace", "globex", "--name", "Globex Affiliates", "--domain", shortHost, "--url", "https://globex.example/");
  await cli("program", "reward", "set", "--workspace", "globex", "--event", "lead", "--type", "flat", "--amount", "300");
  await apiAs(relink.apiKey, "POST", "/partners", { email: "Ann@Partners.example", name: "Ann" }, 201);
  await apiAs(globexKey, "POST", "/partners", { email: "ann@partners.example", name: "Ann" }, 201);
  await apiAs(relink.apiKey, "POST", "/partners", { email: "bob@partners.example", name: "Bob" }, 201);
  const demo = await cli("demo", "--workspace", "demo", "--links", "20", "--clicks", "300", "--leads", "20", "--sales", "5", "--partners", "3");
  demoKey = demo.match(/API key (dub_\S+)/)[1];
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await relink?.stop();
  await sink?.stop();
});

/** Asks for a link for email in page, returns it from the sink. */
async function askLink(page, width, email, shots = false) {
  const before = sink.to(email).length;
  await page.goto(`${relink.appURL}/partners`);
  await page.getByTestId("portal-email").fill(email);
  if (shots) await shot(page, `portal-signin-${width}`);
  await page.getByTestId("portal-send").click();
  await page.getByTestId("portal-sent").waitFor();
  if (shots) await shot(page, `portal-sent-${width}`);
  const got = await eventually(() => {
    const ms = sink.to(email);
    return ms.length > before && { link: ms[ms.length - 1].match(LINK)[0] };
  }, { what: `the sign-in mail to ${email}` });
  return got.link;
}

async function useLink(page, link) {
  await page.goto(link);
  await page.getByTestId("portal-confirm-button").click();
  await page.waitForURL(/\/partners$/);
}

async function newPage(width) {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  return { ctx, page: await ctx.newPage() };
}

for (const width of WIDTHS) {
  test(`${width}px: sign in by the mailed link, both programs, the switch, sign out`, async () => {
    const { ctx, page } = await newPage(width);
    const link = await askLink(page, width, "ann@partners.example", true);
    await useLink(page, link);
    const programs = page.getByTestId("portal-program");
    assert.equal(await programs.count(), 2);
    await shot(page, `portal-programs-${width}`);
    await programs.filter({ hasText: "Acme Partners" }).click();
    await page.locator('[data-testid="overview"]').waitFor();
    assert.match(await page.locator("#overview").textContent(), /20%/);
    const brand = () => page.locator("#embed-root").evaluate((el) => getComputedStyle(el).getPropertyValue("--brand").trim());
    assert.equal(await brand(), "#ff5500", "Acme's brand colour");
    assert.equal(await page.locator('[role="tab"][aria-selected="true"]').evaluate((el) => getComputedStyle(el).borderBottomColor), "rgb(255, 85, 0)");
    await shot(page, `portal-dashboard-acme-${width}`);
    // The switch: Globex's dashboard, the same cards, its own reward.
    await page.getByTestId("portal-switch-program").filter({ hasText: "Globex Affiliates" }).click();
    await page.locator('[data-testid="overview"]').waitFor();
    assert.match(await page.locator("#overview").textContent(), /\$3/);
    assert.equal(await brand(), "#2563eb", "an unbranded group's dashboard keeps the default accent");
    assert.equal(await page.locator('[aria-current="page"]').textContent().then((t) => t.includes("Globex")), true);
    await shot(page, `portal-dashboard-globex-${width}`);
    // The link works once.
    const again = await browser.newContext();
    const p2 = await again.newPage();
    const res = await p2.goto(link);
    assert.equal(res.status(), 410);
    await again.close();
    await page.getByTestId("portal-signout").click();
    await page.getByTestId("portal-signin-form").waitFor();
    await ctx.close();
  });
}

test("an approved applicant gets the sign-in link by mail and lands in the portal", async () => {
  for (const width of WIDTHS) {
    const email = `cleo${width}@partners.example`;
    const { ctx, page } = await newPage(width);
    await page.goto(`${relink.appURL}/apply/acme`);
    await page.locator('input[name="name"]').fill(`Cleo ${width}`);
    await page.locator('input[name="email"]').fill(email);
    const country = page.locator('[name="country"]');
    if ((await country.evaluate((el) => el.tagName)) === "SELECT") await country.selectOption("FR");
    else await country.fill("FR");
    const website = page.locator('input[name="website"]');
    if (await website.count()) await website.fill("https://cleo.example");
    const promo = page.locator('[name="promotion"]');
    if (await promo.count()) await promo.fill("My newsletter");
    await page.locator('form button[type="submit"]').click();
    await page.waitForLoadState("networkidle");
    const apps = await apiAs(relink.apiKey, "GET", "/partners/applications");
    const mine = apps.find((a) => a.partner.email === email);
    assert.ok(mine, "the application is listed");
    await apiAs(relink.apiKey, "POST", "/partners/applications/approve", { partnerId: mine.partner.id });
    const { mail } = await eventually(() => {
      const m = sink.to(email).find((x) => LINK.test(x));
      return m && { mail: m };
    }, { what: "the approval mail" });
    assert.match(mail, /Acme Partners/);
    await useLink(page, mail.match(LINK)[0]);
    await page.getByTestId("portal-program").first().click();
    await page.locator('[data-testid="overview"]').waitFor();
    await shot(page, `portal-approved-${width}`);
    await ctx.close();
  }
});

test("a fresh demo partner signs in and creates a link", async () => {
  const partners = await apiAs(demoKey, "GET", "/partners");
  const p = partners.find((x) => x.status === "approved") ?? partners[0];
  for (const width of WIDTHS) {
    const { ctx, page } = await newPage(width);
    await useLink(page, await askLink(page, width, p.email));
    await page.getByTestId("portal-program").first().click();
    await page.locator('[data-testid="overview"]').waitFor();
    await page.locator('[data-tab="links"]').click();
    await page.getByTestId("link-new").click();
    const form = page.getByTestId("link-form");
    await form.waitFor();
    await form.locator('input[name="key"]').fill(`portal-${width}`);
    const path = form.locator('input[name="path"]');
    if (await path.isEditable()) await path.fill(`from-portal-${width}`);
    await form.locator('button[type="submit"]').click();
    await page.locator("#links").getByText(`portal-${width}`).first().waitFor();
    await shot(page, `portal-demo-link-${width}`);
    await ctx.close();
  }
  const links = await apiAs(demoKey, "GET", `/partners/links?partnerId=${p.id}`);
  for (const width of WIDTHS) assert.ok(links.some((l) => l.key === `portal-${width}`), `link portal-${width} made in the portal`);
});
