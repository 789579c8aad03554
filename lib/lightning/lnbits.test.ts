// LNbits-specific behaviour beyond the contract: wire shape, both API generations, the withheld
// `details` of a foreign key, expiry, and the error dialect.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lnbitsCredentialsSchema } from "./credentials.ts";
import { FakeLightningNode } from "@/tests/fakes/lightning/fake-invoices.ts";
import { FakeLnbits } from "@/tests/fakes/lightning/lnbits.ts";
import { LOOPBACK_WALLET_POLICY } from "@/tests/fakes/lightning/loopback-policy.ts";
import { LnbitsBackend } from "./lnbits.ts";
import { WalletError } from "./types.ts";

let clock = new Date("2030-01-01T00:00:00Z");
const now = () => clock;
let v1: FakeLnbits;
let legacy: FakeLnbits;

beforeAll(async () => {
  v1 = await FakeLnbits.start({ style: "v1", now });
  legacy = await FakeLnbits.start({ style: "legacy", now });
});
afterAll(async () => {
  await v1.close();
  await legacy.close();
});

function backend(fake: FakeLnbits, options: { invoiceKey?: string; url?: string } = {}): LnbitsBackend {
  const credentials = lnbitsCredentialsSchema.parse({ type: "lnbits", url: options.url ?? fake.url, invoiceKey: options.invoiceKey ?? fake.invoiceKey });
  return new LnbitsBackend({ credentials, targetPolicy: LOOPBACK_WALLET_POLICY, timeoutMs: 5000, now });
}

async function failure(promise: Promise<unknown>): Promise<WalletError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WalletError);
  return err as WalletError;
}

describe("LnbitsBackend", () => {
  it("creates incoming payments as LNbits documents them, with the invoice key in X-Api-Key", async () => {
    const seen = v1.requests.length;
    const created = await backend(v1).createInvoice({ amountSats: 2100, description: "memo", expirySeconds: 600 });
    const [create] = v1.requests.slice(seen);
    expect(create.method).toBe("POST");
    expect(create.path).toBe("/api/v1/payments");
    expect(create.headers["x-api-key"]).toBe(v1.invoiceKey);
    expect(JSON.parse(create.body)).toEqual({ out: false, amount: 2100, memo: "memo", expiry: 600, unit: "sat" });
    expect(created.paymentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ["1.x (bolt11, updated_at)", () => v1],
    ["pre-1.0 (payment_request, no settlement time)", () => legacy],
  ])("speaks the %s API", async (_label, fake) => {
    const wallet = backend(fake());
    const created = await wallet.createInvoice({ amountSats: 42, description: "both dialects", expirySeconds: 600 });
    expect(await wallet.lookupInvoice(created.paymentHash)).toEqual({
      paymentHash: created.paymentHash,
      state: "open",
      settledAt: null,
      amountSats: 42,
      preimage: null,
    });
    const paid = fake().markPaid(created.paymentHash);
    clock = new Date(clock.getTime() + 5_000); // seen paid five seconds later
    try {
      const settled = await wallet.lookupInvoice(created.paymentHash);
      // 1.x records when it was paid; older versions do not, so we report when we first saw it paid.
      expect(settled).toEqual({
        paymentHash: created.paymentHash,
        state: "settled",
        settledAt: fake() === v1 ? paid.settledAt : clock,
        amountSats: 42,
        preimage: paid.preimage,
      });
    } finally {
      clock = new Date(clock.getTime() - 5_000);
    }
  });

  it("reports an unpaid invoice past its expiry as expired", async () => {
    for (const fake of [v1, legacy]) {
      const wallet = backend(fake);
      const created = await wallet.createInvoice({ amountSats: 5, description: "soon gone", expirySeconds: 60 });
      const start = clock;
      try {
        clock = new Date(start.getTime() + 60_000);
        expect(await wallet.lookupInvoice(created.paymentHash)).toMatchObject({ state: "expired", settledAt: null });
      } finally {
        clock = start;
      }
    }
  });

  it("reports a key that does not belong to the wallet as unauthorized, on lookups too", async () => {
    const created = await backend(v1).createInvoice({ amountSats: 5, description: "x", expirySeconds: 60 });
    // LNbits answers the lookup without a valid key, but withholds `details`.
    const stranger = backend(v1, { invoiceKey: randomBytes(16).toString("hex") });
    expect((await failure(stranger.lookupInvoice(created.paymentHash))).kind).toBe("unauthorized");
    const err = await failure(stranger.createInvoice({ amountSats: 5, description: "x", expirySeconds: 60 }));
    expect(err.kind).toBe("unauthorized");
    // The status, never LNbits' own words (a wallet URL may lead to any page).
    expect(err.message).toMatch(/\(HTTP 40[13]\)$/);
    expect(err.message).not.toContain("Invoice (or Admin) key required.");
  });

  it("tells LNbits' unknown-payment answer apart from a 404 of a wrong URL", async () => {
    expect(await backend(v1).lookupInvoice(randomBytes(32).toString("hex"))).toBeNull();
    const wrongPath = backend(v1, { url: `${v1.url}/lnbits` });
    expect((await failure(wrongPath.lookupInvoice(randomBytes(32).toString("hex")))).kind).toBe("unreachable");
  });

  it("refuses a payment_hash that is not the invoice's", async () => {
    const other = new FakeLightningNode().issue({ amountMsat: 7000n, description: "x", expirySeconds: 60 });
    v1.failNext(201, { payment_hash: "ab".repeat(32), payment_request: other.paymentRequest });
    expect((await failure(backend(v1).createInvoice({ amountSats: 7, description: "x", expirySeconds: 60 }))).kind).toBe("invalid_response");
  });

  it.each([
    [520, { detail: "Failed to create invoice: funding source offline" }, "rejected", "funding source offline"],
    [422, { detail: [{ loc: ["body", "amount"], msg: "ensure this value is greater than 0", type: "value_error" }] }, "rejected", "greater than 0"],
    [403, { detail: "Forbidden" }, "unauthorized", "Forbidden"],
    [502, "Bad Gateway", "unreachable", "Bad Gateway"],
  ])("maps HTTP %i to %s, naming the status but never LNbits' detail", async (status, body, kind, detail) => {
    v1.failNext(status, body);
    const err = await failure(backend(v1).createInvoice({ amountSats: 1, description: "x", expirySeconds: 60 }));
    expect(err.kind).toBe(kind);
    expect(err.message).toContain(`HTTP ${status}`);
    expect(err.message).not.toContain(detail);
  });
});
