// Polling the settlement route: backoff, the outcomes, and giving up (timeout, cancel).
import { describe, expect, it } from "vitest";
import { nextDelay, pollSettlement, SETTLEMENT_POLL } from "./poll-settlement.ts";

/** A fetch that answers from a script, and records each request body. */
function scripted(answers: Array<{ status: number; body: unknown } | Error>) {
  const seen: unknown[] = [];
  const fetchFn = (async (_url: string, init?: RequestInit) => {
    seen.push(JSON.parse(String(init?.body)));
    const answer = answers.shift() ?? { status: 200, body: { state: "open", paymentHash: "h", preimage: null } };
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { fetchFn, seen };
}

describe("pollSettlement", () => {
  it("polls with growing delays through open answers, errors and 5xx until settled", async () => {
    const delays: number[] = [];
    const { fetchFn, seen } = scripted([
      { status: 200, body: { state: "open", paymentHash: "h", preimage: null } },
      new TypeError("network"),
      { status: 503, body: { error: { code: "service_unavailable" } } },
      { status: 200, body: { state: "settled", paymentHash: "h", preimage: "ab".repeat(32) } },
    ]);
    const result = await pollSettlement({ macaroon: "mac", fetch: fetchFn, sleep: async (ms) => void delays.push(ms) });
    expect(result).toEqual({ ok: true, preimage: "ab".repeat(32) });
    expect(seen).toEqual(Array(4).fill({ macaroon: "mac" }));
    expect(delays).toEqual([1000, 1500, 2250, 3375]);
  });

  it("ends on expired, canceled, refused and settled-without-preimage", async () => {
    const sleep = async () => {};
    const outcome = async (status: number, body: unknown) => await pollSettlement({ macaroon: "m", fetch: scripted([{ status, body }]).fetchFn, sleep });
    expect(await outcome(200, { state: "expired", paymentHash: "h", preimage: null })).toMatchObject({ ok: false, reason: "expired" });
    expect(await outcome(200, { state: "canceled", paymentHash: "h", preimage: null })).toMatchObject({ ok: false, reason: "canceled" });
    expect(await outcome(401, { error: {} })).toMatchObject({ ok: false, reason: "refused" });
    expect(await outcome(200, { state: "settled", paymentHash: "h", preimage: null })).toMatchObject({ ok: false, reason: "no_preimage" });
  });

  it("honours a 429's retryAfterSeconds, gives up at the timeout, and stops when aborted", async () => {
    expect(nextDelay(1000, SETTLEMENT_POLL, 12)).toBe(12_000);
    expect(nextDelay(4000, SETTLEMENT_POLL)).toBe(5000);

    let clock = 0;
    const timedOut = await pollSettlement({
      macaroon: "m",
      fetch: scripted([]).fetchFn,
      sleep: async (ms) => void (clock += ms),
      now: () => clock,
      timing: { timeoutMs: 20_000 },
    });
    expect(timedOut).toMatchObject({ ok: false, reason: "timeout" });

    const controller = new AbortController();
    const { fetchFn, seen } = scripted([]);
    const aborted = await pollSettlement({
      macaroon: "m",
      fetch: fetchFn,
      signal: controller.signal,
      sleep: async () => {
        if (seen.length === 2) controller.abort();
      },
    });
    expect(aborted).toMatchObject({ ok: false, reason: "aborted" });
    expect(seen).toHaveLength(2);
  });
});
