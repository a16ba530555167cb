// Folder sharing in headless Chromium (issue 13 item 8, spec/parity.md §13): a
// member sees only the folders they may see, links in a read-only folder
// have no edit form, and the owner shares a private folder and opens a
// read-only one from the folder's page.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launchBrowser, shot, signIn, startRelink } from "./relink.mjs";

describe("console folder sharing", () => {
  let relink, browser;
  before(async () => {
    relink = await startRelink();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await relink?.stop();
  });

  const api = async (method, path, body) => {
    const r = await fetch(`${relink.apiURL}${path}`, {
      method,
      headers: { Authorization: `Bearer ${relink.apiKey}`, "Content-Type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await r.json();
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };

  const folderNames = async (page) => {
    await page.goto(`${relink.appURL}/console/folders`);
    return (await page.locator('[data-testid="library-name"]').allTextContents()).map((s) => s.trim().split(/\s+/)[0]).sort();
  };

  test("members see and change only what their folder roles allow", async () => {
    const campaigns = await api("POST", "/folders", { name: "Campaigns", accessLevel: "write" });
    const finance = await api("POST", "/folders", { name: "Finance", accessLevel: "read" });
    const secret = await api("POST", "/folders", { name: "Secret", accessLevel: null });
    const links = {};
    for (const [name, f] of [["campaigns", campaigns], ["finance", finance], ["secret", secret]]) {
      links[name] = await api("POST", "/links", { url: `https://example.com/${name}`, key: `f-${name}`, folderId: f.id });
    }

    // The owner invites Mia as a member; she joins with a password.
    const ownerCtx = await browser.newContext();
    const owner = await ownerCtx.newPage();
    await signIn(owner, relink.appURL);
    await owner.goto(`${relink.appURL}/console/settings/members`);
    await owner.fill('[data-testid="invite-form"] input[name="email"]', "mia@acme.test");
    await owner.selectOption('[data-testid="invite-form"] select[name="role"]', "member");
    await owner.click('[data-testid="invite-submit"]');
    const inviteLink = (await owner.textContent('[data-testid="invite-link"]')).trim();
    const miaCtx = await browser.newContext();
    const mia = await miaCtx.newPage();
    await mia.goto(inviteLink);
    await mia.fill('[data-testid="accept-form"] input[name="password"]', "mia's long password");
    await Promise.all([mia.waitForURL(/\/console/), mia.click('[data-testid="accept-submit"]')]);

    assert.deepEqual(await folderNames(mia), ["Campaigns", "Finance"], "Secret is hidden from Mia");
    assert.deepEqual(await folderNames(owner), ["Campaigns", "Finance", "Secret"]);
    await shot(mia, "folders-member-list");

    // The links list hides the secret folder's link.
    await mia.goto(`${relink.appURL}/console/links?search=example.com`);
    const listed = await mia.locator('[data-testid="links-list"]').textContent();
    assert.match(listed, /f-campaigns/);
    assert.match(listed, /f-finance/);
    assert.doesNotMatch(listed, /f-secret/);

    // A link in a read-only folder: no edit form, archive or delete.
    await mia.goto(`${relink.appURL}/console/links/${links.finance.id}`);
    assert.match(await mia.textContent('[data-testid="link-read-only"]'), /Finance.*view links but not change them/);
    assert.equal(await mia.locator('[data-testid="link-edit"]').count(), 0);
    assert.equal(await mia.locator('[data-testid="link-delete"]').count(), 0);
    await shot(mia, "folders-read-only-link");
    await mia.goto(`${relink.appURL}/console/links/${links.campaigns.id}`);
    assert.equal(await mia.locator('[data-testid="link-edit"]').count(), 1, "Campaigns is editable");
    // The new-link form offers only folders Mia may write in.
    await mia.goto(`${relink.appURL}/console/links`);
    const options = await mia.locator('[data-testid="link-form"] select[name="folderId"] option').allTextContents();
    assert.deepEqual(options.map((s) => s.trim()), ["No folder", "Campaigns"]);

    // The secret folder's page and link are refused.
    const refused = await mia.goto(`${relink.appURL}/console/folders/${secret.id}`);
    assert.equal(refused.status(), 403);
    assert.equal((await mia.goto(`${relink.appURL}/console/links/${links.secret.id}`)).status(), 403);

    // The owner gives Mia the viewer role in Secret …
    await owner.goto(`${relink.appURL}/console/folders/${secret.id}`);
    const row = owner.locator('[data-testid="folder-member-row"][data-email="mia@acme.test"]');
    assert.match(await row.textContent(), /No access/);
    await row.locator('select[name="role"]').selectOption("viewer");
    await Promise.all([owner.waitForURL(/saved=role/), row.locator('[data-testid="folder-member-role-save"]').click()]);
    assert.match(await owner.textContent('[data-testid="alert-success"]'), /role saved/);
    assert.match(await owner.locator('[data-testid="folder-member-row"][data-email="mia@acme.test"]').textContent(), /set for this member/);
    await shot(owner, "folders-sharing-page");
    // … and opens Finance to every member.
    await owner.goto(`${relink.appURL}/console/folders/${finance.id}`);
    await owner.selectOption('[data-testid="folder-access-level"]', "write");
    await Promise.all([owner.waitForURL(/saved=access/), owner.click('[data-testid="folder-access-save"]')]);
    assert.equal(await owner.locator('[data-testid="folder-access-level"]').inputValue(), "write");

    assert.deepEqual(await folderNames(mia), ["Campaigns", "Finance", "Secret"]);
    await mia.goto(`${relink.appURL}/console/folders/${secret.id}`);
    assert.equal((await mia.textContent('[data-testid="folder-your-role"]')).trim(), "Viewer");
    assert.equal(await mia.locator('[data-testid="folder-access-form"]').count(), 0, "a viewer cannot share");
    await mia.goto(`${relink.appURL}/console/links/${links.finance.id}`);
    assert.equal(await mia.locator('[data-testid="link-edit"]').count(), 1, "Finance is editable now");
    await mia.goto(`${relink.appURL}/console/links/${links.secret.id}`);
    assert.equal(await mia.locator('[data-testid="link-read-only"]').count(), 1);
    await shot(mia, "folders-shared-read-only");
    await miaCtx.close();
    await ownerCtx.close();
  });
});
