// Which cookies may cross the gateway (issue 23, finding 7; docs/decisions.md "Cookies"). By default
// none: the visitor's Cookie header would carry the dashboard's session to every origin (cookies
// ignore ports, so the site's cookies ride along to a gateway on the same host), and an origin's
// Set-Cookie could plant a session into the dashboard. An endpoint with `forwardCookies` gets:
//   to the origin   the visitor's cookies without the platform's own (Auth.js, LNURL-auth)
//   to the client   only host-only cookies (no Domain attribute, which would cover other tenants
//                   or the site), never the platform's names, none at all when the client reached
//                   the gateway on the site's host, and on a host shared by tenants (/gw/<slug>)
//                   with their Path moved under the tenant's prefix.
// Pure.
import { AUTH_COOKIE_PREFIXES, LNURL_BROWSER_COOKIE } from "@/lib/config/platform-cookies.ts";

/** Where cookies relayed to a client would live. */
export type CookieScope = {
  /** The host the client addressed (lower case, no port): cookies it stores are host-only to it. */
  clientHost: string;
  /** SITE_URL's host (lower case): a cookie stored for it reaches the dashboard. */
  siteHost: string;
  /** `/gw/<slug>` when the tenant was addressed by path on a host tenants share, else null. */
  pathPrefix: string | null;
};

/** True for a cookie the web app sets for itself (lib/config/platform-cookies.ts), in any of its `__Secure-`/`__Host-` forms. */
export function isPlatformCookie(name: string): boolean {
  const bare = name.replace(/^__(?:Secure|Host)-/, "");
  for (const prefix of AUTH_COOKIE_PREFIXES) if (bare.startsWith(prefix)) return true;
  return name === LNURL_BROWSER_COOKIE;
}

/** The visitor's Cookie header as an opted-in origin receives it: the platform's cookies removed; null when none is left. */
export function cookiesForOrigin(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const kept = [header]
    .flat()
    .join("; ")
    .split(";")
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "" && !isPlatformCookie(pair.split("=", 1)[0].trim()));
  return kept.length ? kept.join("; ") : null;
}

/** The origin's Set-Cookie values an opted-in endpoint relays to the client (see the rules above). */
export function setCookiesForClient(values: string | string[] | undefined, scope: CookieScope): string[] {
  if (values === undefined || scope.clientHost === "" || scope.clientHost === scope.siteHost) return [];
  const relayed: string[] = [];
  for (const value of [values].flat()) {
    const [pair, ...attributes] = value.split(";").map((part) => part.trim());
    const name = pair.split("=", 1)[0].trim();
    if (!name || isPlatformCookie(name)) continue;
    if (attributes.some((attribute) => attributeName(attribute) === "domain")) continue;
    relayed.push(scope.pathPrefix ? [pair, ...attributes.flatMap((a) => scopedPath(a, scope.pathPrefix!))].join("; ") : value);
  }
  return relayed;
}

function attributeName(attribute: string): string {
  return attribute.split("=", 1)[0].trim().toLowerCase();
}

/** A Path attribute moved under the tenant's prefix (`/` → `/gw/<slug>`); a Path that is not absolute is dropped (the browser's default path, under the request's, applies). */
function scopedPath(attribute: string, prefix: string): string[] {
  if (attributeName(attribute) !== "path") return [attribute];
  const path = attribute.slice(attribute.indexOf("=") + 1).trim();
  if (!path.startsWith("/")) return [];
  return [`Path=${prefix}${path === "/" ? "" : path}`];
}

/** The host part of a Host header, lower case, without the port ("" when absent). */
export function hostOf(hostHeader: string | undefined): string {
  const host = (hostHeader ?? "").trim().toLowerCase();
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  return host.replace(/:\d*$/, "");
}
