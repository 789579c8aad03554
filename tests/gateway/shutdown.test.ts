// Gateway shutdown drains: calls in flight finish and settle, new connections are refused, open
// streams end at an event boundary, and a call that outlasts the drain is cut and not charged.
import { beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import { request } from "undici";
import { createParser } from "eventsource-parser";
import type { Gateway } from "@/lib/gateway/server.ts";
import { hashToken, randomToken } from "@/lib/crypto/secret-box.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { usingPostgres } from "@/tests/helpers/context.ts";
import { call, payChallenge, startGateways, useGatewayTest } from "@/tests/helpers/gateway.ts";

let slug: string;
let tenantId: string;
let streamEndpointId: string;
/** Origin stream responses still open (the stream test watches them end). */
const openOriginStreams = new Set<http.ServerResponse>();

// No gateway for the file: each test starts one of its own and shuts it down (startGateway).
const t = useGatewayTest({
  gateways: 0,
  resetEachTest: false,
  routes: (origin) => {
    origin.route("/v1/slow", (_req, res) => void setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"late":true}'), 300));
    origin.route("/v1/stuck", (_req, res) => void setTimeout(() => res.writeHead(200).end("too late"), 5_000));
    origin.route("/v1/stream", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      openOriginStreams.add(res);
      res.on("close", () => openOriginStreams.delete(res));
      res.write("data: one\n\n");
      // Half an event: the shutdown waits for its end (within the close grace) before closing.
      setTimeout(() => res.write("data: tw"), 50);
      setTimeout(() => res.write("o\n\n"), 600);
    });
  },
});

beforeAll(async () => {
  ({ tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url }));
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/slow", pricingModel: "per_request", priceSats: 2 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/stuck", pricingModel: "per_request", priceSats: 2 });
  streamEndpointId = (
    await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/stream", pricingModel: "time_pass", priceSats: 5, durationMinutes: 60, streaming: true })
  ).id;
});

/** Waits until the origin has received a request for `path` (the call is in flight at the origin); `since`: requests received before the call. */
async function atOrigin(path: string, since = 0) {
  const arrived = () => t.origin.received.slice(since).some((r) => r.url === path);
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && !arrived()) await new Promise((r) => setTimeout(r, 10));
  expect(arrived()).toBe(true);
}

/** One gateway of its own per test: each test shuts its gateway down. */
async function startGateway(limits: { shutdownDrainMs?: number } = {}): Promise<{ gateway: Gateway; base: string; port: number }> {
  const { gateways, urls } = await startGateways(t.ctx, t.devNode, 1, { limits: { streamTickMs: 50, streamCloseGraceMs: 1_000, ...limits } });
  return { gateway: gateways[0], base: `${urls[0]}/gw/${slug}`, port: Number(new URL(urls[0]).port) };
}

async function proofState(paymentHash: string) {
  return (await t.ctx.db.prisma.proof.findUnique({ where: { paymentHash } }))?.state ?? null;
}

describe("gateway shutdown", () => {
  it("lets a paid call in flight finish and consume its proof, and refuses new connections", async () => {
    const { gateway, base, port } = await startGateway();
    const { authorization, paymentHash } = await payChallenge(t.devNode, await call(`${base}/v1/slow`));
    const inFlight = call(`${base}/v1/slow`, { authorization });
    await atOrigin("/v1/slow");
    const closing = gateway.close();
    await new Promise((r) => setTimeout(r, 20));
    // New connections are refused while the call in flight finishes.
    const refused = await request(`http://127.0.0.1:${port}/healthz`).then(
      () => null,
      (err: Error & { code?: string }) => err.code,
    );
    expect(refused).toBe("ECONNREFUSED");
    const served = await inFlight;
    expect(served.status).toBe(200);
    expect(served.json).toEqual({ late: true });
    expect(served.headers["x-hub-payment"]).toBe("charged");
    expect(served.headers.connection).toBe("close");
    await closing;
    expect(await proofState(paymentHash)).toBe("consumed");
  });

  it("cuts a call that outlasts the drain, without charging it", async () => {
    const { gateway, base } = await startGateway({ shutdownDrainMs: 200 });
    const { authorization, paymentHash } = await payChallenge(t.devNode, await call(`${base}/v1/stuck`));
    const inFlight = call(`${base}/v1/stuck`, { authorization }).then(
      (r) => `answered ${r.status}`,
      (err: Error) => `failed: ${err.name}`,
    );
    await atOrigin("/v1/stuck");
    const started = Date.now();
    await gateway.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    // The connection is cut: no answer at all, neither the origin's nor a gateway error.
    expect(await inFlight).toMatch(/^failed: /);
    // The cut call has given its claim back (the proof redeems again) by the time close() returns.
    expect(await proofState(paymentHash)).toBe("released");
  });

  // The drain waits for request handlers, not only for responses: here the client leaves while the
  // gateway is closing, and its handler is still writing the release when the response is gone.
  // A row lock held by another transaction keeps that release waiting (PostgreSQL only: PGlite
  // has one connection).
  it.skipIf(!usingPostgres)("waits for the handler of a call whose client left to give its claim back", async () => {
    const { gateway, base } = await startGateway();
    const { authorization, paymentHash } = await payChallenge(t.devNode, await call(`${base}/v1/stuck`));
    const client = new AbortController();
    const since = t.origin.received.length;
    const inFlight = request(`${base}/v1/stuck`, { headers: { authorization }, signal: client.signal }).then(
      () => "answered",
      () => "left",
    );
    await atOrigin("/v1/stuck", since);
    const blocker = await t.ctx.db.pg!.connect();
    let unblock: NodeJS.Timeout | undefined;
    try {
      await blocker.query("BEGIN");
      await blocker.query(`SELECT 1 FROM "Proof" WHERE "paymentHash" = $1 FOR UPDATE`, [paymentHash]);
      client.abort();
      expect(await inFlight).toBe("left");
      const started = Date.now();
      const closing = gateway.close();
      unblock = setTimeout(() => void blocker.query("COMMIT"), 400);
      await closing;
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      expect(await proofState(paymentHash)).toBe("released");
    } finally {
      clearTimeout(unblock);
      await blocker.query("ROLLBACK").catch(() => {}); // after the COMMIT: a warning, nothing to undo
      blocker.release();
    }
  });

  it("ends open streams at the next event boundary, without cutting an event", async () => {
    const { gateway, base } = await startGateway();
    const token = randomToken("hst_", 32);
    await t.ctx.db.prisma.paymentSession.create({
      data: {
        tenantId,
        endpointId: streamEndpointId,
        model: "time_pass",
        tokenHash: hashToken(token),
        paymentHash: randomToken("", 32),
        balance: null,
        initialBalance: null,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    const res = await request(`${base}/v1/stream`, { headers: { "x-session-token": token } });
    expect(res.statusCode).toBe(200);
    const events: string[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e.data) });
    const read = (async () => {
      for await (const chunk of res.body) parser.feed(Buffer.from(chunk as Buffer).toString("utf8"));
    })();
    await new Promise((r) => setTimeout(r, 300)); // "one" delivered, "tw" of the next event pending
    const started = Date.now();
    await gateway.close();
    await read; // the gateway ended the response cleanly
    expect(events).toEqual(["one", "two"]);
    expect(Date.now() - started).toBeLessThan(1_500);
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline && openOriginStreams.size > 0) await new Promise((r) => setTimeout(r, 20));
    expect(openOriginStreams.size).toBe(0);
  });
});
