// The canonical request path (../shared/INTEROP.md "Delegation caveats"): ONE spelling per path, which the
// gateway matches endpoints against, charges for, forwards to the origin and signs, and which a
// `path_prefix` caveat is judged against. It lives in lib/l402 because the caveat grammar needs it
// and the gateway already depends on this module. Pure.
//
// RFC 3986 6.2.2 syntax-based normalization, then refusals:
//   %XX of an unreserved character (A-Z a-z 0-9 - . _ ~) is decoded; every other %XX stays encoded
//   with upper-case hex (so `%3B` stays data, never becomes a `;` delimiter, and `%252e` stays the
//   literal text `%2e`); characters a path may not carry raw are percent-encoded (UTF-8);
//   `.` segments are dropped; repeated and trailing slashes collapse (request paths).
// Refused: `..` in any spelling, encoded `/` `\` NUL, raw backslashes, invalid percent-encoding or
// UTF-8; in request paths also `;` (matrix parameters, which origins strip: `/top;x` must never be
// priced as `/{id}`) and `#` (a fragment never belongs in a request target).
// Prefixes (`path_prefix=`) are refused when empty, relative, or with an interior empty segment
// (`//host/x`, `/v1//search`) or a scheme (`/a://b`); one trailing slash is dropped.

/** A path that cannot be made canonical, and why (the gateway answers 400 with the message). */
export type PathRefusal = { problem: string };

/** Longest raw request path the gateway reads (longer ones are refused, not truncated). */
export const MAX_REQUEST_PATH_LENGTH = 2048;

/** RFC 3986 unreserved: decoded wherever they appear percent-encoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
/** pchar characters (besides unreserved and `%`) that a path carries raw, and `/`. */
const RAW_ALLOWED = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;
/** A path made only of characters it keeps raw (no `%`, no backslash): already normalized encoding. */
const PLAIN = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/**
 * Percent-encoding normalized (see the top of this file), or why not. `/`, `\` and NUL may not
 * hide in `%XX`: an origin that decodes them would see other segments than we matched.
 */
function normalizeEncoding(raw: string): { text: string } | PathRefusal {
  // The usual path has nothing to decode or encode: no per-character pass on the hot path.
  if (PLAIN.test(raw)) return { text: raw };
  let text = "";
  for (let i = 0; i < raw.length; i++) {
    const char = String.fromCodePoint(raw.codePointAt(i)!);
    if (char.length === 2) i += 1; // a character outside the BMP: both halves are read
    if (char === "%") {
      const hex = raw.slice(i + 1, i + 3);
      if (!HEX.test(hex)) return { problem: "The path is not valid percent-encoding" };
      const byte = parseInt(hex, 16);
      if (byte === 0x2f || byte === 0x5c || byte === 0x00) {
        return { problem: "Encoded slashes, backslashes and NUL are not allowed in paths" };
      }
      const decoded = String.fromCharCode(byte);
      text += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
      i += 2;
    } else if (char === "\\" || char === "\0") {
      return { problem: "Backslashes and NUL are not allowed in paths" };
    } else if (RAW_ALLOWED.test(char)) {
      text += char;
    } else {
      const escaped = escapeUtf8(char);
      if (escaped === null) return { problem: "The path is not valid UTF-8" };
      text += escaped;
    }
  }
  try {
    decodeURIComponent(text);
  } catch {
    return { problem: "The path is not valid percent-encoding (UTF-8)" };
  }
  return { text };
}

/** One character as UTF-8 %XX escapes; null for a lone surrogate (no UTF-8 form). */
function escapeUtf8(char: string): string | null {
  try {
    return encodeURIComponent(char);
  } catch {
    return null;
  }
}

/** Drops `.` segments and joins; refuses `..` (already decoded: `%2e%2e` is `..` here). */
function joinSegments(segments: string[]): { path: string } | PathRefusal {
  const kept: string[] = [];
  for (const segment of segments) {
    if (segment === "..") return { problem: "Dot segments (..) are not allowed in paths" };
    if (segment !== "." && segment !== "") kept.push(segment);
  }
  return { path: `/${kept.join("/")}` };
}

/**
 * The canonical form of a tenant-relative request path (no query string), or why it is refused.
 * `/v1/entity/t%6fp/` → `/v1/entity/top`; `/v1//x` → `/v1/x`; `/v1/caf%c3%a9` → `/v1/caf%C3%A9`.
 */
export function canonicalRequestPath(raw: string): { path: string } | PathRefusal {
  if (!raw.startsWith("/")) return { problem: "The path must start with /" };
  if (raw.length > MAX_REQUEST_PATH_LENGTH) return { problem: `The path is longer than ${MAX_REQUEST_PATH_LENGTH} characters` };
  if (raw.includes("#")) return { problem: "A request path must not carry a fragment (#)" };
  if (raw.includes(";")) return { problem: "Path parameters (;) are not allowed in paths: origins strip them, so /a;x would reach /a" };
  const encoded = normalizeEncoding(raw);
  if ("problem" in encoded) return encoded;
  return joinSegments(encoded.text.split("/"));
}

/**
 * The canonical form of a `path_prefix=` caveat value, or why it is refused (../shared/INTEROP.md vectors:
 * `/v1/search/` → `/v1/search`, `/v1/%73earch` → `/v1/search`, `/v1/./search` → `/v1/search`).
 */
export function normalizePathPrefix(raw: string): { path: string } | PathRefusal {
  if (raw === "") return { problem: "path_prefix is empty" };
  if (!raw.startsWith("/")) return { problem: "path_prefix must be an absolute path" };
  if (raw.length > MAX_REQUEST_PATH_LENGTH) return { problem: `path_prefix is longer than ${MAX_REQUEST_PATH_LENGTH} characters` };
  const encoded = normalizeEncoding(raw);
  if ("problem" in encoded) return encoded;
  if (encoded.text.includes("://")) return { problem: "path_prefix must not carry a scheme" };
  const segments = encoded.text.slice(1).split("/");
  // One trailing slash is a spelling of the same prefix; any other empty segment is not a path.
  if (segments.length > 1 && segments[segments.length - 1] === "") segments.pop();
  if (segments.length > 1 && segments.includes("")) return { problem: "path_prefix must not contain empty segments (//)" };
  return joinSegments(segments);
}

/** True when a canonical path is the canonical prefix itself or below it (segment boundary, case-sensitive). */
export function isWithinPrefix(path: string, prefix: string): boolean {
  return prefix === "/" || path === prefix || path.startsWith(`${prefix}/`);
}

/** Characters a query carries raw without a URL parser rewriting them (it escapes `'` for http(s)). */
const RAW_QUERY_ALLOWED = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?%]$/;

/**
 * The query string as the origin will receive it and the gateway signs it: unchanged except that
 * characters a URL parser would percent-encode on the way are encoded here (so the signed query is
 * the one delivered); "?" alone becomes "". Nothing is decoded: the query belongs to the origin.
 * `search` includes its leading "?" (or is ""); refused when it carries a fragment.
 */
export function canonicalQuery(search: string): { search: string } | PathRefusal {
  if (search === "" || search === "?") return { search: "" };
  if (search.includes("#")) return { problem: "A request target must not carry a fragment (#)" };
  let text = "?";
  for (const char of search.slice(1)) {
    if (RAW_QUERY_ALLOWED.test(char)) {
      text += char;
      continue;
    }
    const escaped = char === "'" ? "%27" : escapeUtf8(char);
    if (escaped === null) return { problem: "The query string is not valid UTF-8" };
    text += escaped;
  }
  return { search: text };
}
