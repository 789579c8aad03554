// Where a browser may be sent after sign-in: a path on this site, nothing else. A path is judged as
// a browser would read it: browsers drop tabs and newlines anywhere in a URL and C0 controls and
// spaces at its ends (so `/<tab>/evil.example` is `//evil.example`, another host), and a value may
// be percent-decoded again on its way (a query parameter, a cookie, Auth.js's callbackUrl), so
// every decoding of it must still be a same-site path.

/** Where a refused or missing callback goes. */
export const DEFAULT_CALLBACK_PATH = "/dashboard";

/** Decodings tried before a value counts as too deeply encoded to be a real path. */
const MAX_DECODINGS = 4;

/** What a browser's URL parser removes before it reads a URL (WHATWG URL, "basic URL parser"). */
function browserStripped(text: string): string {
  // eslint-disable-next-line no-control-regex -- C0 controls and space are what the parser strips
  return text.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
}

/** `/…` but not `//…` or `/\…` (another host to a browser) and no control characters. */
function isSameSitePathShape(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  return text.startsWith("/") && !text.startsWith("//") && !text.startsWith("/\\") && !/[\u0000-\u001f\u007f]/.test(text);
}

/**
 * `value` when it is a same-site path in every decoding (after stripping what browsers strip),
 * else /dashboard. Malformed or overly nested percent-encoding is refused too.
 */
export function safeCallbackUrl(value: string | null | undefined): string {
  if (!value) return DEFAULT_CALLBACK_PATH;
  const path = browserStripped(value);
  let form = path;
  for (let decodings = 0; isSameSitePathShape(form); decodings++) {
    let decoded: string;
    try {
      decoded = browserStripped(decodeURIComponent(form));
    } catch {
      return DEFAULT_CALLBACK_PATH;
    }
    if (decoded === form) return path;
    if (decodings === MAX_DECODINGS) return DEFAULT_CALLBACK_PATH;
    form = decoded;
  }
  return DEFAULT_CALLBACK_PATH;
}

/**
 * Auth.js's redirect callback: an absolute URL on the site for any callback, relative or absolute;
 * one that leaves the site, or is no safe path, becomes the site's /dashboard.
 */
export function siteRedirectUrl(url: string, origin: string): string {
  const path = url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
  return `${origin}${safeCallbackUrl(path)}`;
}
