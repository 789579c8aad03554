// The L402 client SDK end to end: real gateways (two instances on one database), a real origin, and
// the dev wallet paying through the real dev-node pay route. Payments are counted where they
// happen (the pay route and the dev node's invoices), not only in the client's own records.
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Gateway } from "@/lib/gateway/server.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import {
  createL402Client,
  devWallet,
  L402Error,
  memoryCredentialStore,
  type L402ClientEvent,
  type L402ClientOptions,
  type L402Wallet,
  type WalletPayRequest,
} from "@l402-hub/sdk/client";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";
import { startGateways, testClock } from "@/tests/helpers/gateway.ts";
import { startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";
import { startDevPayServer, type DevPayServer } from "./dev-pay-server.ts";

let ctx: TestContext;
let origin: TestOrigin;
let devNode: DevLightningNode;
let payServer: DevPayServer;
let urls: string[];
let gateways: Gateway[];
let closeGateways: () => Promise<void>;
const clock = testClock();

/** Failures the origin still owes per path (`/v1/flaky` answers 500, `/v1/busy` 429 + Retry-After: 1). */
const failuresLeft = new Map<string, number>();
/** SSE responses the origin holds open, newest last. */
const originStreams: ServerResponse[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  origin = await startTestOrigin();
  for (const path of ["/v1/paid", "/v1/a", "/v1/b", "/v1/bucket", "/v1/cheap"]) {
    origin.route(
      path,
      (req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path, method: req.method, body: req.body })),
    );
  }
  origin.route("/v1/flaky", (_req, res) => {
    const left = failuresLeft.get("/v1/flaky") ?? 0;
    failuresLeft.set("/v1/flaky", left - 1);
    if (left > 0) return void res.writeHead(500, { "content-type": "application/json" }).end('{"error":"down"}');
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  origin.route("/v1/busy", (_req, res) => {
    const left = failuresLeft.get("/v1/busy") ?? 0;
    failuresLeft.set("/v1/busy", left - 1);
    if (left > 0) return void res.writeHead(429, { "content-type": "application/json", "retry-after": "1" }).end('{"error":"slow down"}');
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  for (const path of ["/v1/events", "/v1/pass"]) {
    origin.route(path, (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      originStreams.push(res);
    });
  }
  devNode = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
  payServer = await startDevPayServer(ctx, devNode);
  ({
    urls,
    gateways,
    close: closeGateways,
  } = await startGateways(ctx, devNode, 2, {
    clock: clock.now,
    limits: { streamTickMs: 20, streamKeepAliveMs: 250, streamHeadersTimeoutMs: 2_000, streamCloseGraceMs: 300 },
  }));
});

afterAll(async () => {
  await closeGateways?.();
  await payServer?.close();
  await origin?.close();
  await ctx?.close();
});

let base: string;
let base2: string;
let slug: string;

beforeEach(async () => {
  await ctx.reset();
  clock.reset();
  gateways.forEach((g) => g.tenants.invalidate());
  origin.received.length = 0;
  payServer.paid.length = 0;
  failuresLeft.clear();
  originStreams.length = 0;
  const tenant = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
  slug = tenant.slug;
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenant.tenantId, devNode.nodePubkey);
  const priced = (path: string, priceSats: number, extra: Record<string, unknown> = {}) =>
    endpointFactory(ctx.db.prisma, tenant.tenantId, { path, pricingModel: "per_request", priceSats, ...extra });
  await priced("/v1/paid", 7);
  await priced("/v1/a", 3);
  await priced("/v1/b", 5);
  await priced("/v1/cheap", 1, { method: "POST" });
  await priced("/v1/flaky", 4);
  await priced("/v1/busy", 2);
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 10, tokenBudget: 3 });
  await priced("/v1/events", 4, { streaming: true, idleTimeoutSeconds: 30, maxStreamSeconds: 600 });
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/pass", pricingModel: "time_pass", priceSats: 20, durationMinutes: 1, streaming: true });
  base = `${urls[0]}/gw/${slug}`;
  base2 = `${urls[1]}/gw/${slug}`;
});

/** A client paying with the dev wallet through the real pay route; events recorded. */
function client(options: Partial<L402ClientOptions> = {}) {
  const events: L402ClientEvent[] = [];
  const sdk = createL402Client({ wallet: devWallet({ url: payServer.payUrl }), budgetSats: 1000, onEvent: (e) => events.push(e), ...options });
  return { sdk, events };
}

/** Dev-node invoices actually paid (the ground truth, independent of the client). */
const settledInvoices = () => ctx.db.prisma.devNodeInvoice.count({ where: { settledAt: { not: null } } });

async function expectL402Error(promise: Promise<unknown>, code: string): Promise<L402Error> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(L402Error);
  expect((error as L402Error).code).toBe(code);
  return error as L402Error;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("per_request", () => {
  it("pays the 402 once, retries with the proof, and pays again for the next call (a proof serves one call)", async () => {
    const { sdk, events } = client();
    const res = await sdk.fetch(`${base}/v1/paid?city=Oslo`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ path: "/v1/paid" });
    expect(res.headers.get("x-hub-payment")).toBe("charged");
    expect(sdk.spentSats).toBe(7);
    expect(sdk.remainingSats).toBe(993);
    expect(sdk.payments).toEqual([
      expect.objectContaining({ amountSats: 7, purpose: "request", model: "per_request", paymentHash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ]);
    expect(payServer.paid).toHaveLength(1);
    expect(await settledInvoices()).toBe(1);
    expect(origin.received).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(["challenge", "paid"]);

    const post = await sdk.fetch(`${base2}/v1/cheap`, { method: "POST", body: JSON.stringify({ q: 1 }), headers: { "content-type": "application/json" } });
    expect(await post.json()).toMatchObject({ method: "POST", body: '{"q":1}' });
    expect(sdk.spentSats).toBe(8);
    expect(await settledInvoices()).toBe(2);
  });

  it("refuses an invoice above maxPerRequestSats or beyond the budget, with nothing paid", async () => {
    const strict = client({ maxPerRequestSats: 5 });
    const tooDear = await expectL402Error(strict.sdk.fetch(`${base}/v1/paid`), "max_per_request_exceeded");
    expect(tooDear.details).toMatchObject({ amountSats: 7, maxPerRequestSats: 5 });
    expect(tooDear.paidSats).toBe(0);
    expect(strict.sdk.spentSats).toBe(0);
    expect(strict.events.at(-1)).toMatchObject({ type: "refused" });
    const perCall = client();
    await expectL402Error(perCall.sdk.fetch(`${base}/v1/paid`, { l402: { maxPriceSats: 6 } }), "max_per_request_exceeded");

    const small = client({ budgetSats: 10 });
    expect((await small.sdk.fetch(`${base}/v1/paid`)).status).toBe(200);
    const broke = await expectL402Error(small.sdk.fetch(`${base}/v1/paid`), "budget_exceeded");
    expect(broke.details).toMatchObject({ amountSats: 7, spentSats: 7, budgetSats: 10 });
    expect(small.sdk.spentSats).toBe(7);
    expect(small.sdk.remainingSats).toBe(3);
    expect(payServer.paid).toHaveLength(1);
    expect(await settledInvoices()).toBe(1);
    expect(origin.received).toHaveLength(1);
  });

  it("retries the same proof free after upstream_failed_retryable, a bounded number of times", async () => {
    failuresLeft.set("/v1/flaky", 2);
    const { sdk, events } = client({ upstreamRetries: 2 });
    const res = await sdk.fetch(`${base}/v1/flaky`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-hub-payment")).toBe("charged");
    expect(origin.received.filter((r) => r.url === "/v1/flaky")).toHaveLength(3);
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.reason)).toEqual([
      "upstream_failed_retryable",
      "upstream_failed_retryable",
    ]);
    expect(sdk.spentSats).toBe(4);
    expect(await settledInvoices()).toBe(1);

    failuresLeft.set("/v1/flaky", 5);
    const impatient = client({ upstreamRetries: 1 });
    const failed = await impatient.sdk.fetch(`${base}/v1/flaky`);
    expect([failed.status, failed.headers.get("x-hub-payment"), failed.headers.get("x-hub-payment-code")]).toEqual([
      500,
      "reverted",
      "upstream_failed_retryable",
    ]);
    expect(impatient.sdk.spentSats).toBe(4);
    expect(await settledInvoices()).toBe(2);
  });
});

describe("sessions", () => {
  it("reuses a token_bucket session across calls, then buys a new one when it is depleted", async () => {
    const { sdk, events } = client();
    const balances: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await sdk.fetch(`${base}/v1/bucket`);
      expect(res.status).toBe(200);
      balances.push(res.headers.get("x-session-balance"));
    }
    expect(balances).toEqual(["2", "1", "0", "2"]);
    expect(sdk.payments.map((p) => [p.amountSats, p.purpose, p.model])).toEqual([
      [10, "session", "token_bucket"],
      [10, "session", "token_bucket"],
    ]);
    expect(await settledInvoices()).toBe(2);
    expect(events.filter((e) => e.type === "credential_dropped")).toEqual([expect.objectContaining({ kind: "session", status: 402 })]);
    expect(origin.received).toHaveLength(4);
  });

  it("shares one purchase between concurrent calls of one session scope, and pays each concurrent per_request call once", async () => {
    const { sdk } = client();
    const bucket = await Promise.all(Array.from({ length: 6 }, () => sdk.fetch(`${base}/v1/bucket`)));
    expect(bucket.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // 6 calls, 3 tokens per purchase: exactly two purchases.
    expect(sdk.payments.filter((p) => p.purpose === "session")).toHaveLength(2);
    expect(await settledInvoices()).toBe(2);

    const paid = await Promise.all(Array.from({ length: 5 }, () => sdk.fetch(`${base}/v1/paid`)));
    expect(paid.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(sdk.payments.filter((p) => p.purpose === "request")).toHaveLength(5);
    expect(new Set(sdk.payments.map((p) => p.paymentHash)).size).toBe(7);
    expect(await settledInvoices()).toBe(7);
    expect(sdk.spentSats).toBe(2 * 10 + 5 * 7);
  });
  it("keeps sessions and credit in the store it is given: a second client over the same store pays nothing more", async () => {
    const credentials = memoryCredentialStore();
    const first = client({ credentials });
    expect((await first.sdk.fetch(`${base}/v1/bucket`)).headers.get("x-session-balance")).toBe("2");
    expect((await first.sdk.fetch(`${base}/v1/a`, { l402: { creditSats: 20 } })).headers.get("x-session-balance")).toBe("17");
    const scope = `GET ${new URL(base).origin}${new URL(base).pathname}/v1/bucket`;
    expect(credentials.getSession(scope)).toMatchObject({ token: expect.any(String), balance: 2 });
    expect(credentials.getCredit(`${new URL(base).origin}/gw/${slug}`)).toMatchObject({ authorization: expect.stringMatching(/^L402 /), balanceSats: 17 });

    const second = client({ credentials });
    expect((await second.sdk.fetch(`${base}/v1/bucket`)).headers.get("x-session-balance")).toBe("1");
    expect((await second.sdk.fetch(`${base}/v1/b`, { l402: { pricingModel: "per_request" } })).headers.get("x-session-balance")).toBe("12");
    expect(second.sdk.payments).toEqual([]);
    expect(credentials.getSession(scope)?.balance).toBe(1);
    expect(credentials.getCredit(`${new URL(base).origin}/gw/${slug}`)?.balanceSats).toBe(12);
    expect(await settledInvoices()).toBe(2);

    second.sdk.clearCredentials();
    expect(credentials.getSession(scope)).toBeNull();
  });
});

describe("prepaid credit", () => {
  it("buys credit once (echo checked), spends it on every per_request endpoint of the provider, then pays anew", async () => {
    const { sdk } = client();
    const first = await sdk.fetch(`${base}/v1/a`, { l402: { creditSats: 20 } });
    expect([first.status, first.headers.get("x-session-balance")]).toEqual([200, "17"]);
    expect(sdk.payments).toEqual([expect.objectContaining({ amountSats: 20, purpose: "credit" })]);
    const balances: (string | null)[] = [];
    for (const url of [`${base}/v1/b`, `${base}/v1/a`, `${base}/v1/b`]) {
      const res = await sdk.fetch(url);
      expect(res.status).toBe(200);
      balances.push(res.headers.get("x-session-balance"));
    }
    expect(balances).toEqual(["12", "9", "4"]);
    expect(sdk.payments).toHaveLength(1);
    expect(await settledInvoices()).toBe(1);

    // 4 sats left: /v1/b (5) is refused by the gateway, the client drops the credit and pays per request.
    const after = await sdk.fetch(`${base}/v1/b`);
    expect(after.status).toBe(200);
    expect(sdk.payments.map((p) => [p.amountSats, p.purpose])).toEqual([
      [20, "credit"],
      [5, "request"],
    ]);
    expect(await settledInvoices()).toBe(2);
  });

  it("shares one credit purchase between concurrent calls", async () => {
    const { sdk } = client({ creditSats: 30 });
    const results = await Promise.all(
      [`${base}/v1/a`, `${base}/v1/b`, `${base}/v1/a`, `${base}/v1/b`].map((url) => sdk.fetch(url, { l402: { creditSats: 30 } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(sdk.payments).toEqual([expect.objectContaining({ amountSats: 30, purpose: "credit" })]);
    expect(await settledInvoices()).toBe(1);
    const credit = await ctx.db.prisma.credit.findFirstOrThrow();
    expect(credit.balanceSats).toBe(30 - 16);
  });

  it("refuses to pay when the creditSats echo differs from what was asked", async () => {
    // A gateway that honours less credit than asked (its 402 body rewritten on the way back).
    const shortChanging: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (res.status !== 402) return res;
      const body = (await res.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...body, creditSats: Number(body.creditSats) - 1 }), { status: 402, headers: res.headers });
    };
    const { sdk } = client({ fetch: shortChanging });
    const error = await expectL402Error(sdk.fetch(`${base}/v1/a`, { l402: { creditSats: 20 } }), "credit_mismatch");
    expect(error.details).toMatchObject({ askedSats: 20, creditSats: 19 });
    expect(sdk.spentSats).toBe(0);
    expect(payServer.paid).toHaveLength(0);
    expect(await settledInvoices()).toBe(0);
  });

  it("with reuseCredentials: false presents nothing it holds, and credit bought so replaces the old", async () => {
    const { sdk } = client();
    expect((await sdk.fetch(`${base}/v1/a`, { l402: { creditSats: 20 } })).headers.get("x-session-balance")).toBe("17");
    // A call that must not spend the credit (a free try carrying its own Authorization) pays its own way.
    const own = await sdk.fetch(`${base}/v1/b`, { l402: { reuseCredentials: false } });
    expect([own.status, own.headers.get("x-session-balance")]).toEqual([200, null]);
    // Buying again buys, even while the old credit has sats left; the new proof is the one kept.
    const bought = await sdk.fetch(`${base}/v1/a`, { l402: { creditSats: 10, reuseCredentials: false } });
    expect(bought.headers.get("x-session-balance")).toBe("7");
    expect((await sdk.fetch(`${base}/v1/a`)).headers.get("x-session-balance")).toBe("4");
    expect(sdk.payments.map((p) => [p.amountSats, p.purpose])).toEqual([
      [20, "credit"],
      [5, "request"],
      [10, "credit"],
    ]);
    expect(await settledInvoices()).toBe(3);
  });
});

describe("rate limits", () => {
  it("waits out an origin 429's Retry-After and redeems the same proof", async () => {
    failuresLeft.set("/v1/busy", 1);
    const { sdk, events } = client();
    const started = Date.now();
    const res = await sdk.fetch(`${base}/v1/busy`);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(events.find((e) => e.type === "retry")).toMatchObject({ reason: "upstream_failed_retryable", waitMs: 1000 });
    expect(sdk.spentSats).toBe(2);
    expect(await settledInvoices()).toBe(1);
  });

  it("fails with rate_limited when the gateway's Retry-After is beyond the bound, paying nothing more", async () => {
    const limited = await startGateways(ctx, devNode, 1, {
      rateLimits: { endpointPerMinute: 1, globalPerMinute: 1e6, credentialedPerMinute: 1e6, forgeriesBeforeDemotion: 1e6, demotionMs: 1 },
    });
    try {
      const { sdk } = client({ maxRetryAfterMs: 2_000 });
      expect((await sdk.fetch(`${limited.urls[0]}/gw/${slug}/v1/paid`)).status).toBe(200);
      const error = await expectL402Error(sdk.fetch(`${limited.urls[0]}/gw/${slug}/v1/paid`), "rate_limited");
      expect(error.details.retryAfterMs).toBeGreaterThan(2_000);
      expect(error.paidSats).toBe(0);
      expect(sdk.spentSats).toBe(7);
      expect(await settledInvoices()).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it("with returnRateLimited hands a 429 it will not wait out back as the response", async () => {
    const limited = await startGateways(ctx, devNode, 1, {
      rateLimits: { endpointPerMinute: 1, globalPerMinute: 1e6, credentialedPerMinute: 1e6, forgeriesBeforeDemotion: 1e6, demotionMs: 1 },
    });
    try {
      const { sdk, events } = client({ rateLimitRetries: 0, returnRateLimited: true });
      expect((await sdk.fetch(`${limited.urls[0]}/gw/${slug}/v1/paid`)).status).toBe(200);
      const res = await sdk.fetch(`${limited.urls[0]}/gw/${slug}/v1/paid`);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(events.filter((e) => e.type === "retry" || e.type === "refused")).toEqual([]);
      expect(sdk.spentSats).toBe(7);
    } finally {
      await limited.close();
    }
  });
});

describe("the wallet's view of a payment", () => {
  /** Wraps the dev wallet, recording what the client tells it. */
  function recordingWallet() {
    const asked: WalletPayRequest[] = [];
    const inner = devWallet({ url: payServer.payUrl });
    const wallet: L402Wallet = { name: "recording", pay: (request) => (asked.push(request), inner.pay(request)) };
    return { wallet, asked };
  }

  it("is told the challenge's macaroon, payment hash and credit along with the invoice", async () => {
    const challenges: string[] = [];
    const watching: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 402) challenges.push(res.headers.get("www-authenticate") ?? "");
      return res;
    };
    const { wallet, asked } = recordingWallet();
    const { sdk } = client({ wallet, fetch: watching });
    await sdk.fetch(`${base}/v1/paid`);
    await sdk.fetch(`${base}/v1/b`, { l402: { creditSats: 12 } });
    expect(asked).toEqual([
      {
        invoice: expect.stringMatching(/^lnbcrt/),
        amountSats: 7,
        macaroon: expect.any(String),
        paymentHash: sdk.payments[0].paymentHash,
        creditSats: null,
        signal: undefined,
      },
      {
        invoice: expect.stringMatching(/^lnbcrt/),
        amountSats: 12,
        macaroon: expect.any(String),
        paymentHash: sdk.payments[1].paymentHash,
        creditSats: 12,
        signal: undefined,
      },
    ]);
    expect(challenges.map((c) => /macaroon="([^"]+)"/.exec(c)?.[1])).toEqual(asked.map((a) => a.macaroon));
  });

  it("is handed the request's abort signal: a payer waiting on a person stops when the caller aborts, and nothing is paid", async () => {
    let waiting!: WalletPayRequest;
    const patient: L402Wallet = {
      name: "patient",
      pay: (request) =>
        new Promise((_resolve, reject) => {
          waiting = request;
          request.signal?.addEventListener("abort", () => reject(request.signal!.reason), { once: true });
        }),
    };
    const { sdk } = client({ wallet: patient });
    const controller = new AbortController();
    const call = sdk.fetch(`${base}/v1/paid`, { signal: controller.signal });
    await waitFor(() => waiting !== undefined, "the wallet to be asked");
    expect(waiting.signal).toBe(controller.signal);
    controller.abort();
    const error = await expectL402Error(call, "payment_failed");
    expect(error.paidSats).toBe(0);
    expect(sdk.spentSats).toBe(0);
    expect(sdk.remainingSats).toBe(1000);
    expect(payServer.paid).toHaveLength(0);
  });
});

describe("streams", () => {
  it("pays for a per_request stream and reads a bounded window of events", async () => {
    const { sdk } = client();
    const stream = await sdk.stream(`${base}/v1/events`, { maxEvents: 3 });
    expect(stream.paidSats).toBe(4);
    expect(stream.response.headers.get("x-hub-payment")).toBe("charged");
    await waitFor(() => originStreams.length === 1, "the origin stream");
    originStreams[0].write("data: one\n\nevent: tick\nid: 2\ndata: a\ndata: b\n\n: keep-alive\n\ndata: three\n\ndata: four\n\n");
    const events = await stream.collect();
    expect(events).toEqual([
      { type: "event", event: "message", data: "one", id: null },
      { type: "event", event: "tick", data: "a\nb", id: "2" },
      { type: "event", event: "message", data: "three", id: null },
    ]);
    expect(stream.endReason).toBe("max_events");
    await waitFor(() => gateways.every((g) => g.openStreams() === 0), "the gateway to close the stream");

    const quiet = await sdk.stream(`${base}/v1/events`, { maxMs: 300 });
    expect(await quiet.collect()).toEqual([]);
    expect(quiet.endReason).toBe("max_ms");
    expect(sdk.spentSats).toBe(8);
  });

  it("surfaces a time_pass payment_required frame, then pays anew for the next window", async () => {
    const { sdk } = client();
    const stream = await sdk.stream(`${base}/v1/pass`);
    expect(stream.paidSats).toBe(20);
    await waitFor(() => originStreams.length === 1, "the origin stream");
    originStreams[0].write("data: before\n\n");
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(event.type === "payment_required" ? `payment_required:${event.reason}` : event.data);
      if (seen.length === 1) {
        // The stream's window ends by the gateway's clock; the session's by the database's.
        clock.advance(61_000);
        await ctx.db.sql.query(`UPDATE "PaymentSession" SET "expiresAt" = now() - interval '1 second'`);
      }
    }
    expect(seen).toEqual(["before", "payment_required:time_pass_expired"]);
    expect(stream.endReason).toBe("payment_required");

    // The cached session token is now expired at the gateway: the client pays for a new window.
    const again = await sdk.stream(`${base}/v1/pass`, { maxMs: 200 });
    expect(again.paidSats).toBe(20);
    await again.close();
    expect(sdk.payments.map((p) => p.amountSats)).toEqual([20, 20]);
    expect(await settledInvoices()).toBe(2);
  });
});
