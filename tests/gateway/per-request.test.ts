// The per_request L402 flow end to end: real gateway, real origin, real database, dev node.
import { beforeEach, describe, expect, it } from "vitest";
import bolt11 from "bolt11";
import http from "node:http";
import { request } from "undici";
import { verifyGatewayRequest } from "@l402-hub/sdk/origin";
import { invoiceSettledDataSchema } from "@/lib/events/catalogue.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { readOriginSecrets } from "@/lib/tenants/secrets.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

const l402Regex = /(LSAT|L402)\s+macaroon="([^"]+)",\s*invoice="([^"]+)"/i;

// Two gateway instances on one database: what a load balancer would spread requests over.
const t = useGatewayTest({
  gateways: 2,
  // This file tests payments, not limits (tests/gateway/rate-limits.test.ts does).
  gatewayOptions: { rateLimits: { endpointPerMinute: 1e6, globalPerMinute: 1e6, credentialedPerMinute: 1e6, forgeriesBeforeDemotion: 1e6, demotionMs: 1 } },
  routes: (origin) => {
    origin.route("/v1/paid", json(200, { ok: true }));
    origin.route("/v1/free", json(200, { free: true }));
    origin.route("/v1/boom", json(500, { error: "boom" }));
    origin.route("/v1/busy", json(429, { error: "slow down" }));
    origin.route("/v1/missing", json(404, { error: "nope" }));
    origin.route("/v1/echo", (req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ body: req.body })));
  },
});

type Setup = { tenantId: string; slug: string; paidId: string; base: string };
let setup: Setup;

beforeEach(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url, name: "Weather Co" });
  await webhookSubscriptionFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId);
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  const paid = await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 7 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free" });
  for (const path of ["/v1/boom", "/v1/busy", "/v1/missing"]) {
    await endpointFactory(t.ctx.db.prisma, tenantId, { path, pricingModel: "per_request", priceSats: 2 });
  }
  await endpointFactory(t.ctx.db.prisma, tenantId, { method: "POST", path: "/v1/echo", pricingModel: "per_request", priceSats: 1 });
  setup = { tenantId, slug, paidId: paid.id, base: `${t.urls[0]}/gw/${slug}` };
});

async function get(url: string, headers: Record<string, string | string[]> = {}, method: "GET" | "POST" = "GET", body?: string | Buffer) {
  const res = await request(url, { method, headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

/** A raw HTTP/1.1 request: no client-side path normalization or header filtering. */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: "GET", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Requests a challenge, pays it with the dev node, returns the Authorization value. */
async function payFor(url: string, method: "GET" | "POST" = "GET"): Promise<{ authorization: string; paymentHash: string }> {
  const challenge = await get(url, {}, method, method === "POST" ? "{}" : undefined);
  expect(challenge.status).toBe(402);
  const header = [challenge.headers["www-authenticate"]].flat()[0] as string;
  const [, , macaroon, invoice] = l402Regex.exec(header)!;
  const { preimage } = await t.devNode.pay(invoice);
  return { authorization: `L402 ${macaroon}:${preimage}`, paymentHash: challenge.json.paymentHash };
}

describe("challenge", () => {
  it("answers 402 with both WWW-Authenticate lines, a JSON body and an invoice for exactly the price", async () => {
    const res = await get(`${setup.base}/v1/paid`);
    expect(res.status).toBe(402);
    const lines = [res.headers["www-authenticate"]].flat() as string[];
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^L402 macaroon="[A-Za-z0-9+/=]+", invoice="lnbcrt[0-9a-z]+"$/);
    expect(lines[1]).toMatch(/^LSAT macaroon="/);
    expect(l402Regex.exec(lines[1])![2]).toBe(l402Regex.exec(lines[0])![2]);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["access-control-expose-headers"]).toContain("WWW-Authenticate");
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json).toMatchObject({ error: "Payment Required", amountSats: 7, paymentRequest: l402Regex.exec(lines[0])![3] });
    expect(res.json).not.toHaveProperty("model");
    const decoded = bolt11.decode(res.json.paymentRequest);
    expect(decoded.satoshis).toBe(7);
    expect(decoded.tags.find((t) => t.tagName === "payment_hash")?.data).toBe(res.json.paymentHash);
    expect(t.origin.received).toHaveLength(0);
    expect(await t.ctx.db.prisma.invoice.count({ where: { paymentHash: res.json.paymentHash, amountSats: 7, status: "pending" } })).toBe(1);
  });

  it("answers 503 without a challenge when the tenant has no wallet", async () => {
    await t.ctx.db.prisma.wallet.deleteMany({ where: { tenantId: setup.tenantId } });
    const res = await get(`${setup.base}/v1/paid`);
    expect(res.status).toBe(503);
    expect(res.headers["www-authenticate"]).toBeUndefined();
  });
});

describe("paid call", () => {
  it("proxies once with a valid proof, settles the invoice with one event, then refuses the spent proof", async () => {
    const { authorization, paymentHash } = await payFor(`${setup.base}/v1/paid?city=Oslo`);
    const first = await get(`${setup.base}/v1/paid?city=Oslo`, { authorization });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ ok: true });
    expect(first.headers["x-hub-payment"]).toBe("charged");
    expect(first.headers["x-hub-payment-code"]).toBeUndefined();
    const seen = t.origin.received.at(-1)!;
    expect(seen.url).toBe("/v1/paid?city=Oslo");
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["x-request-id"]).toBe(first.headers["x-request-id"]);

    const invoice = await t.ctx.db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash } });
    expect(invoice.status).toBe("settled");
    expect(await t.ctx.db.prisma.outboxEvent.count({ where: { type: "invoice.settled", tenantId: setup.tenantId } })).toBe(1);
    // The claim statement's SQL twin of settleInvoice writes the same data, key for key and in the same formats.
    const event = await t.ctx.db.prisma.outboxEvent.findFirstOrThrow({ where: { type: "invoice.settled", tenantId: setup.tenantId } });
    expect(invoiceSettledDataSchema.strict().parse(event.data)).toEqual({
      paymentHash,
      amountSats: invoice.amountSats,
      purpose: "per_request",
      endpointId: invoice.endpointId,
      settledAt: invoice.settledAt!.toISOString(),
      source: "proof",
    });

    const again = await get(`${t.urls[1]}/gw/${setup.slug}/v1/paid?city=Oslo`, { authorization });
    expect(again.status).toBe(402);
    expect(again.headers["x-hub-payment"]).toBe("not_charged");
    expect(again.headers["x-hub-payment-code"]).toBe("payment_failed");
    expect(again.json.paymentHash).not.toBe(paymentHash);
    expect(t.origin.received).toHaveLength(1);
  });

  it("settles the invoice of a tenant that receives no invoice.settled without writing the event", async () => {
    await t.ctx.db.prisma.webhookSubscription.updateMany({ where: { tenantId: setup.tenantId }, data: { events: ["session.created"] } });
    const { authorization, paymentHash } = await payFor(`${setup.base}/v1/paid`);
    expect((await get(`${setup.base}/v1/paid`, { authorization })).status).toBe(200);
    expect(await t.ctx.db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ status: "settled", settledAt: expect.any(Date) });
    expect(await t.ctx.db.prisma.proof.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ state: "consumed" });
    expect(await t.ctx.db.prisma.outboxEvent.count()).toBe(0);
  });

  it("signs the origin request so the SDK verifier accepts it", async () => {
    const { authorization } = await payFor(`${setup.base}/v1/echo`, "POST");
    const res = await get(`${setup.base}/v1/echo`, { authorization, "content-type": "application/json" }, "POST", '{"q":"ünïcode"}');
    expect(res.status).toBe(200);
    const seen = t.origin.received.at(-1)!;
    const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { id: setup.tenantId } });
    const secrets = readOriginSecrets(t.ctx.config.appSecret, tenant);
    expect(await verifyGatewayRequest({ method: "POST", path: "/v1/echo", headers: seen.headers, rawBody: seen.body, secrets: [secrets] })).toEqual({
      ok: true,
    });
    expect(seen.headers["x-gateway-secret"]).toBe(secrets.gatewaySecret);
    expect(await verifyGatewayRequest({ method: "POST", path: "/v1/echo", headers: seen.headers, rawBody: '{"q":"tampered"}', secrets: [secrets] })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("accepts the legacy LSAT scheme and a client that sends both lines", async () => {
    const { authorization } = await payFor(`${setup.base}/v1/paid`);
    const lsat = authorization.replace(/^L402/, "LSAT");
    const res = await get(`${setup.base}/v1/paid`, { authorization: [lsat, authorization] });
    expect(res.status).toBe(200);
  });

  it("reverts the charge when the origin fails (5xx, 429, unreachable) so the same proof redeems again", async () => {
    const boom = await payFor(`${setup.base}/v1/boom`);
    for (let i = 0; i < 2; i++) {
      const res = await get(`${setup.base}/v1/boom`, { authorization: boom.authorization });
      expect(res.status).toBe(500);
      expect(res.headers["x-hub-payment"]).toBe("reverted");
      expect(res.headers["x-hub-payment-code"]).toBe("upstream_failed_retryable");
    }
    const busy = await payFor(`${setup.base}/v1/busy`);
    expect((await get(`${setup.base}/v1/busy`, { authorization: busy.authorization })).headers["x-hub-payment"]).toBe("reverted");
    // Fix the origin: the very same proof now buys one successful call.
    t.origin.route("/v1/boom", json(200, { recovered: true }));
    const ok = await get(`${setup.base}/v1/boom`, { authorization: boom.authorization });
    expect(ok.status).toBe(200);
    expect(ok.headers["x-hub-payment"]).toBe("charged");
    t.origin.route("/v1/boom", json(500, { error: "boom" }));

    const paid = await payFor(`${setup.base}/v1/paid`);
    await t.ctx.db.prisma.tenant.update({ where: { id: setup.tenantId }, data: { originUrl: "http://127.0.0.1:9" } });
    t.gateways.forEach((g) => g.tenants.invalidate());
    const down = await get(`${setup.base}/v1/paid`, { authorization: paid.authorization });
    expect(down.status).toBe(502);
    expect(down.headers["x-hub-payment"]).toBe("reverted");
    expect(down.json.error.code).toBe("bad_gateway");
  });

  it("keeps the charge when the origin rejects the request with another 4xx", async () => {
    const { authorization } = await payFor(`${setup.base}/v1/missing`);
    const res = await get(`${setup.base}/v1/missing`, { authorization });
    expect(res.status).toBe(404);
    expect(res.headers["x-hub-payment"]).toBe("charged");
    expect(res.headers["x-hub-payment-code"]).toBe("upstream_rejected");
    expect((await get(`${setup.base}/v1/missing`, { authorization })).status).toBe(402);
  });

  it("consumes a proof exactly once under concurrent requests on two gateway instances", async () => {
    const { authorization, paymentHash } = await payFor(`${setup.base}/v1/paid`);
    const attempts = await Promise.all(Array.from({ length: 24 }, (_, i) => get(`${t.urls[i % 2]}/gw/${setup.slug}/v1/paid`, { authorization })));
    expect(attempts.filter((a) => a.status === 200)).toHaveLength(1);
    expect(attempts.every((a) => a.status === 200 || a.status === 402 || a.status === 409)).toBe(true);
    expect(attempts.filter((a) => a.status !== 200).every((a) => a.headers["x-hub-payment"] === "not_charged")).toBe(true);
    expect(t.origin.received.filter((r) => r.url === "/v1/paid")).toHaveLength(1);
    expect(await t.ctx.db.prisma.proof.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ state: "consumed" });
    expect(await t.ctx.db.prisma.outboxEvent.count({ where: { type: "invoice.settled" } })).toBe(1);
  });
});

describe("refusals", () => {
  it("answers 401 to a wrong preimage, a tampered macaroon and a proof for another endpoint, and never calls the origin", async () => {
    const { authorization } = await payFor(`${setup.base}/v1/paid`);
    const [macaroon, preimage] = authorization.slice(5).split(":");
    const wrongPreimage = `L402 ${macaroon}:${"0".repeat(64)}`;
    const bytes = Buffer.from(macaroon, "base64");
    bytes[bytes.length - 5] ^= 0x01;
    const tampered = `L402 ${bytes.toString("base64")}:${preimage}`;
    for (const auth of [wrongPreimage, tampered, "L402 notbase64!!:zz", "L402 abc"]) {
      const res = await get(`${setup.base}/v1/paid`, { authorization: auth });
      expect(res.status, auth).toBe(401);
      expect(res.json.error.code).toBe("unauthorized");
    }
    const other = await get(`${setup.base}/v1/missing`, { authorization });
    expect(other.status).toBe(401);
    expect(t.origin.received).toHaveLength(0);
  });

  it("maps tenant and endpoint state to 404, 403 and 400", async () => {
    expect((await get(`${t.urls[0]}/gw/nobody-here/v1/paid`)).status).toBe(404);
    expect((await get(`${setup.base}/v1/unknown`)).status).toBe(404);
    const wrongMethod = await get(`${setup.base}/v1/paid`, {}, "POST", "{}");
    // Spec 7.1 lists 400 for an invalid method: the gateway's one override of the error table (405).
    expect([wrongMethod.status, wrongMethod.json.error.code]).toEqual([400, "method_not_allowed"]);
    expect(wrongMethod.headers.allow).toBe("GET");
    expect((await rawGet(t.urls[0], `/gw/${setup.slug}/v1/%2e%2e/paid`)).status).toBe(400);
    expect((await rawGet(t.urls[0], `/gw/${setup.slug}/v1/../paid`)).status).toBe(400);
    await t.ctx.db.prisma.tenant.update({ where: { id: setup.tenantId }, data: { status: "suspended" } });
    t.gateways.forEach((g) => g.tenants.invalidate());
    expect((await get(`${setup.base}/v1/free`)).status).toBe(403);
  });

  it("refuses bodies over 1 MB with 413, counting bytes rather than trusting Content-Length", async () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 97);
    const res = await get(`${setup.base}/v1/echo`, { "content-type": "text/plain" }, "POST", big);
    expect(res.status).toBe(413);
    expect(t.origin.received).toHaveLength(0);
  });
});

describe("free endpoints and configuration", () => {
  it("proxies a free endpoint without payment, signed like a paid one", async () => {
    const res = await get(`${setup.base}/v1/free`, { authorization: "Bearer something", "x-session-token": "abc" });
    expect(res.status).toBe(200);
    expect((await rawGet(t.urls[0], `/gw/${setup.slug}/v1/free`, { connection: "keep-alive, x-drop-me", "x-drop-me": "1" })).status).toBe(200);
    expect(res.headers["x-hub-payment"]).toBeUndefined();
    const seen = t.origin.received.at(-1)!;
    expect(seen.headers["x-gateway-signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["x-session-token"]).toBeUndefined();
    expect(seen.headers["x-drop-me"]).toBeUndefined();
  });

  it("serves a provider's change on every gateway within a second of the notification", async () => {
    expect((await get(`${setup.base}/v1/paid`)).json.amountSats).toBe(7);
    expect((await get(`${t.urls[1]}/gw/${setup.slug}/v1/paid`)).json.amountSats).toBe(7);
    await t.ctx.db.prisma.endpoint.update({ where: { id: setup.paidId }, data: { priceSats: 11 } });
    await publishConfigChanged({ store: t.ctx.store, tenantId: setup.tenantId });
    const started = Date.now();
    for (const url of t.urls) {
      let price = 0;
      while (price !== 11 && Date.now() - started < 1000) {
        price = (await get(`${url}/gw/${setup.slug}/v1/paid`)).json.amountSats;
      }
      expect(price).toBe(11);
    }
  });
});
