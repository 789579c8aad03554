// Issue 23 finding 12 (part): the origin signature left the query string unsigned (anyone on the
// way could turn `?amount=1` into `?amount=1000` and the origin accepted it), and the verifier
// refused every request whose timestamp was even 1 ms ahead of the origin's clock (a gateway clock
// slightly ahead failed every call). The v1 `X-Gateway-Signature` stays byte for byte what deployed
// verifiers compute; `X-Gateway-Signature-V2` also covers the query, and our verifier checks it.
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalOriginPayload, signOriginPayload, verifyGatewayRequest } from "@l402-hub/sdk/origin";
import { readOriginSecrets } from "@/lib/tenants/secrets.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

let base: string;
let secrets: { gatewaySecret: string; hmacSecret: string };

const t = useGatewayTest({ routes: (origin) => origin.route("/v1/transfer", json(200, { ok: true })) });

beforeEach(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/transfer" });
  const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } });
  secrets = readOriginSecrets(t.ctx.config.appSecret, tenant);
  base = `${t.urls[0]}/gw/${slug}`;
});

/** One call through the gateway; what the origin received. */
async function throughGateway(target: string) {
  expect((await call(`${base}${target}`)).status).toBe(200);
  return t.origin.received.at(-1)!;
}

describe("the query string is signed", () => {
  it("accepts the query the gateway sent and refuses any other", async () => {
    const seen = await throughGateway("/v1/transfer?amount=1&to=alice");
    expect(seen.url).toBe("/v1/transfer?amount=1&to=alice");
    expect(seen.headers["x-gateway-signature-v2"]).toMatch(/^[0-9a-f]{64}$/);
    const verify = (query: string, extra: object = {}) =>
      verifyGatewayRequest({ method: "GET", path: "/v1/transfer", query, headers: seen.headers, rawBody: "", secrets: [secrets], ...extra });
    expect(await verify("amount=1&to=alice")).toEqual({ ok: true });
    expect(await verify("?amount=1&to=alice")).toEqual({ ok: true });
    expect(await verify("amount=1000&to=alice")).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(await verify("")).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("keeps X-Gateway-Signature exactly the v1 scheme deployed verifiers compute (no query)", async () => {
    const seen = await throughGateway("/v1/transfer?amount=1");
    const timestamp = seen.headers["x-gateway-timestamp"] as string;
    const nonce = seen.headers["x-gateway-nonce"] as string;
    const v1 = signOriginPayload(secrets.hmacSecret, canonicalOriginPayload({ method: "GET", path: "/v1/transfer", timestamp, nonce, body: "" }));
    expect(seen.headers["x-gateway-signature"]).toBe(v1);
    // A verifier of the old scheme (no query option, no v2 header read) still accepts it.
    const { "x-gateway-signature-v2": _v2, ...oldHeaders } = seen.headers;
    expect(await verifyGatewayRequest({ method: "GET", path: "/v1/transfer", headers: oldHeaders, rawBody: "", secrets: [secrets] })).toEqual({ ok: true });
  });

  it("refuses a request stripped of its v2 signature when told to require it", async () => {
    const seen = await throughGateway("/v1/transfer?amount=1");
    const { "x-gateway-signature-v2": _v2, ...downgraded } = seen.headers;
    const options = { method: "GET", path: "/v1/transfer", query: "amount=1000", headers: downgraded, rawBody: "", secrets: [secrets] };
    expect(await verifyGatewayRequest({ ...options, requireSignatureV2: true })).toEqual({ ok: false, reason: "missing_headers" });
    expect(await verifyGatewayRequest({ ...options, query: "amount=1", requireSignatureV2: true })).toEqual({ ok: false, reason: "missing_headers" });
  });
});

describe("clock skew", () => {
  const now = 1_700_000_000_000;
  const nonce = "8a7f1e7e-1b2c-4d3e-9f00-0123456789ab";
  function signedAt(timestamp: number) {
    const payload = canonicalOriginPayload({ method: "GET", path: "/v1/x", timestamp: String(timestamp), nonce, body: "" });
    return {
      method: "GET",
      path: "/v1/x",
      rawBody: "",
      now,
      secrets: [{ hmacSecret: "hmac_test" }],
      headers: { "x-gateway-signature": signOriginPayload("hmac_test", payload), "x-gateway-timestamp": String(timestamp), "x-gateway-nonce": nonce },
    };
  }

  it("accepts a gateway clock a few seconds ahead (5 s by default), not more", async () => {
    expect(await verifyGatewayRequest(signedAt(now + 1))).toEqual({ ok: true });
    expect(await verifyGatewayRequest(signedAt(now + 5_000))).toEqual({ ok: true });
    expect(await verifyGatewayRequest(signedAt(now + 5_001))).toEqual({ ok: false, reason: "timestamp_out_of_window" });
    expect(await verifyGatewayRequest({ ...signedAt(now + 9_000), maxFutureSkewMs: 10_000 })).toEqual({ ok: true });
    expect(await verifyGatewayRequest({ ...signedAt(now + 1), maxFutureSkewMs: 0 })).toEqual({ ok: false, reason: "timestamp_out_of_window" });
  });

  it("keeps the 30 s window for the past", async () => {
    expect(await verifyGatewayRequest(signedAt(now - 30_000))).toEqual({ ok: true });
    expect(await verifyGatewayRequest(signedAt(now - 30_001))).toEqual({ ok: false, reason: "timestamp_out_of_window" });
  });

  it("remembers a nonce for as long as its request can verify (window plus skew)", async () => {
    const ttls: number[] = [];
    await verifyGatewayRequest({ ...signedAt(now + 2_000), rememberNonce: (_nonce, ttlMs) => (ttls.push(ttlMs), true) });
    expect(ttls).toEqual([35_000]);
  });
});
