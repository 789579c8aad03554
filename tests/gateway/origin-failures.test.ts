// Timeouts, client aborts, wallet outages and expired tokens: nothing charged, nothing leaked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import type { Gateway } from "@/lib/gateway/server.ts";
import { mintL402Macaroon } from "@/lib/l402/macaroon.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { startGateways, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

let walletless: Gateway;
let base: string;
let tenantId: string;
let slowId: string;
let slug: string;
const originClosed: string[] = [];

// The default rate limits and a short origin timeout, for this gateway and a second one without a wallet.
const gatewayOptions = { rateLimits: {}, limits: { originTimeoutMs: 400 } };
const t = useGatewayTest({
  gatewayOptions,
  resetEachTest: false,
  routes: (origin) => {
    origin.route("/v1/slow", (_req, res) => {
      res.on("close", () => originClosed.push("slow"));
      setTimeout(() => res.writeHead(200).end("late"), 3_000);
    });
    origin.route("/v1/quick", json(200, { ok: true }));
  },
});

beforeAll(async () => {
  ({ tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url }));
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  slowId = (await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/slow", pricingModel: "per_request", priceSats: 3 })).id;
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/quick", pricingModel: "per_request", priceSats: 3 });
  base = `${t.urls[0]}/gw/${slug}`;
  [walletless] = (await startGateways(t.ctx, null, 1, gatewayOptions)).gateways;
});
afterAll(async () => {
  await walletless?.close();
});

async function paidProof(path: string) {
  const challenge = await request(`${base}${path}`);
  const body = (await challenge.body.json()) as { paymentRequest: string };
  const header = [challenge.headers["www-authenticate"]].flat()[0] as string;
  const macaroon = /macaroon="([^"]+)"/.exec(header)![1];
  const { preimage, paymentHash } = await t.devNode.pay(body.paymentRequest);
  return { authorization: `L402 ${macaroon}:${preimage}`, paymentHash, preimage };
}

describe("origin failures", () => {
  it("answers 504 and reverts the charge when the origin is slower than the timeout", async () => {
    const { authorization, paymentHash } = await paidProof("/v1/slow");
    const started = Date.now();
    const res = await request(`${base}/v1/slow`, { headers: { authorization } });
    expect(res.statusCode).toBe(504);
    expect(res.headers["x-hub-payment"]).toBe("reverted");
    expect(res.headers["x-hub-payment-code"]).toBe("upstream_failed_retryable");
    // The error table's code for a 504, not bad_gateway (issue 25 item 2).
    expect(((await res.body.json()) as { error: { code: string } }).error.code).toBe("gateway_timeout");
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await t.ctx.db.prisma.proof.findUniqueOrThrow({ where: { paymentHash } })).state).toBe("released");
  });

  it("cancels the origin request and releases the proof when the client goes away", async () => {
    const { authorization, paymentHash } = await paidProof("/v1/slow");
    const controller = new AbortController();
    const pending = request(`${base}/v1/slow`, { headers: { authorization }, signal: controller.signal }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 150));
    controller.abort();
    await pending;
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline && (await t.ctx.db.prisma.proof.findUnique({ where: { paymentHash } }))?.state !== "released") {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await t.ctx.db.prisma.proof.findUniqueOrThrow({ where: { paymentHash } })).state).toBe("released");
    expect(originClosed.length).toBeGreaterThan(0);
  });
});

describe("payment layer refusals", () => {
  it("answers 503 without a challenge when the wallet cannot create an invoice", async () => {
    const port = (walletless.server.address() as { port: number }).port;
    const res = await request(`http://127.0.0.1:${port}/gw/${slug}/v1/quick`);
    expect(res.statusCode).toBe(503);
    expect(res.headers["www-authenticate"]).toBeUndefined();
    expect(res.headers["retry-after"]).toBe("30");
    expect(((await res.body.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
  });

  it("answers an expired token with a fresh challenge, not_charged", async () => {
    const { preimage, paymentHash } = await paidProof("/v1/slow");
    const { macaroon } = mintL402Macaroon({
      appSecret: t.ctx.config.appSecret,
      paymentHash,
      tenantId,
      scope: { kind: "endpoint", endpointId: slowId },
      amountSats: 3,
      validUntil: new Date(Date.now() - 1000),
    });
    const res = await request(`${base}/v1/slow`, { headers: { authorization: `L402 ${macaroon}:${preimage}` } });
    expect(res.statusCode).toBe(402);
    expect(res.headers["x-hub-payment"]).toBe("not_charged");
    expect(res.headers["x-hub-payment-code"]).toBe("payment_failed");
    expect(((await res.body.json()) as { paymentHash: string }).paymentHash).not.toBe(paymentHash);
  });
});
