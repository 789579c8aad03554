// Issue 23, finding 12 (part): one time_pass session could hold any number of concurrent streams,
// each an open connection to the gateway and one to the origin. Now a session holds at most
// GATEWAY_STREAMS_PER_SESSION (2 here) at a time, across gateway instances (slots in the shared
// store), and a closed stream frees its slot. Same class: one address on a tenant's free streaming
// endpoints, GATEWAY_FREE_STREAMS_PER_IP (2 here). Real gateways (two, one store), real SSE origin.
import type { ServerResponse } from "node:http";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { request, type Dispatcher } from "undici";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";

let slug: string;
const originStreams: ServerResponse[] = [];

const t = useGatewayTest({
  env: { GATEWAY_STREAMS_PER_SESSION: "2", GATEWAY_FREE_STREAMS_PER_IP: "2" },
  gateways: 2,
  gatewayOptions: { limits: { streamTickMs: 20, streamCloseGraceMs: 100 } },
  routes: (origin) => {
    const live = (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      res.write("data: hello\n\n");
      originStreams.push(res);
    };
    origin.route("/v1/live", live);
    origin.route("/v1/free-live", live);
  },
});

// Registered after useGatewayTest: after hooks run in reverse, so the origin's streams end before the gateways close.
afterAll(() => {
  for (const res of originStreams) res.end();
});

beforeEach(async () => {
  const tenant = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  slug = tenant.slug;
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenant.tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/live", pricingModel: "time_pass", priceSats: 20, durationMinutes: 60, streaming: true });
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/free-live", streaming: true });
});

type OpenStream = { status: number; headers: Dispatcher.ResponseData["headers"]; text: () => Promise<string>; close: () => void };

/** Opens a stream through gateway `i` and leaves it open (its body unread until text() or close()). */
async function openStream(i: number, headers: Record<string, string>, path = "/v1/live"): Promise<OpenStream> {
  const res = await request(`${t.urls[i]}/gw/${slug}${path}`, { headers });
  return { status: res.statusCode, headers: res.headers, text: () => res.body.text(), close: () => res.body.destroy() };
}

/** Buys a time pass: the first stream, opened with the proof, and the session token it returns. */
async function buyPass(): Promise<{ first: OpenStream; token: string; authorization: string }> {
  const { authorization } = await payChallenge(t.devNode, await call(`${t.urls[0]}/gw/${slug}/v1/live`));
  const first = await openStream(0, { authorization });
  expect(first.status).toBe(200);
  return { first, token: String(first.headers["x-session-token"]), authorization };
}

describe("concurrent streams of one time_pass session", () => {
  it("holds at most the configured number across gateway instances, and frees a slot when a stream ends", async () => {
    const { first, token, authorization } = await buyPass();
    const second = await openStream(1, { "x-session-token": token });
    expect(second.status).toBe(200);

    const third = await openStream(0, { "x-session-token": token });
    expect(third.status).toBe(429);
    expect(third.headers["x-hub-payment"]).toBe("not_charged");
    expect(third.headers["retry-after"]).toBeDefined();
    const refusal = JSON.parse(await third.text());
    expect(refusal.error.code).toBe("rate_limited");
    expect(refusal.error.message).toMatch(/2 streams/);
    // The proof opens the same session: the same cap.
    const byProof = await openStream(1, { authorization });
    expect(byProof.status).toBe(429);
    await byProof.text();

    second.close();
    let again: OpenStream | null = null;
    for (let attempt = 0; attempt < 40 && again?.status !== 200; attempt++) {
      if (again) await again.text();
      await new Promise((r) => setTimeout(r, 50));
      again = await openStream(0, { "x-session-token": token });
    }
    expect(again!.status).toBe(200);
    again!.close();
    first.close();
  });

  it("counts each session on its own", async () => {
    const a = await buyPass();
    const a2 = await openStream(1, { "x-session-token": a.token });
    const b = await buyPass();
    const b2 = await openStream(1, { "x-session-token": b.token });
    expect([a2.status, b2.status]).toEqual([200, 200]);
    for (const s of [a.first, a2, b.first, b2]) s.close();
  });
});

describe("concurrent streams of one address on free streaming endpoints", () => {
  it("holds at most the configured number across gateway instances", async () => {
    const first = await openStream(0, {}, "/v1/free-live");
    const second = await openStream(1, {}, "/v1/free-live");
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await openStream(0, {}, "/v1/free-live");
    expect(third.status).toBe(429);
    expect(third.headers["x-hub-payment"]).toBeUndefined();
    expect(JSON.parse(await third.text()).error.message).toMatch(/2 streams/);
    first.close();
    let again: OpenStream | null = null;
    for (let attempt = 0; attempt < 40 && again?.status !== 200; attempt++) {
      if (again) await again.text();
      await new Promise((r) => setTimeout(r, 50));
      again = await openStream(1, {}, "/v1/free-live");
    }
    expect(again!.status).toBe(200);
    again!.close();
    second.close();
  });
});
