// The names of the cookies the web app sets for itself. They live here, not in lib/auth, because
// the gateway must recognise them too (it keeps them from crossing to origins and back:
// lib/origin/cookie-policy.ts) and the gateway may not depend on lib/auth.

/** Auth.js names its cookies `authjs.*` (v5) or `next-auth.*` (v4), with `__Secure-`/`__Host-` in front on https. */
export const AUTH_COOKIE_PREFIXES = ["authjs.", "next-auth."] as const;

/** Holds the browser's claim secret of its latest LNURL-auth challenge; only sent to our routes. */
export const LNURL_BROWSER_COOKIE = "hub-lnurl-auth";
