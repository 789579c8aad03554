// The shared client: cache and in-flight sharing, timeouts, and each rate-limit rule (Retry-After,
// bans, backoff without a Retry-After, Binance's used-weight header), against a real loopback server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { UpstreamUnavailableError } from "./errors.ts";
import { startHttpFake, type HttpFake } from "./fakes/http-fake.ts";
import { retryAfterMs, UpstreamClient, UpstreamThrottledSignal } from "./upstream-client.ts";

let fake: HttpFake;
let clock = Date.UTC(2026, 10, 26, 12, 0, 10);
let served = 0;
const now = () => clock;
const decode = (answer: { body: unknown }) => answer.body as { n: number };

beforeAll(async () => {
  fake = await startHttpFake((url) => {
    if (url.pathname === "/throttle-in-body") return { body: { slow: true } };
    served += 1;
    return { body: { n: served } };
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  clock = Date.UTC(2026, 10, 26, 12, 0, 10);
});

function client(extra: Partial<ConstructorParameters<typeof UpstreamClient>[0]> = {}) {
  return new UpstreamClient({ name: "binance", baseUrl: fake.url, timeoutMs: 2_000, now, ...extra });
}

async function rejection(promise: Promise<unknown>): Promise<UpstreamUnavailableError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UpstreamUnavailableError);
  return error as UpstreamUnavailableError;
}

describe("UpstreamClient", () => {
  it("serves a burst from one request, concurrent or sequential, until the TTL passes", async () => {
    const upstream = client();
    const before = fake.count("/resource");
    const burst = await Promise.all(Array.from({ length: 10 }, () => upstream.get("/resource", { a: 1 }, { ttlMs: 5_000, decode })));
    expect(new Set(burst.map((answer) => answer.n)).size).toBe(1);
    await upstream.get("/resource", { a: 1 }, { ttlMs: 5_000, decode });
    expect(fake.count("/resource") - before).toBe(1);
    clock += 5_001;
    const fresh = await upstream.get("/resource", { a: 1 }, { ttlMs: 5_000, decode });
    expect(fresh.n).not.toBe(burst[0].n);
    expect(fake.count("/resource") - before).toBe(2);
    expect(upstream.requestsSent).toBe(2);
  });

  it("blocks on a 429 until its Retry-After, says so, sends nothing meanwhile, then recovers", async () => {
    const upstream = client();
    fake.failNext({
      status: 429,
      headers: { "Retry-After": "30" },
      body: { code: -1003, msg: "Too many requests; current limit is 6000 request weight per 1 MINUTE." },
    });
    const first = await rejection(upstream.get("/limited", {}, { ttlMs: 1_000, decode }));
    expect(first.upstream).toBe("binance");
    expect(first.reason).toContain("rate limited: HTTP 429");
    expect(first.reason).toContain("Too many requests");
    expect(first.retryAt).toBe(clock + 30_000);
    const sent = fake.requests.length;
    clock += 29_000;
    const blocked = await rejection(upstream.get("/limited", {}, { ttlMs: 1_000, decode }));
    expect(blocked.reason).toContain("retrying after");
    expect(fake.requests.length).toBe(sent);
    expect(upstream.status()).toMatchObject({ available: false });
    clock += 1_001;
    await expect(upstream.get("/limited", {}, { ttlMs: 1_000, decode })).resolves.toHaveProperty("n");
    expect(upstream.status()).toEqual({ available: true });
  });

  it("treats 418 (IP ban) and 403 (WAF) as throttles, honouring an HTTP-date Retry-After", async () => {
    const upstream = client();
    fake.failNext({
      status: 418,
      headers: { "Retry-After": new Date(clock + 120_000).toUTCString() },
      body: { code: -1003, msg: "Way too many requests; IP banned." },
    });
    const ban = await rejection(upstream.get("/ban", {}, { ttlMs: 1_000, decode }));
    expect(ban.reason).toContain("IP banned: HTTP 418");
    expect(ban.retryAt).toBe(Math.floor((clock + 120_000) / 1000) * 1000);
    clock += 121_000;
    fake.failNext({ status: 403, body: "<html>Forbidden</html>" });
    const waf = await rejection(upstream.get("/ban", {}, { ttlMs: 1_000, decode }));
    expect(waf.reason).toContain("access refused");
  });

  it("backs off exponentially when throttled without a Retry-After, and resets after a success", async () => {
    const upstream = client({ baseBackoffMs: 1_000 });
    const start = clock;
    fake.failNext({ status: 429, body: { message: "Public rate limit exceeded" } }, 2);
    expect((await rejection(upstream.get("/backoff", {}, { ttlMs: 0, decode }))).retryAt).toBe(start + 1_000);
    clock += 1_000;
    expect((await rejection(upstream.get("/backoff", {}, { ttlMs: 0, decode }))).retryAt).toBe(clock + 2_000);
    clock += 2_000;
    await upstream.get("/backoff", {}, { ttlMs: 0, decode });
    fake.failNext({ status: 429, body: { message: "Public rate limit exceeded" } });
    expect((await rejection(upstream.get("/backoff", {}, { ttlMs: 0, decode }))).retryAt).toBe(clock + 1_000);
  });

  it("turns a throttle signalled in a 200 body into the same block", async () => {
    const upstream = client({ name: "kraken" });
    const throttled = await rejection(
      upstream.get(
        "/throttle-in-body",
        {},
        {
          ttlMs: 1_000,
          decode: () => {
            throw new UpstreamThrottledSignal("throttled: EAPI:Rate limit exceeded");
          },
        },
      ),
    );
    expect(throttled.upstream).toBe("kraken");
    expect(throttled.reason).toContain("EAPI:Rate limit exceeded");
    expect(upstream.status().available).toBe(false);
  });

  it("pauses until the next minute when X-MBX-USED-WEIGHT-1M nears its budget", async () => {
    const weighted = await startHttpFake(
      () => ({ body: { n: 1 } }),
      () => ({ "X-MBX-USED-WEIGHT-1M": "5800" }),
    );
    try {
      const upstream = new UpstreamClient({
        name: "binance",
        baseUrl: weighted.url,
        timeoutMs: 2_000,
        now,
        weightHeader: { name: "x-mbx-used-weight-1m", limit: 6000 },
      });
      await upstream.get("/w", {}, { ttlMs: 0, decode });
      const paused = await rejection(upstream.get("/w", {}, { ttlMs: 0, decode }));
      expect(paused.reason).toContain("request weight 5800 of 6000");
      expect(paused.retryAt).toBe(Date.UTC(2026, 10, 26, 12, 1, 0));
      expect(weighted.requests.length).toBe(1);
    } finally {
      await weighted.close();
    }
  });

  it("times out a request that never answers, and a 5xx or refused connection backs off", async () => {
    const upstream = client({ timeoutMs: 300 });
    fake.hangNext();
    const timeout = await rejection(upstream.get("/slow", {}, { ttlMs: 0, decode }));
    expect(timeout.reason).toBe("timed out after 300 ms");
    clock += 10_000;
    fake.failNext({ status: 502, body: "<html>Bad Gateway</html>" });
    expect((await rejection(upstream.get("/slow", {}, { ttlMs: 0, decode }))).reason).toBe("HTTP 502");
    const closed = await startHttpFake(() => ({ body: {} }));
    await closed.close();
    const refused = new UpstreamClient({ name: "okx", baseUrl: closed.url, timeoutMs: 2_000, now });
    expect((await rejection(refused.get("/x", {}, { ttlMs: 0, decode }))).reason).toContain("unreachable (ECONNREFUSED)");
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("7", 0)).toBe(7_000);
    expect(retryAfterMs("Thu, 26 Nov 2026 12:00:30 GMT", Date.UTC(2026, 10, 26, 12, 0, 0))).toBe(30_000);
    expect(retryAfterMs(null, 0)).toBeUndefined();
    expect(retryAfterMs("soon", 0)).toBeUndefined();
  });
});
