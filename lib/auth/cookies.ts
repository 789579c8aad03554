// Set-Cookie values for the LNURL-auth flow: the browser-binding cookie of a challenge, and the
// Auth.js database-session cookie (same name and attributes Auth.js uses, so its adapter reads it).
import { LNURL_BROWSER_COOKIE } from "@/lib/config/platform-cookies.ts";

/** Auth.js's session cookie name: `__Secure-` prefixed on https sites. */
export function sessionCookieName(siteUrl: string): string {
  return siteUrl.startsWith("https:") ? "__Secure-authjs.session-token" : "authjs.session-token";
}

function secureAttr(siteUrl: string): string {
  return siteUrl.startsWith("https:") ? "; Secure" : "";
}

export function browserSecretCookie(siteUrl: string, secret: string, maxAgeSeconds: number): string {
  return `${LNURL_BROWSER_COOKIE}=${secret}; Path=/api/lnurl-auth; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secureAttr(siteUrl)}`;
}

export function clearBrowserSecretCookie(siteUrl: string): string {
  return `${LNURL_BROWSER_COOKIE}=; Path=/api/lnurl-auth; HttpOnly; SameSite=Lax; Max-Age=0${secureAttr(siteUrl)}`;
}

export function sessionCookie(siteUrl: string, token: string, expires: Date): string {
  return `${sessionCookieName(siteUrl)}=${token}; Path=/; HttpOnly; SameSite=Lax; Expires=${expires.toUTCString()}${secureAttr(siteUrl)}`;
}

/** One cookie's value from a Cookie header, or null. */
export function readCookie(header: string | null, name: string): string | null {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return null;
}
