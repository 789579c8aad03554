// Which tenant a request addresses: `<slug>.<gateway domain>` (Host) or the path form
// `/gw/<slug>/...`, and the tenant-relative path that remains. Pure.

export type TenantAddress = { slug: string; path: string; form: "host" | "path" };

export type PathProblem = { problem: "invalid_path"; message: string };

const slugPattern = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])?$/;

/**
 * Normalizes a raw request path (no query): decodes once, refuses traversal, NUL, backslashes and
 * encoded slashes so that `/v1/../admin` can never reach a different origin route than it names.
 */
export function normalizeRequestPath(rawPath: string): { path: string } | PathProblem {
  if (!rawPath.startsWith("/")) return { problem: "invalid_path", message: "Path must start with /" };
  if (rawPath.length > 2048) return { problem: "invalid_path", message: "Path is longer than 2048 characters" };
  if (/%2f|%5c|%00/i.test(rawPath)) return { problem: "invalid_path", message: "Encoded slashes and NUL are not allowed in paths" };
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { problem: "invalid_path", message: "Path is not valid percent-encoding" };
  }
  if (decoded.includes("\\") || decoded.includes("\0")) return { problem: "invalid_path", message: "Backslashes and NUL are not allowed in paths" };
  const segments = decoded.split("/");
  if (segments.some((s) => s === ".." || s === ".")) return { problem: "invalid_path", message: "Dot segments (. and ..) are not allowed in paths" };
  // Keep the original (still-encoded) spelling for the origin; matching uses the decoded form.
  return { path: rawPath.replace(/\/{2,}/g, "/") };
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
