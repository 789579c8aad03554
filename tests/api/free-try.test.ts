// GET /api/free-try/token and GET /api/.well-known/jwks.json: a signed-in user gets a token that
// verifies against the published key set, and that the gateway's verifier accepts.
import { describe, expect, it, vi } from "vitest";
import { createLocalJWKSet, jwtVerify } from "jose";
import { GET as getJwks } from "@/app/api/.well-known/jwks.json/route.ts";
import { GET as getToken } from "@/app/api/free-try/token/route.ts";
import { getSignedInUserId } from "@/lib/auth/next-auth.ts";
import { createFreeTryVerifier, freeTryUserKey } from "@/lib/payments/free-try.ts";
import { FREE_TRY_AUDIENCE } from "@/lib/payments/free-try-issuer.ts";
import { call, useApiContext } from "./helpers.ts";

// The session lookup is next-auth's; here it is replaced so the route's own rules are tested.
vi.mock("@/lib/auth/next-auth.ts", () => ({ getSignedInUserId: vi.fn(async () => null) }));

const api = useApiContext();

describe("free-try token", () => {
  it("answers 401 when signed out", async () => {
    vi.mocked(getSignedInUserId).mockResolvedValueOnce(null);
    const res = await call(getToken, { method: "GET", path: "/free-try/token" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
  });

  it("gives a signed-in user a short-lived token that verifies with the published JWKS", async () => {
    vi.mocked(getSignedInUserId).mockResolvedValueOnce("user-42");
    const res = await call(getToken, { method: "GET", path: "/free-try/token" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { siteUrl } = api.server().config;
    expect(res.body).toMatchObject({ tokenType: "Bearer", issuer: siteUrl, audience: FREE_TRY_AUDIENCE });
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(50 * 60_000);

    const jwks = await call(getJwks, { method: "GET", path: "/.well-known/jwks.json" });
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get("cache-control")).toContain("max-age");
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    expect(jwks.body.keys[0].d).toBeUndefined();
    const { payload } = await jwtVerify(res.body.token, createLocalJWKSet(jwks.body), { issuer: siteUrl, audience: FREE_TRY_AUDIENCE });
    expect(payload.sub).toBe("user-42");

    const verifier = createFreeTryVerifier({ appSecret: api.server().config.appSecret, ownIssuer: siteUrl, external: null });
    expect(await verifier.verify(res.body.token, new Date())).toEqual({ ok: true, userKey: freeTryUserKey(siteUrl, "user-42") });
    // Another install (another APP_SECRET) does not accept it.
    const stranger = createFreeTryVerifier({ appSecret: "another-app-secret-0123456789abcdef0123", ownIssuer: siteUrl, external: null });
    expect(await stranger.verify(res.body.token, new Date())).toEqual({ ok: false, reason: "invalid" });
  });
});
