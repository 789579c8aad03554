// The try-it wallet: whichever way the visitor pays first (QR + settlement polling, WebLN, the dev
// wallet, a pasted preimage) finishes the payment; refusals keep the invoice open; cancel ends it.
import { describe, expect, it } from "vitest";
import type { WebLnProviderLike } from "@l402-hub/sdk/client";
import { createVisitorWallet, type VisitorPayment, type VisitorWalletOptions } from "./visitor-wallet.ts";

const preimage = "ab".repeat(32);
const request = { invoice: "lnbcrt10n1example", amountSats: 1, macaroon: "mac", paymentHash: "cd".repeat(32), creditSats: null };

/** Polling that waits until stopped: the QR path open but never paid. */
const idleSettlement: VisitorWalletOptions["settlement"] = {
  sleep: (_ms, signal) => new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true })),
};

/** A settlement route answering from a script (then "open" forever), polled without delays. */
function scriptedSettlement(answers: unknown[]) {
  const asked: unknown[] = [];
  let polling: AbortSignal | undefined;
  const settlement: VisitorWalletOptions["settlement"] = {
    sleep: async (_ms, signal) => {
      polling = signal;
      await new Promise((r) => setTimeout(r, 1));
    },
    fetch: (async (_url: string, init?: RequestInit) => {
      asked.push(JSON.parse(String(init?.body)));
      const body = answers.shift() ?? { state: "open", paymentHash: request.paymentHash, preimage: null };
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    }) as typeof fetch,
  };
  return { settlement, asked, stopped: () => polling?.aborted };
}

function wallet(options: Partial<VisitorWalletOptions> = {}) {
  const seen: (VisitorPayment | null)[] = [];
  const visitor = createVisitorWallet({ onChange: (p) => seen.push(p), webln: () => undefined, settlement: idleSettlement, ...options });
  const channels = () => seen.map((p) => (p === null ? null : p.channel.kind));
  return { visitor, seen, channels };
}

describe("createVisitorWallet", () => {
  it("shows the invoice and resolves with the preimage the settlement route reports (a phone paid the QR code)", async () => {
    const { settlement, asked } = scriptedSettlement([
      { state: "open", paymentHash: request.paymentHash, preimage: null },
      { state: "settled", paymentHash: request.paymentHash, preimage },
    ]);
    const { visitor, seen, channels } = wallet({ settlement });
    await expect(visitor.pay(request)).resolves.toEqual({ preimage });
    expect(seen[0]).toEqual({
      invoice: { invoice: request.invoice, amountSats: 1, paymentHash: request.paymentHash, creditSats: null },
      channel: { kind: "waiting" },
    });
    expect(channels()).toEqual(["waiting", "paid"]);
    expect(asked).toEqual([{ macaroon: "mac" }, { macaroon: "mac" }]);
  });

  it("pays by WebLN at once when the page has a provider; a refusal keeps the invoice open and the dev wallet pays it", async () => {
    let asked = 0;
    const provider: WebLnProviderLike = {
      enable: async () => {},
      sendPayment: async () => {
        asked++;
        throw new Error("User rejected the payment");
      },
    };
    const devPaid: string[] = [];
    const fetchFn = (async (url: string, init?: RequestInit) => {
      devPaid.push(`${url} ${JSON.parse(String(init?.body)).invoice}`);
      return new Response(JSON.stringify({ preimage: preimage.toUpperCase() }), { status: 200 });
    }) as typeof fetch;
    const { visitor, seen, channels } = wallet({ webln: () => provider, devPayUrl: "/api/dev/lightning/pay", fetch: fetchFn });
    const paying = visitor.pay(request);
    await expect.poll(() => channels().at(-1)).toBe("failed");
    expect(asked).toBe(1);
    expect(seen.at(-1)?.channel).toEqual({
      kind: "failed",
      via: "webln",
      message: "Your WebLN wallet did not pay (User rejected the payment). Scan the QR code with another wallet, or send again.",
      canPaste: false,
    });
    visitor.payWithDevWallet();
    await expect(paying).resolves.toEqual({ preimage });
    expect(devPaid).toEqual([`/api/dev/lightning/pay ${request.invoice}`]);
    expect(channels()).toEqual(["waiting", "webln", "failed", "dev", "paid"]);
  });

  it("says when the dev wallet cannot pay, and when there is no WebLN provider to pay with", async () => {
    const fetchFn = (async () => new Response(JSON.stringify({ error: { message: "invoice expired" } }), { status: 400 })) as typeof fetch;
    const { visitor, seen } = wallet({ devPayUrl: "/api/dev/lightning/pay", fetch: fetchFn });
    void visitor.pay(request).catch(() => {});
    visitor.payWithDevWallet();
    await expect.poll(() => seen.at(-1)?.channel.kind).toBe("failed");
    expect(seen.at(-1)?.channel).toMatchObject({ via: "dev", message: "The dev wallet could not pay (dev wallet: 400 invoice expired)." });
    visitor.payWithWebln();
    await expect.poll(() => seen.at(-1)?.channel).toMatchObject({ kind: "failed", via: "webln" });
  });

  it("offers the pasted preimage when the provider's wallet does not report preimages, and accepts it", async () => {
    const { settlement } = scriptedSettlement([{ state: "settled", paymentHash: request.paymentHash, preimage: null }]);
    const { visitor, seen } = wallet({ settlement });
    const paying = visitor.pay(request);
    await expect.poll(() => seen.at(-1)?.channel.kind).toBe("failed");
    expect(seen.at(-1)?.channel).toMatchObject({ via: "settlement", canPaste: true });
    visitor.acceptPreimage(preimage.toUpperCase());
    await expect(paying).resolves.toEqual({ preimage });
  });

  it("ends on the request's abort: rejects with its reason, closes the invoice, stops polling; ignores late payers", async () => {
    const { settlement, stopped } = scriptedSettlement([]);
    const { visitor, seen } = wallet({ settlement });
    const controller = new AbortController();
    const paying = visitor.pay({ ...request, signal: controller.signal });
    await expect.poll(() => stopped()).toBe(false);
    controller.abort(new Error("canceled by the visitor"));
    await expect(paying).rejects.toThrow("canceled by the visitor");
    expect(seen.at(-1)).toBeNull();
    await expect.poll(() => stopped()).toBe(true);
    visitor.acceptPreimage(preimage);
    expect(seen.at(-1)).toBeNull();

    const already = new AbortController();
    already.abort(new Error("gone"));
    await expect(visitor.pay({ ...request, signal: already.signal })).rejects.toThrow("gone");
  });

  it("keeps one invoice open at a time: a new payment abandons the previous one", async () => {
    const { visitor } = wallet();
    const first = visitor.pay(request);
    const second = visitor.pay({ ...request, invoice: "lnbcrt20n1other", amountSats: 2 });
    await expect(first).rejects.toThrow("a newer payment replaced this one");
    visitor.acceptPreimage(preimage);
    await expect(second).resolves.toEqual({ preimage });
  });
});
