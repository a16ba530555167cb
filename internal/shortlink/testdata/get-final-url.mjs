// Dub's apps/web/lib/middleware/utils/get-final-url.ts (and its helpers
// is-appsflyer-tracking-url.ts, is-singular-tracking-url.ts,
// is-google-play-store-url.ts, parse.ts), ported line by line to plain
// Node: the NextRequest is replaced by what the function reads from it
// (the request's search params, user agent, IP, and parse(req)'s shortLink).
// TestDestinationAgreesWithDub (destination_test.go) runs it on stdin cases
// [{url, clickId, via, query, ua, ip, shortLink}] and compares with Go.
import { readFileSync } from "node:fs";

const host = (url) => {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
};
const isAppsFlyerTrackingUrl = (url) => !!url && (host(url) ?? "").endsWith(".onelink.me");
const isSingularTrackingUrl = (url) => !!url && (host(url) ?? "").endsWith(".sng.link");
const isGooglePlayStoreUrl = (url) => !!url && host(url) === "play.google.com";

const getFinalUrl = (url, { req, clickId, via }) => {
  const searchParams = req.searchParams;
  // redir_url is not honoured by Relink (docs/parity.md): left out.
  const urlObj = new URL(url);
  if (via) urlObj.searchParams.set("via", via);
  if (clickId) {
    if (urlObj.searchParams.get("dub_client_reference_id") === "1") {
      urlObj.searchParams.set("client_reference_id", `dub_id_${clickId}`);
      urlObj.searchParams.delete("dub_client_reference_id");
    } else if (!searchParams.has("dub-no-track")) {
      urlObj.searchParams.set("dub_id", clickId);
    }
  }
  if (isAppsFlyerTrackingUrl(url)) {
    urlObj.searchParams.set("pid", "dubinc_int");
    if (clickId) urlObj.searchParams.set("clickid", clickId);
    if (!urlObj.searchParams.has("c") && via) urlObj.searchParams.set("c", via);
    if (!urlObj.searchParams.has("af_siteid") && via) urlObj.searchParams.set("af_siteid", via);
  }
  if (isSingularTrackingUrl(url)) {
    urlObj.searchParams.set("cl", clickId ?? "");
    urlObj.searchParams.set("ua", req.ua ?? "");
    urlObj.searchParams.set("ip", req.ip ?? "");
    const wpcn = urlObj.searchParams.get("wpcn");
    const wpcl = urlObj.searchParams.get("wpcl");
    if (wpcn && wpcn === "{via}") urlObj.searchParams.set("wpcn", via ?? "");
    if (wpcl && wpcl === "{dub_id}") urlObj.searchParams.set("wpcl", clickId ?? "");
  }
  if (isGooglePlayStoreUrl(url)) {
    // parse(req): searchParamsString = "?" + searchParams.toString() when non-empty
    const s = searchParams.toString();
    const searchParamsString = s.length > 0 ? `?${s}` : "";
    const existingReferrer = urlObj.searchParams.get("referrer");
    const referrerSearchParam = new URLSearchParams(
      existingReferrer ? decodeURIComponent(existingReferrer) : "",
    );
    referrerSearchParam.set("deepLink", `${req.shortLink}${searchParamsString}`);
    urlObj.searchParams.set("referrer", referrerSearchParam.toString());
  }
  if (searchParams.size === 0) return urlObj.toString();
  for (const [key, value] of searchParams) {
    if (["dub-no-track", "redir_url"].includes(key)) continue;
    urlObj.searchParams.set(key, value);
  }
  if (urlObj.searchParams.get("qr") === "1") urlObj.searchParams.delete("qr");
  if (urlObj.searchParams.get("skip_deeplink_preview") === "1") urlObj.searchParams.delete("skip_deeplink_preview");
  return urlObj.toString();
};

const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map((c) =>
  getFinalUrl(c.url, {
    req: { searchParams: new URLSearchParams(c.query), ua: c.ua, ip: c.ip, shortLink: c.shortLink },
    clickId: c.clickId || undefined,
    via: c.via || undefined,
  }),
);
process.stdout.write(JSON.stringify(out));
