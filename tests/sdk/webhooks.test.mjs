// Webhooks against the SDK's own event schemas: a live Relink delivers to a
// receiver on 127.0.0.1, which checks each Dub-Signature the way Dub's
// documentation says (hex HMAC-SHA256 of the raw body keyed by the whole
// secret) and parses each body with the SDK's webhookEventFromJSON (the
// union receivers use; a missing required key fails it).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { webhookEventFromJSON } from "dub/models/components";

import { startRelink } from "./relink.mjs";

let relink, dub, receiver, hookURL;
const bodies = []; // { raw, signature }

before(async () => {
  receiver = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      bodies.push({ raw: Buffer.concat(chunks).toString("utf8"), signature: req.headers["dub-signature"] });
      res.end("ok");
    });
  });
  await new Promise((ok) => receiver.listen(0, "127.0.0.1", ok));
  hookURL = `http://127.0.0.1:${receiver.address().port}/dub`;
  relink = await startRelink({
    workspace: { name: "Acme", slug: "acme", plan: "advanced" },
    env: { RELINK_WEBHOOK_TARGETS: "any", RELINK_CLICK_DEDUP_WINDOW: "0", RELINK_CLICK_FLUSH_INTERVAL: "50ms" },
  });
  dub = relink.dub();
  const shortDomain = new URL(relink.appURL).host;
  for (const args of [
    ["program", "set", "--workspace", "acme", "--domain", shortDomain, "--url", "https://shop.example/"],
    ["program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "10"],
  ]) {
    const r = await relink.cli(args);
    assert.equal(r.code, 0, `relink ${args.join(" ")}: ${r.stderr}`);
  }
});
after(async () => {
  await relink?.stop();
  receiver?.close();
});

async function clickID(link) {
  const res = await fetch(link.shortLink, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0.0.0 Safari/537.36" } });
  const id = new URL(res.headers.get("location")).searchParams.get("dub_id");
  for (const deadline = Date.now() + 10000; ; ) {
    if ((await dub.links.get({ linkId: link.id })).clicks > 0) return id;
    if (Date.now() > deadline) assert.fail("click not stored");
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("every event Relink fires parses with the SDK's webhookEventFromJSON and carries a valid Dub-Signature", async () => {
  const res = await fetch(`${relink.apiURL}/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${relink.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: "SDK receiver", url: hookURL, linkScope: "workspace",
      triggers: ["link.created", "link.updated", "link.deleted", "link.clicked", "lead.created", "sale.created", "partner.enrolled", "commission.created"],
    }),
  });
  assert.equal(res.status, 201);
  const { secret } = await res.json();

  const link = await dub.links.create({ url: "https://shop.example/pricing", trackConversion: true });
  await dub.links.update(link.id, { title: "Pricing" });
  const click = await clickID(link);
  await dub.track.lead({ clickId: click, eventName: "Sign up", customerExternalId: "user_1", customerName: "Ada" });
  await dub.track.sale({ customerExternalId: "user_1", amount: 4900, invoiceId: "inv_1", metadata: { plan: "pro" } });
  const partner = await dub.partners.create({ name: "Pat Partner", email: "pat@example.com" });
  const plink = await dub.partners.createLink({ partnerId: partner.id, key: "pat" });
  const pclick = await clickID(plink);
  await dub.track.lead({ clickId: pclick, eventName: "Sign up", customerExternalId: "user_2" });
  await dub.track.sale({ customerExternalId: "user_2", amount: 10000 });
  await dub.links.delete(link.id);

  const want = ["link.created", "link.updated", "link.deleted", "link.clicked", "lead.created", "sale.created", "partner.enrolled", "commission.created"];
  const deadline = Date.now() + 20000;
  const seen = () => new Set(bodies.map((b) => JSON.parse(b.raw).event));
  while (!want.every((e) => seen().has(e))) {
    if (Date.now() > deadline) assert.fail(`events received: ${[...seen()].join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const b of bodies) {
    const expected = createHmac("sha256", secret).update(b.raw).digest("hex");
    assert.equal(b.signature, expected, "Dub-Signature");
    const parsed = webhookEventFromJSON(b.raw);
    assert.ok(parsed.ok, `SDK rejected ${JSON.parse(b.raw).event}: ${parsed.ok ? "" : parsed.error?.message}\n${b.raw.slice(0, 400)}`);
    assert.equal(parsed.value.event, JSON.parse(b.raw).event);
  }
});
