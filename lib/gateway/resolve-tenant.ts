// Which tenant a request addresses: `<slug>.<gateway domain>` (Host) or the path form
// `/gw/<slug>/...`, and the tenant-relative path that remains. Pure.
import { canonicalRequestPath } from "@/lib/l402/canonical-path.ts";

export type TenantAddress = { slug: string; path: string; form: "host" | "path" };

export type PathProblem = { problem: "invalid_path"; message: string };

const slugPattern = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])?$/;

/**
 * The canonical tenant-relative path (lib/l402/canonical-path.ts), or why the request is refused
 * (400): `/v1/../admin` can never reach another origin route than it names, and `/v1/entity/t%6fp`
 * is matched, charged, forwarded and signed as `/v1/entity/top`.
 */
export function normalizeRequestPath(rawPath: string): { path: string } | PathProblem {
  const canonical = canonicalRequestPath(rawPath);
  return "problem" in canonical ? { problem: "invalid_path", message: canonical.problem } : canonical;
}

/**
 * Resolves the tenant. `hostSuffix` is like `.gw.example.com` (from GATEWAY_URL_TEMPLATE) or null
 * when only the path form is configured; the path form always works.
 */
export function resolveTenant(host: string | undefined, rawPath: string, hostSuffix: string | null): TenantAddress | null {
  const hostname = (host ?? "").toLowerCase().replace(/:\d+$/, "");
  if (hostSuffix && hostname.endsWith(hostSuffix)) {
    const slug = hostname.slice(0, -hostSuffix.length);
    if (slugPattern.test(slug)) return { slug, path: rawPath, form: "host" };
  }
  const m = /^\/gw\/([^/?#]+)(\/.*)?$/.exec(rawPath);
  if (m && slugPattern.test(m[1].toLowerCase())) {
    return { slug: m[1].toLowerCase(), path: m[2] ?? "/", form: "path" };
  }
  return null;
}
