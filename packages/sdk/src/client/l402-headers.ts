// The L402 header grammar (../shared/INTEROP.md "L402 challenge" and "Credentials"), as pure functions with
// no Node-only imports: part of the client SDK, which the gateway and lib/l402 import it from:
//   challenge:  WWW-Authenticate: L402 macaroon="<std base64>", invoice="<bolt11>"  (+ the same with LSAT)
//   credential: Authorization: L402 <macaroon base64>:<preimage hex>               (LSAT accepted too)
// Parsing is bounded (lengths, line counts) and regex-linear, so hostile headers cost little.

/** Longest Authorization input we read, summed over all lines; real credentials are under 1 KB. */
export const MAX_AUTHORIZATION_LENGTH = 8192;
/** Most Authorization lines we read; clients send one, or an LSAT and an L402 line. */
const MAX_AUTHORIZATION_LINES = 16;
/** Longest WWW-Authenticate value parseChallenge reads (client side, so more generous). */
const MAX_CHALLENGE_LENGTH = 65536;

const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const ANY_BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const BOLT11_CHARS = /^[A-Za-z0-9]+$/;
const PREIMAGE_HEX = /^[0-9a-fA-F]{64}$/;
/** RFC 6750 b64token, the shape of a Bearer credential (our free-try JWTs fit it). */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** `<scheme> <payload>` with nothing after the payload. */
const CREDENTIAL_LINE = /^([A-Za-z][A-Za-z0-9_-]*)[ \t]+([^ \t]+)$/;

/**
 * Normalizes standard or URL-safe, padded or unpadded base64 to standard padded base64 (what our
 * headers carry), so one token compares equal in every spelling; null when it is not base64 at all.
 */
export function toStandardBase64(text: string): string | null {
  // Already standard and padded (every token we mint, most clients): nothing to rewrite.
  if (text.length % 4 === 0 && text.length > 0 && STANDARD_BASE64.test(text)) return text;
  if (text.length === 0 || !ANY_BASE64.test(text)) return null;
  const body = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  if (body.length % 4 === 1) return null;
  return body + "=".repeat((4 - (body.length % 4)) % 4);
}

/**
 * The two WWW-Authenticate lines of a 402: L402 first, then the legacy LSAT line for old clients.
 * Order and spacing are fixed because deployed clients match them with fixed regular expressions.
 */
export function challengeHeaderValues(macaroon: string, invoice: string): [string, string] {
  // Both values go inside quotes in a header: refuse anything that could break out of them.
  if (!STANDARD_BASE64.test(macaroon)) throw new TypeError("The challenge macaroon must be standard base64");
  if (!BOLT11_CHARS.test(invoice)) throw new TypeError("The challenge invoice must be a bech32 BOLT11 string");
  const params = `macaroon="${macaroon}", invoice="${invoice}"`;
  return [`L402 ${params}`, `LSAT ${params}`];
}

/** The Authorization value a client sends after paying (SDK, dev wallet, tests). */
export function credentialHeaderValue(macaroon: string, preimage: string, scheme: "L402" | "LSAT" = "L402"): string {
  return `${scheme} ${macaroon}:${preimage.toLowerCase()}`;
}

/**
 * What the Authorization header carried. `l402.macaroon` is normalized to standard base64 and
 * `preimage` to lowercase hex; other schemes (e.g. Basic meant for nobody here) count as none.
 */
export type ParsedCredential =
  | { kind: "l402"; scheme: "L402" | "LSAT"; macaroon: string; preimage: string }
  | { kind: "bearer"; token: string }
  | { kind: "none" }
  | { kind: "malformed"; reason: string };

type SingleCredential = Exclude<ParsedCredential, { kind: "none" } | { kind: "malformed" }>;

function malformed(reason: string): ParsedCredential {
  return { kind: "malformed", reason };
}

/** Parses one `<scheme> <payload>` credential; null for schemes that are not ours. */
function parseCredential(text: string): SingleCredential | { kind: "malformed"; reason: string } | null {
  const match = CREDENTIAL_LINE.exec(text);
  if (!match) {
    // A lone scheme word, or a payload with spaces in it.
    const scheme = /^[A-Za-z][A-Za-z0-9_-]*/.exec(text)?.[0].toLowerCase();
    if (scheme === "l402" || scheme === "lsat" || scheme === "bearer") {
      return { kind: "malformed", reason: `the ${scheme.toUpperCase()} credential must be one token after the scheme` };
    }
    return null;
  }
  const scheme = match[1].toLowerCase();
  const payload = match[2];
  if (scheme === "bearer") {
    if (!BEARER_TOKEN.test(payload)) return { kind: "malformed", reason: "the Bearer token has invalid characters" };
    return { kind: "bearer", token: payload };
  }
  if (scheme !== "l402" && scheme !== "lsat") return null;
  const separator = payload.lastIndexOf(":");
  if (separator < 0) return { kind: "malformed", reason: "expected <macaroon>:<preimage> after the scheme" };
  const macaroon = toStandardBase64(payload.slice(0, separator));
  const preimage = payload.slice(separator + 1);
  if (!macaroon) return { kind: "malformed", reason: "the macaroon is not base64" };
  if (!PREIMAGE_HEX.test(preimage)) return { kind: "malformed", reason: "the preimage must be 64 hex characters" };
  return { kind: "l402", scheme: scheme === "l402" ? "L402" : "LSAT", macaroon, preimage: preimage.toLowerCase() };
}

/** True when two credentials carry the same proof (the LSAT and L402 lines of one client). */
function sameCredential(a: SingleCredential, b: SingleCredential): boolean {
  if (a.kind === "l402" && b.kind === "l402") return a.macaroon === b.macaroon && a.preimage === b.preimage;
  if (a.kind === "bearer" && b.kind === "bearer") return a.token === b.token;
  return false;
}

/**
 * Parses `req.headersDistinct.authorization` (every line, since Node's `req.headers` keeps only the
 * first). Duplicate lines with one proof are accepted (L402 wins as the reported scheme); two
 * different credentials are malformed. Never throws.
 */
export function parseAuthorization(values: string[] | undefined): ParsedCredential {
  if (values == null) return { kind: "none" };
  if (!Array.isArray(values)) return malformed("unexpected Authorization header type");
  if (values.length > MAX_AUTHORIZATION_LINES) return malformed("too many Authorization lines");
  let total = 0;
  for (const value of values) {
    if (typeof value !== "string") return malformed("unexpected Authorization header type");
    total += value.length;
  }
  if (total > MAX_AUTHORIZATION_LENGTH) return malformed("the Authorization header is too long");

  let found: SingleCredential | null = null;
  // fetch() joins repeated headers with ", "; no credential we accept contains a comma.
  for (const piece of values.length === 1 && !values[0].includes(",") ? values : values.flatMap((value) => value.split(","))) {
    const text = piece.trim();
    if (text.length === 0) continue;
    const credential = parseCredential(text);
    if (credential === null) continue;
    if (credential.kind === "malformed") return credential;
    if (found === null) {
      found = credential;
    } else if (!sameCredential(found, credential)) {
      return malformed("the request carries two different credentials");
    } else if (found.kind === "l402" && credential.kind === "l402" && credential.scheme === "L402") {
      found = credential;
    }
  }
  return found ?? { kind: "none" };
}

/** A challenge's auth-params: `name="quoted"` or `name=token`, comma separated (RFC 9110). */
const CHALLENGE_PARAM = /[ \t]*,?[ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]*=[ \t]*(?:"([^"]*)"|([^ \t,"]+))/y;
/** Where an L402 or LSAT challenge starts: at the start or after a comma or space. */
const CHALLENGE_START = /(?:^|[ \t,])(L402|LSAT)[ \t]+/gi;

/**
 * Client side: extracts the macaroon and invoice from a WWW-Authenticate value, tolerating either
 * scheme, the joined form of both lines, parameters in any order, `token=` for `macaroon=` and
 * unquoted values. Prefers the L402 challenge; null when none is complete.
 */
export function parseChallenge(header: string): { macaroon: string; invoice: string } | null {
  if (typeof header !== "string" || header.length > MAX_CHALLENGE_LENGTH) return null;
  let fallback: { macaroon: string; invoice: string } | null = null;
  CHALLENGE_START.lastIndex = 0;
  for (let start = CHALLENGE_START.exec(header); start; start = CHALLENGE_START.exec(header)) {
    const params = new Map<string, string>();
    CHALLENGE_PARAM.lastIndex = CHALLENGE_START.lastIndex;
    for (let param = CHALLENGE_PARAM.exec(header); param; param = CHALLENGE_PARAM.exec(header)) {
      const name = param[1].toLowerCase();
      if (!params.has(name)) params.set(name, param[2] ?? param[3]);
      CHALLENGE_START.lastIndex = CHALLENGE_PARAM.lastIndex;
    }
    const macaroon = params.get("macaroon") ?? params.get("token");
    const invoice = params.get("invoice");
    if (!macaroon || !invoice) continue;
    if (start[1].toUpperCase() === "L402") return { macaroon, invoice };
    fallback ??= { macaroon, invoice };
  }
  return fallback;
}
