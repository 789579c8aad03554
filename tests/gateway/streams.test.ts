// SSE streaming end to end (spec 4.7, 6.3, 8): a real origin the test drives frame by frame, a real
// SSE client (eventsource-parser) and two gateway instances with short stream timings and an
// injectable clock.
import type { ServerResponse } from "node:http";
import { beforeEach, describe, expect, it } from "vitest";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { request } from "undici";
import { hashToken } from "@/lib/crypto/secret-box.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, header, payChallenge, startGateways, testClock, useGatewayTest } from "@/tests/helpers/gateway.ts";

const clock = testClock();

/** Streams the origin has open, newest last: tests write frames into them. */
type OriginStream = { res: ServerResponse; closed: boolean };
const originStreams: OriginStream[] = [];

/** Armed by a test: the gateways' next proof-finishing statement fails, as while PostgreSQL restarts. */
let failNextProofFinish = false;

/** Whether a statement ends a proof's claim (finishProof: Prisma on PGlite, the pool's batcher on PostgreSQL). */
const finishesProof = (text: string) => text.includes(`"consumedAt" = CASE`);

function failingOnce(): Promise<never> {
  failNextProofFinish = false;
  return Promise.reject(new Error("Connection terminated unexpectedly"));
}

/** `target` with `method` failing the next proof-finishing statement once armed; everything else as is. */
function armable<T extends object>(target: T, method: string, textOf: (args: unknown[]) => string): T {
  return new Proxy(target, {
    get(object, prop) {
      const value: unknown = Reflect.get(object, prop);
      if (prop === method && typeof value === "function") {
        return (...args: unknown[]) => (failNextProofFinish && finishesProof(textOf(args)) ? failingOnce() : value.apply(object, args));
      }
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

const t = useGatewayTest({
  gateways: 2,
  clock,
  gatewayOptions: (ctx) => ({
    limits: { streamTickMs: 20, streamKeepAliveMs: 250, streamHeadersTimeoutMs: 600, streamCloseGraceMs: 300 },
    prisma: armable(ctx.db.prisma, "$queryRawUnsafe", (args) => String(args[0])),
    pg: ctx.db.pg && armable(ctx.db.pg, "query", (args) => String((args[0] as { text?: string }).text ?? args[0])),
  }),
  routes: (origin) => {
    origin.route("/v1/plain", (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    for (const path of ["/v1/events", "/v1/free-events", "/v1/pass", "/v1/bucket", "/v1/meter", "/v1/kb"]) {
      origin.route(path, (req, res) => {
        const query = new URL(req.url, "http://o").searchParams;
        const stream: OriginStream = { res, closed: false };
        res.on("close", () => (stream.closed = true));
        const start = () => {
          // A late answer to a request the gateway already gave up on must not become a later
          // test's latestOrigin(): its timer fires seconds after its own test ended.
          if (stream.closed) return;
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
          res.flushHeaders();
          originStreams.push(stream);
          if (query.has("empty")) res.end(": nothing to say today\n\n");
        };
        if (query.has("late")) setTimeout(start, 2_000);
        else start();
      });
    }
  },
});

let base: string;
let base2: string;

beforeEach(async () => {
  originStreams.length = 0;
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  const stream = { streaming: true };
  await endpointFactory(t.ctx.db.prisma, tenantId, {
    path: "/v1/events",
    pricingModel: "per_request",
    priceSats: 4,
    ...stream,
    idleTimeoutSeconds: 30,
    maxStreamSeconds: 600,
  });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free-events", ...stream });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/plain" });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/pass", pricingModel: "time_pass", priceSats: 20, durationMinutes: 1, ...stream });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 9, tokenBudget: 3, ...stream });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/meter", pricingModel: "metered", priceSats: 10, unitCostSats: 2, ...stream });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/kb", pricingModel: "per_kb", priceSats: 10, unitCostSats: 2, ...stream });
  base = `${t.urls[0]}/gw/${slug}`;
  base2 = `${t.urls[1]}/gw/${slug}`;
});

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A real SSE client: events and comments as eventsource-parser reads them, and whether the stream ended. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await request(url, { headers, signal: controller.signal });
  const stream = {
    status: res.statusCode,
    headers: res.headers,
    events: [] as EventSourceMessage[],
    comments: [] as string[],
    raw: "",
    ended: false,
    abort: () => controller.abort(),
  };
  const parser = createParser({ onEvent: (e) => stream.events.push(e), onComment: (c) => stream.comments.push(c) });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of res.body) {
        const text = decoder.decode(chunk as Buffer, { stream: true });
        stream.raw += text;
        parser.feed(text);
      }
    } catch {
      // aborted by the test
    }
    stream.ended = true;
  })();
  return stream;
}

const latestOrigin = () => originStreams.at(-1)!;

describe("per_request streams", () => {
  it("answers 402 first, then streams one paid connection unbuffered; the proof is consumed and a reconnect pays again", async () => {
    const challenge = await call(`${base}/v1/events`);
    expect(challenge.status).toBe(402);
    const { authorization, paymentHash } = await payChallenge(t.devNode, challenge);

    const stream = await openStream(`${base}/v1/events`, { authorization });
    expect(stream.status).toBe(200);
    expect(String(stream.headers["content-type"])).toMatch(/^text\/event-stream/);
    expect(stream.headers["x-hub-payment"]).toBe("charged");
    expect(stream.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);

    latestOrigin().res.write("data: one\n\n");
    await waitFor(() => stream.events.length === 1, "the first event");
    latestOrigin().res.write("event: tick\nid: 2\ndata: a\ndata: b\n\n");
    await waitFor(() => stream.events.length === 2, "the second event");
    expect(stream.events).toEqual([
      { event: undefined, id: undefined, data: "one" },
      { event: "tick", id: "2", data: "a\nb" },
    ]);
    await waitFor(async () => (await t.ctx.db.prisma.proof.findUnique({ where: { paymentHash } }))?.state === "consumed", "the proof to be consumed");

    latestOrigin().res.end();
    await waitFor(() => stream.ended, "the stream to end");
    const again = await call(`${base2}/v1/events`, { authorization });
    expect([again.status, header(again, "x-hub-payment")]).toEqual([402, "not_charged"]);
  });

  // Found by `npm run soak`: PostgreSQL restarting at a stream's first content left its proof claimed
  // (served, never consumed), redeemable again once the claim's lease ran out.
  it("consumes the proof when the stream ends if consuming it at the first content failed", async () => {
    const challenge = await call(`${base}/v1/events`);
    const { authorization, paymentHash } = await payChallenge(t.devNode, challenge);
    failNextProofFinish = true;
    const stream = await openStream(`${base}/v1/events`, { authorization });
    expect(stream.headers["x-hub-payment"]).toBe("charged");
    latestOrigin().res.write("data: one\n\n");
    await waitFor(() => stream.events.length === 1, "the first event");
    await waitFor(() => !failNextProofFinish, "the failed consumption");
    expect((await t.ctx.db.prisma.proof.findUnique({ where: { paymentHash } }))?.state).toBe("claimed");

    latestOrigin().res.end();
    await waitFor(() => stream.ended, "the stream to end");
    await waitFor(async () => (await t.ctx.db.prisma.proof.findUnique({ where: { paymentHash } }))?.state === "consumed", "the proof consumed at the end");
    const again = await call(`${base2}/v1/events`, { authorization });
    expect([again.status, header(again, "x-hub-payment")]).toEqual([402, "not_charged"]);
  });

  it("sends keep-alive comments while the origin is silent, never inside an origin event", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/events`));
    const stream = await openStream(`${base}/v1/events`, { authorization });
    latestOrigin().res.write("data: par");
    await new Promise((r) => setTimeout(r, 700)); // well past the 250 ms keep-alive interval
    expect(stream.comments).toHaveLength(0); // mid-line: nothing may be inserted
    latestOrigin().res.write("tial\n\n");
    await waitFor(() => stream.events.length === 1, "the event");
    expect(stream.events[0].data).toBe("partial");
    await waitFor(() => stream.comments.length >= 2, "keep-alive comments");
    expect(new Set(stream.comments)).toEqual(new Set(["keep-alive"]));
    expect(stream.raw).toContain("\n\n: keep-alive\n\n");
    stream.abort();
  });

  it("gives the proof back when the stream delivers no content, and fails over to 504 when the origin is slow to answer", async () => {
    const { authorization, paymentHash } = await payChallenge(t.devNode, await call(`${base}/v1/events`));
    const empty = await openStream(`${base}/v1/events?empty=1`, { authorization });
    expect(empty.status).toBe(200);
    await waitFor(() => empty.ended, "the empty stream to end");
    expect(empty.comments).toEqual(["nothing to say today"]);
    await waitFor(async () => (await t.ctx.db.prisma.proof.findUnique({ where: { paymentHash } }))?.state === "released", "the proof to be released");

    const started = Date.now();
    const late = await call(`${base}/v1/events?late=1`, { authorization });
    expect([late.status, late.json.error.code, header(late, "x-hub-payment"), header(late, "x-hub-payment-code")]).toEqual([
      504,
      "gateway_timeout",
      "reverted",
      "upstream_failed_retryable",
    ]);
    expect(Date.now() - started).toBeLessThan(1_900);
    // Still the same proof: the retry is the reconnect.
    const retry = await openStream(`${base2}/v1/events`, { authorization });
    expect(retry.status).toBe(200);
    retry.abort();
  });

  it("closes a stream whose origin stays silent past the idle timeout, and one that outlives its maximum", async () => {
    const first = await payChallenge(t.devNode, await call(`${base}/v1/events`));
    const idle = await openStream(`${base}/v1/events`, first);
    latestOrigin().res.write("data: hello\n\n");
    await waitFor(() => idle.events.length === 1, "the event");
    const idleOrigin = latestOrigin();
    clock.advance(31_000);
    await waitFor(() => idle.ended && idleOrigin.closed, "the idle stream to close");

    const second = await payChallenge(t.devNode, await call(`${base}/v1/events`));
    const long = await openStream(`${base}/v1/events`, second);
    const longOrigin = latestOrigin();
    // Steps shorter than the 30 s idle timeout: a tick landing between a step and its event still
    // finds the stream active, so only the 600 s maximum can end it.
    for (let i = 0; i < 24; i++) {
      clock.advance(24_000); // never idle, 576 s in after the last step
      longOrigin.res.write(`data: ${i}\n\n`);
      await waitFor(() => long.events.length === i + 1, `event ${i}`);
    }
    expect(long.ended).toBe(false);
    clock.advance(24_000);
    await waitFor(() => long.ended && longOrigin.closed, "the long stream to close");
    expect(long.events.map((e) => e.event)).not.toContain("payment_required");
    await waitFor(() => t.gateways.every((g) => g.openStreams() === 0), "no open streams");
  });

  it("releases the origin connection and the stream when the client goes away", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/events`));
    const stream = await openStream(`${base}/v1/events`, { authorization });
    latestOrigin().res.write("data: x\n\n");
    await waitFor(() => stream.events.length === 1, "the event");
    expect(t.gateways[0].openStreams()).toBe(1);
    const upstream = latestOrigin();
    stream.abort();
    await waitFor(() => upstream.closed, "the origin connection to close");
    await waitFor(() => t.gateways[0].openStreams() === 0, "the stream to be released");
  });
});

describe("free streams", () => {
  it("never queue behind the origin connection pool, and ordinary calls still get through", async () => {
    const small = await startGateways(t.ctx, t.devNode, 1, { clock: clock.now, limits: { originConnections: 2, streamTickMs: 20 } });
    try {
      const at = `${small.urls[0]}${new URL(base).pathname}`;
      const streams = await Promise.all([1, 2, 3, 4, 5].map(() => openStream(`${at}/v1/free-events`)));
      expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
      expect(streams.every((s) => s.headers["x-hub-payment"] === undefined)).toBe(true);
      for (const o of originStreams) o.res.write("data: all\n\n");
      await waitFor(() => streams.every((s) => s.events.length === 1), "every stream's event");
      expect((await call(`${at}/v1/plain`)).status).toBe(200);
      expect(small.gateways[0].openStreams()).toBe(5);
      streams.forEach((s) => s.abort());
      await waitFor(() => small.gateways[0].openStreams() === 0, "the streams to close");
    } finally {
      await small.close();
    }
  });
});

describe("session streams", () => {
  it("time_pass: reconnects free within the window; when it ends mid-stream, a payment_required frame follows the current event", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/pass`));
    const first = await openStream(`${base}/v1/pass`, { authorization });
    expect(first.status).toBe(200);
    const token = first.headers["x-session-token"] as string;
    expect(token).toMatch(/^hst_/);
    const firstOrigin = latestOrigin();
    const second = await openStream(`${base2}/v1/pass`, { "x-session-token": token });
    expect([second.status, second.headers["x-hub-payment"]]).toEqual([200, "charged"]);
    const secondOrigin = latestOrigin();

    firstOrigin.res.write("data: before\n\ndata: half");
    secondOrigin.res.write("data: ready\n\n");
    await waitFor(() => first.events.length === 1 && second.events.length === 1, "the first events");
    clock.advance(61_000);
    // At a boundary: the frame comes at once. Mid-event: after the origin finishes the event.
    await waitFor(() => second.ended, "the second stream to end");
    expect(second.events.at(-1)).toMatchObject({ event: "payment_required", data: '{"reason":"time_pass_expired"}' });
    expect(JSON.parse(second.events.at(-1)!.data)).toEqual({ reason: "time_pass_expired" });
    firstOrigin.res.write(" and half\n\ndata: never delivered\n\n");
    await waitFor(() => first.ended, "the first stream to end");
    expect(first.events.map((e) => [e.event, e.data])).toEqual([
      [undefined, "before"],
      [undefined, "half and half"],
      ["payment_required", '{"reason":"time_pass_expired"}'],
    ]);
    await waitFor(() => firstOrigin.closed && secondOrigin.closed, "the origin connections to close");

    // New calls are the database's decision (its clock, not the gateway's): end the pass there too.
    await t.ctx.db.sql.query(`UPDATE "PaymentSession" SET "expiresAt" = now() - interval '1 second' WHERE "tokenHash" = $1`, [hashToken(token)]);
    const after = await call(`${base}/v1/pass`, { "x-session-token": token });
    expect([after.status, header(after, "x-hub-payment")]).toEqual([402, "not_charged"]);
  });

  it("time_pass: a window that ends while the origin stays mid-event closes after the grace period", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/pass`));
    const stream = await openStream(`${base}/v1/pass`, { authorization });
    latestOrigin().res.write("data: stuck");
    await new Promise((r) => setTimeout(r, 50));
    clock.advance(61_000);
    await waitFor(() => stream.ended, "the stream to end");
    expect(stream.events.at(-1)).toMatchObject({ event: "payment_required" });
  });

  it("token_bucket and metered debit one unit per connection, and a stream with no content gives it back", async () => {
    const bucket = await payChallenge(t.devNode, await call(`${base}/v1/bucket`));
    const opened = await openStream(`${base}/v1/bucket`, { authorization: bucket.authorization });
    expect(opened.headers["x-session-balance"]).toBe("2");
    const token = opened.headers["x-session-token"] as string;
    latestOrigin().res.write("data: paid for\n\n");
    await waitFor(() => opened.events.length === 1, "the event");
    opened.abort();
    const empty = await openStream(`${base2}/v1/bucket?empty=1`, { "x-session-token": token });
    expect(empty.headers["x-session-balance"]).toBe("1");
    await waitFor(() => empty.ended, "the empty stream to end");
    // The refund lands after the stream; the next connection shows it.
    await waitFor(async () => (await t.ctx.db.prisma.paymentSession.findFirst({ where: { model: "token_bucket" } }))?.balance === 2, "the refund");
    const next = await openStream(`${base}/v1/bucket`, { "x-session-token": token });
    expect(next.headers["x-session-balance"]).toBe("1");
    next.abort();

    const meter = await payChallenge(t.devNode, await call(`${base}/v1/meter`));
    const metered = await openStream(`${base}/v1/meter`, { authorization: meter.authorization });
    expect([metered.status, metered.headers["x-session-balance"]]).toEqual([200, "8"]);
    // A client that leaves before any content was delivered also gets the unit back.
    metered.abort();
    await waitFor(async () => (await t.ctx.db.prisma.paymentSession.findFirst({ where: { model: "metered" } }))?.balance === 10, "the metered refund");
  });

  it("refuses per_kb streams with 503 before any invoice", async () => {
    const res = await call(`${base}/v1/kb`);
    expect([res.status, res.json.error.code]).toEqual([503, "service_unavailable"]);
    expect(res.json.error.message).toMatch(/per_kb/);
    expect(await t.ctx.db.prisma.invoice.count()).toBe(0);
    expect(t.origin.received).toHaveLength(0);
  });
});
