// The browser-safe bolt11 amount reader against the spec's multipliers and the `bolt11` package.
import bolt11 from "bolt11";
import { describe, expect, it } from "vitest";
import { FakeLightningNode } from "@/tests/fakes/lightning/fake-invoices.ts";
import { decodeBolt11Amount } from "@l402-hub/sdk/client";

describe("decodeBolt11Amount", () => {
  it("reads every multiplier and network prefix (BOLT 11 examples' human-readable parts)", () => {
    const data = "1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypq";
    const table: [string, number | null, bigint | null][] = [
      ["lnbc", null, null],
      ["lnbc2500u", 250_000, 250_000_000n],
      ["lnbc20m", 2_000_000, 2_000_000_000n],
      ["lntb20m", 2_000_000, 2_000_000_000n],
      ["lnbcrt70n", 7, 7_000n],
      ["lnbc1", 100_000_000, 100_000_000_000n],
      ["lnbc10p", 1, 1n],
      ["lnbc9678785340p", 967_879, 967_878_534n],
    ];
    for (const [hrp, sats, msat] of table) expect(decodeBolt11Amount(`${hrp}${data}`), hrp).toMatchObject({ amountSats: sats, amountMsat: msat });
    expect(decodeBolt11Amount(`LIGHTNING:LNBC2500U${data.toUpperCase()}`).amountSats).toBe(250_000);
  });

  it("refuses what is not an invoice", () => {
    for (const bad of ["", "lnbc", "hello1qqqqqqqq", "lnxy10u1qqqqqqqqqq", "lnbc11p1qqqqqqqqqq", "lnbc010u1qqqqqqqqqq"])
      expect(() => decodeBolt11Amount(bad), bad).toThrow(TypeError);
  });

  it("agrees with the bolt11 package on real signed invoices", () => {
    const node = new FakeLightningNode();
    for (const msat of [1000n, 7000n, 21_000n, 1_234_000n, 100_000_000n, 1_500n]) {
      const invoice = node.issue({ amountMsat: msat, description: "x", expirySeconds: 60 }).paymentRequest;
      expect(decodeBolt11Amount(invoice).amountMsat).toBe(BigInt(bolt11.decode(invoice).millisatoshis!));
    }
  });
});
