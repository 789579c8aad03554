// Free try end to end (spec 4.1 rule 3, 8): bearer JWTs from a local identity provider (a loopback
// JWKS server with keys generated here) and from our own issuer buy one call per endpoint per user
// per UTC day; invalid tokens never get a free call.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { createFreeTryVerifier } from "@/lib/payments/free-try.ts";
import { mintFreeTryToken } from "@/lib/payments/free-try-issuer.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, header, testClock, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { statusRoute } from "@/tests/helpers/origin.ts";

const ISSUER = "https://id.example.test/";
const AUDIENCE = "l402-hub-test";

let jwksServer: http.Server;
let jwksUrl: string;
let jwksFetches = 0;
let idpKey: CryptoKey;
let strangerKey: CryptoKey;
const clock = testClock();

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  idpKey = pair.privateKey;
  strangerKey = (await generateKeyPair("RS256")).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: "idp-1", alg: "RS256", use: "sig" };
  jwksServer = http.createServer((_req, res) => {
    jwksFetches += 1;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => jwksServer?.close(() => resolve()));
});

// Registered after the JWKS server's beforeAll: the configuration names its URL.
const t = useGatewayTest({
  env: () => ({ FREE_TRY_ISSUER: ISSUER, FREE_TRY_JWKS_URL: jwksUrl, FREE_TRY_AUDIENCE: AUDIENCE }),
  gateways: 2,
  clock,
  routes: (origin) => {
    for (const path of ["/v1/a", "/v1/b", "/v1/c"]) origin.route(path, statusRoute(path));
  },
});

let base: string;
let base2: string;

beforeEach(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/a", pricingModel: "per_request", priceSats: 3, freeTryEnabled: true });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/b", pricingModel: "token_bucket", priceSats: 9, tokenBudget: 3, freeTryEnabled: true });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/c", pricingModel: "per_request", priceSats: 3 });
  base = `${t.urls[0]}/gw/${slug}`;
  base2 = `${t.urls[1]}/gw/${slug}`;
});

/** An identity provider token, valid for an hour from the test clock unless told otherwise. */
function idpToken(subject: string, options: { key?: CryptoKey; issuer?: string; audience?: string; expiresInSeconds?: number; kid?: string } = {}) {
  const now = Math.floor(clock.now() / 1000);
  return new SignJWT({ email: `${subject}@example.test` })
    .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "idp-1" })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setSubject(subject)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresInSeconds ?? 3600))
    .sign(options.key ?? idpKey);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("free try", () => {
  it("gives an identity provider's user one call per endpoint per UTC day, then the normal L402 flow", async () => {
    const fetchesBefore = jwksFetches;
    const alice = await idpToken("alice");
    const free = await call(`${base}/v1/a`, bearer(alice));
    expect([free.status, header(free, "x-free-try"), header(free, "x-hub-payment")]).toEqual([200, "used", undefined]);
    expect(t.origin.received.at(-1)!.headers.authorization).toBeUndefined();

    const again = await call(`${base2}/v1/a`, bearer(alice));
    expect([again.status, header(again, "x-free-try")]).toEqual([402, undefined]);
    expect(again.json).toMatchObject({ error: "Payment Required", amountSats: 3 });

    // Each endpoint has its own quota; an endpoint without free try ignores the token.
    expect(header(await call(`${base}/v1/b`, bearer(alice)), "x-free-try")).toBe("used");
    expect((await call(`${base}/v1/c`, bearer(alice))).status).toBe(402);
    // Another user has their own.
    expect((await call(`${base}/v1/a`, bearer(await idpToken("bob")))).status).toBe(200);

    // The next UTC day brings a new free call.
    clock.advance(86_400_000);
    expect(header(await call(`${base}/v1/a`, bearer(await idpToken("alice"))), "x-free-try")).toBe("used");
    expect(await t.ctx.db.prisma.freeTryUse.count()).toBe(4);
    // Seven verifications, but the key set is fetched at most once per gateway instance (it is cached).
    expect(jwksFetches - fetchesBefore).toBeGreaterThan(0);
    expect(jwksFetches - fetchesBefore).toBeLessThanOrEqual(2);
  });

  it("accepts our own issuer's tokens (GET /api/free-try/token)", async () => {
    const { token } = await mintFreeTryToken({ appSecret: t.ctx.config.appSecret, issuer: t.ctx.config.siteUrl, userId: "user-1", now: new Date(clock.now()) });
    const res = await call(`${base}/v1/a`, bearer(token));
    expect([res.status, header(res, "x-free-try")]).toEqual([200, "used"]);
    expect((await call(`${base}/v1/a`, bearer(token))).status).toBe(402);
  });

  it("never gives a free call for an invalid token: 401 for forged, foreign or malformed ones, 402 once expired", async () => {
    const invalid = [
      await idpToken("mallory", { key: strangerKey }),
      await idpToken("mallory", { audience: "someone-else" }),
      await idpToken("mallory", { issuer: "https://evil.example.test/" }),
      (await idpToken("mallory")).replace(/\.[^.]+$/, ".c2lnbmF0dXJl"),
      `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: "m", exp: 9e9 })).toString("base64url")}.`,
      "not-a-jwt",
    ];
    for (const token of invalid) {
      const res = await call(`${base}/v1/a`, bearer(token));
      expect(res.status, token).toBe(401);
      expect(res.json.error.code).toBe("unauthorized");
    }
    const expired = await call(`${base}/v1/a`, bearer(await idpToken("carol", { expiresInSeconds: -120 })));
    expect(expired.status).toBe(402);
    expect(t.origin.received).toHaveLength(0);
    expect(await t.ctx.db.prisma.freeTryUse.count()).toBe(0);
  });

  it("gives the free try back when the origin fails, so the retry is free too", async () => {
    const dave = await idpToken("dave");
    const failed = await call(`${base}/v1/a?status=503`, bearer(dave));
    expect([failed.status, header(failed, "x-free-try")]).toEqual([503, undefined]);
    const retry = await call(`${base}/v1/a`, bearer(dave));
    expect([retry.status, header(retry, "x-free-try")]).toEqual([200, "used"]);
  });

  it("gives exactly one free call to concurrent requests of one user on two instances", async () => {
    const erin = await idpToken("erin");
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => call(`${i % 2 ? base2 : base}/v1/a`, bearer(erin))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 402)).toHaveLength(11);
    expect(t.origin.received).toHaveLength(1);
  });

  it("treats an unreachable key set as unverifiable (no free call, no accusation)", async () => {
    const verifier = createFreeTryVerifier({
      appSecret: t.ctx.config.appSecret,
      ownIssuer: t.ctx.config.siteUrl,
      external: { issuer: ISSUER, jwksUrl: "http://127.0.0.1:9/jwks.json", audience: AUDIENCE },
      jwksTimeoutMs: 500,
    });
    expect(await verifier.verify(await idpToken("frank"), new Date(clock.now()))).toEqual({ ok: false, reason: "unverifiable" });
  });
});
