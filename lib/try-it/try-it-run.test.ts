// The try-it run's states: send, pay (the invoice steps), answer, stream, and the ways it ends.
import { describe, expect, it } from "vitest";
import { idleTryItRun, isBusy, paymentStep, tryItRunReducer, type ShownResponse, type TryItRun, type TryItRunAction } from "./try-it-run.ts";
import type { VisitorPayment } from "./visitor-wallet.ts";

const invoice = { invoice: "lnbcrt10n1x", amountSats: 1, paymentHash: null, creditSats: null };
const payment = (kind: "waiting" | "webln" | "dev" | "paid"): VisitorPayment => ({ invoice, channel: { kind } });
const shown = (streaming: boolean): ShownResponse => ({
  status: 200,
  statusText: "OK",
  headers: [],
  note: null,
  sentIfNoneMatch: null,
  body: null,
  geometry: null,
  elapsedMs: 5,
  totalMs: 9,
  paidSats: 1,
  streaming,
});
const run = (...actions: TryItRunAction[]): TryItRun => actions.reduce(tryItRunReducer, idleTryItRun);

describe("tryItRunReducer", () => {
  it("goes from sending through paying to the answer, which clears the invoice", () => {
    expect(run({ type: "started" })).toMatchObject({ phase: "sending" });
    expect(isBusy(run({ type: "started" }))).toBe(true);
    const paying = run({ type: "started" }, { type: "payment", payment: payment("waiting") });
    expect(paying).toMatchObject({ phase: "paying", payment: payment("waiting") });
    expect(isBusy(paying)).toBe(true);
    const answered = tryItRunReducer(paying, { type: "answered", shown: shown(false) });
    expect(answered).toMatchObject({ phase: "done", payment: null, shown: shown(false) });
    expect(isBusy(answered)).toBe(false);
  });

  it("collects a stream's events until it ends, and a new run starts clean", () => {
    const event = { index: 1, event: "tick", data: "1", id: null, atMs: 3 };
    const streamed = run(
      { type: "started" },
      { type: "answered", shown: shown(true) },
      { type: "keep_alive", atMs: 15 },
      { type: "event", event },
      { type: "keep_alive", atMs: 30 },
      { type: "stream_ended", stop: { reason: "ended", events: 1 } },
    );
    expect(streamed).toMatchObject({ phase: "done", events: [event], keepAlives: { count: 2, lastAtMs: 30 }, streamStop: { reason: "ended", events: 1 } });
    expect(tryItRunReducer(streamed, { type: "event", event })).toBe(streamed);
    expect(tryItRunReducer(streamed, { type: "keep_alive", atMs: 45 })).toBe(streamed);
    expect(tryItRunReducer(streamed, { type: "started" })).toEqual({ ...idleTryItRun, phase: "sending" });
  });

  it("ends in an error or canceled, dropping the invoice; a stale run's payment update changes nothing", () => {
    const paying = run({ type: "started" }, { type: "payment", payment: payment("webln") });
    expect(tryItRunReducer(paying, { type: "failed", message: "boom" })).toMatchObject({ phase: "error", error: "boom", payment: null });
    const canceled = tryItRunReducer(paying, { type: "canceled" });
    expect(canceled).toMatchObject({ phase: "idle", payment: null });
    expect(tryItRunReducer(canceled, { type: "payment", payment: payment("waiting") })).toBe(canceled);
  });

  it("names the payment step from how the payment goes", () => {
    expect(paymentStep(payment("waiting"))).toBe("invoice");
    expect(paymentStep({ invoice, channel: { kind: "failed", via: "webln", message: "no", canPaste: false } })).toBe("invoice");
    expect(paymentStep(payment("webln"))).toBe("paying");
    expect(paymentStep(payment("dev"))).toBe("paying");
    expect(paymentStep(payment("paid"))).toBe("loading");
  });
});
