// Origin protection end to end: a real Express origin guarded by our SDK middleware behind the
// real gateway accepts gateway traffic, refuses direct calls, replays and changed queries, and
// honours rotation.
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { gatewayGuard, withGatewayGuard } from "@l402-hub/sdk/origin";
import { readOriginSecrets, rotatedSecretColumns } from "@/lib/tenants/secrets.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";

// Database, dev node and gateway (real rate limits) from the helper; the origin is the file's own
// Express app (the helper's recording origin stays unused). One tenant for the whole file.
const t = useGatewayTest({ gatewayOptions: { rateLimits: {} }, resetEachTest: false });
let server: Server;
let originUrl: string;
let base: string;
let tenantId: string;
const captured: { headers: Record<string, string | string[] | undefined>; body: string; path: string }[] = [];

async function currentSecrets() {
  const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } });
  const s = readOriginSecrets(t.ctx.config.appSecret, tenant);
  return [s, ...(s.previous ? [s.previous] : [])];
}

beforeAll(async () => {
  const { ctx, devNode } = t;
  const app = express();
  app.use(express.raw({ type: "*/*" }));
  app.use("/api", gatewayGuard({ secrets: currentSecrets, basePath: "/api" }));
  app.all("/api/v1/{*rest}", (req, res) => {
    captured.push({ headers: req.headers, body: (req as unknown as { rawBody: Buffer }).rawBody.toString("utf8"), path: req.path });
    res.json({ ok: true, body: (req as unknown as { rawBody: Buffer }).rawBody.toString("utf8") });
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  originUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  const created = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl });
  tenantId = created.tenantId;
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenantId, devNode.nodePubkey);
  await endpointFactory(ctx.db.prisma, tenantId, { method: "POST", path: "/v1/echo" });
  base = `${t.urls[0]}/gw/${created.slug}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

async function post(url: string, body: string, headers: Record<string, string | string[] | undefined> = {}) {
  const res = await request(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } as Record<string, string> });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

describe("origin guard (Express) behind the gateway", () => {
  it("accepts the gateway's signed request with its exact raw body", async () => {
    const res = await post(`${base}/v1/echo?x=1`, '{"b": "ünï"}');
    expect(res).toEqual({ status: 200, json: { ok: true, body: '{"b": "ünï"}' } });
  });

  it("accepts signatures over empty, short and large bodies, multi-byte characters included", async () => {
    for (const size of [0, 900, 1_100, 60_000]) {
      const body = JSON.stringify({ pad: "é".repeat(size / 2) });
      const res = await post(`${base}/v1/echo`, body);
      expect(res, `body of ${size} chars`).toEqual({ status: 200, json: { ok: true, body } });
    }
  });

  it("refuses a direct call and a replay of a captured gateway request", async () => {
    expect((await post(`${originUrl}/v1/echo`, "{}")).json).toEqual({ error: "forbidden", reason: "missing_headers" });
    const last = captured.at(-1)!;
    const replay = await post(`${originUrl}/v1/echo`, last.body, {
      "x-gateway-secret": last.headers["x-gateway-secret"] as string,
      "x-gateway-signature": last.headers["x-gateway-signature"] as string,
      "x-gateway-timestamp": last.headers["x-gateway-timestamp"] as string,
      "x-gateway-nonce": last.headers["x-gateway-nonce"] as string,
    });
    expect(replay).toEqual({ status: 403, json: { error: "forbidden", reason: "replayed_nonce" } });
  });

  it("refuses a captured request whose query was changed on the way (v2 signature)", async () => {
    expect((await post(`${base}/v1/echo?amount=1`, "{}")).status).toBe(200);
    const last = captured.at(-1)!;
    expect(last.headers["x-gateway-signature-v2"]).toMatch(/^[0-9a-f]{64}$/);
    const signed = Object.fromEntries(
      ["x-gateway-secret", "x-gateway-signature", "x-gateway-signature-v2", "x-gateway-timestamp", "x-gateway-nonce"].map((name) => [
        name,
        last.headers[name] as string,
      ]),
    );
    expect(await post(`${originUrl}/v1/echo?amount=1000`, "{}", signed)).toEqual({ status: 403, json: { error: "forbidden", reason: "signature_mismatch" } });
  });

  it("keeps accepting requests signed with the previous secrets during the rotation grace period", async () => {
    // The gateway still caches the old secrets: exactly the situation rotation grace exists for.
    const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } });
    await t.ctx.db.prisma.tenant.update({ where: { id: tenantId }, data: rotatedSecretColumns(t.ctx.config.appSecret, tenant, 24) });
    expect((await post(`${base}/v1/echo`, "{}")).status).toBe(200);
    // Once the grace period is over, only the new pair is accepted.
    await t.ctx.db.prisma.tenant.update({ where: { id: tenantId }, data: { previousSecretsValidUntil: new Date(Date.now() - 1000) } });
    expect((await post(`${base}/v1/echo`, "{}")).json).toMatchObject({ reason: "secret_mismatch" });
    t.gateways[0].tenants.invalidate(tenantId);
    expect((await post(`${base}/v1/echo`, "{}")).status).toBe(200);
  });
});

describe("withGatewayGuard (Next.js route handlers)", () => {
  it("passes signed requests to the handler and answers 403 otherwise", async () => {
    const secrets = await currentSecrets();
    const handler = withGatewayGuard(async (req: Request) => Response.json({ got: await req.text() }), { secrets, basePath: "/api/origin" });
    const unsigned = await handler(new Request("http://o.test/api/origin/v1/echo", { method: "POST", body: "{}" }), {});
    expect(unsigned.status).toBe(403);
    const { canonicalOriginPayload, signOriginPayload } = await import("@l402-hub/sdk/origin");
    const timestamp = String(Date.now());
    const nonce = crypto.randomUUID();
    const signature = signOriginPayload(secrets[0].hmacSecret, canonicalOriginPayload({ method: "POST", path: "/v1/echo", timestamp, nonce, body: "{}" }));
    const signed = await handler(
      new Request("http://o.test/api/origin/v1/echo", {
        method: "POST",
        body: "{}",
        headers: { "x-gateway-secret": secrets[0].gatewaySecret, "x-gateway-signature": signature, "x-gateway-timestamp": timestamp, "x-gateway-nonce": nonce },
      }),
      {},
    );
    expect(signed.status).toBe(200);
    expect(await signed.json()).toEqual({ got: "{}" });
  });

  it("checks the v2 signature over the query, and can require it", async () => {
    const secrets = await currentSecrets();
    const { canonicalOriginPayload, canonicalOriginPayloadV2, signOriginPayload } = await import("@l402-hub/sdk/origin");
    const strict = withGatewayGuard(async () => Response.json({ ok: true }), { secrets, basePath: "/api/origin", requireSignatureV2: true });
    const lenient = withGatewayGuard(async () => Response.json({ ok: true }), { secrets, basePath: "/api/origin" });
    const signedRequest = (query: string, sentQuery: string, v2: boolean) => {
      const timestamp = String(Date.now());
      const nonce = crypto.randomUUID();
      const parts = { method: "GET", path: "/v1/quote", timestamp, nonce, body: "" };
      const headers: Record<string, string> = {
        "x-gateway-secret": secrets[0].gatewaySecret,
        "x-gateway-signature": signOriginPayload(secrets[0].hmacSecret, canonicalOriginPayload(parts)),
        "x-gateway-timestamp": timestamp,
        "x-gateway-nonce": nonce,
      };
      if (v2) headers["x-gateway-signature-v2"] = signOriginPayload(secrets[0].hmacSecret, canonicalOriginPayloadV2({ ...parts, query }));
      return new Request(`http://o.test/api/origin/v1/quote${sentQuery}`, { headers });
    };
    expect((await strict(signedRequest("?symbol=BTC", "?symbol=BTC", true), {})).status).toBe(200);
    expect((await strict(signedRequest("?symbol=BTC", "?symbol=ETH", true), {})).status).toBe(403);
    expect((await strict(signedRequest("", "?symbol=BTC", false), {})).status).toBe(403);
    // Without requireSignatureV2, a request from a gateway that only signs v1 still passes.
    expect((await lenient(signedRequest("", "?symbol=BTC", false), {})).status).toBe(200);
  });
});
