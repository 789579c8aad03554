import { describe, expect, it } from "vitest";
import { cookiesForOrigin, hostOf, isPlatformCookie, setCookiesForClient, type CookieScope } from "./cookie-policy.ts";

describe("isPlatformCookie", () => {
  it.each([
    ["authjs.session-token", true],
    ["__Secure-authjs.session-token", true],
    ["__Host-authjs.csrf-token", true],
    ["authjs.callback-url", true],
    ["next-auth.session-token", true],
    ["__Secure-next-auth.session-token", true],
    ["hub-lnurl-auth", true],
    ["sid", false],
    ["authjs", false],
    ["my-authjs.session-token", false],
  ])("%s → %s", (name, platform) => expect(isPlatformCookie(name)).toBe(platform));
});

describe("cookiesForOrigin", () => {
  it("drops the platform's cookies and keeps the rest in order", () => {
    expect(cookiesForOrigin("a=1; authjs.session-token=s; b=2;  hub-lnurl-auth=x ;c")).toBe("a=1; b=2; c");
    expect(cookiesForOrigin(["a=1", "__Secure-authjs.session-token=s"])).toBe("a=1");
    expect(cookiesForOrigin("authjs.session-token=s")).toBeNull();
    expect(cookiesForOrigin(undefined)).toBeNull();
  });
});

describe("setCookiesForClient", () => {
  const tenantHost: CookieScope = { clientHost: "weather.gw.example.com", siteHost: "hub.example.com", pathPrefix: null };
  const sharedHost: CookieScope = { clientHost: "gw.example.com", siteHost: "hub.example.com", pathPrefix: "/gw/weather" };

  it.each([
    ["sid=1; Path=/; HttpOnly", tenantHost, "sid=1; Path=/; HttpOnly"],
    ["sid=1", tenantHost, "sid=1"],
    ["sid=1; Domain=weather.gw.example.com", tenantHost, null],
    ["sid=1; domain=example.com", tenantHost, null],
    ["authjs.session-token=x; Path=/", tenantHost, null],
    ["__Host-authjs.csrf-token=x; Path=/; Secure", tenantHost, null],
    ["=nameless", tenantHost, null],
    ["sid=1; Path=/; HttpOnly", sharedHost, "sid=1; Path=/gw/weather; HttpOnly"],
    ["sid=1; path=/v1/x; Secure", sharedHost, "sid=1; Path=/gw/weather/v1/x; Secure"],
    ["sid=1; Path=relative", sharedHost, "sid=1"],
    ["sid=1", sharedHost, "sid=1"],
  ])("%s → %s", (value, scope, expected) => {
    expect(setCookiesForClient(value, scope)).toEqual(expected === null ? [] : [expected]);
  });

  it("relays nothing when the client reached the gateway on the site's host, or on no host at all", () => {
    expect(setCookiesForClient(["a=1", "b=2"], { clientHost: "hub.example.com", siteHost: "hub.example.com", pathPrefix: "/gw/weather" })).toEqual([]);
    expect(setCookiesForClient("a=1", { clientHost: "", siteHost: "hub.example.com", pathPrefix: "/gw/weather" })).toEqual([]);
  });
});

describe("hostOf", () => {
  it.each([
    ["Hub.Example.com:8402", "hub.example.com"],
    ["localhost", "localhost"],
    ["[::1]:8402", "[::1]"],
    [undefined, ""],
  ])("%s → %s", (header, host) => expect(hostOf(header)).toBe(host));
});
