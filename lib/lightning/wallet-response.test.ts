import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FakeLightningNode } from "@/tests/fakes/lightning/fake-invoices.ts";
import { WalletError } from "./types.ts";
import { assertInvoiceRequest, checkCreatedInvoice, decodeWalletInvoice, parseWalletResponse } from "./wallet-response.ts";

const node = new FakeLightningNode(() => new Date("2030-01-01T00:00:00Z"));
const request = { amountSats: 1000, description: "a call", expirySeconds: 900 };

function kindOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WalletError);
    return (err as WalletError).kind;
  }
  return "no error";
}

describe("checkCreatedInvoice", () => {
  it("returns the invoice's hash, its own expiry and the signer", () => {
    const invoice = node.issue({ amountMsat: 1_000_000n, description: "a call", expirySeconds: 900 });
    expect(checkCreatedInvoice("Test", request, invoice.paymentRequest, invoice.paymentHash.toUpperCase())).toEqual({
      paymentRequest: invoice.paymentRequest,
      paymentHash: invoice.paymentHash,
      expiresAt: new Date("2030-01-01T00:15:00Z"),
      payeeNodeKey: node.nodePubkey,
    });
  });

  it.each([
    ["a different amount", () => node.issue({ amountMsat: 999_000n, description: "", expirySeconds: 900 }).paymentRequest, undefined],
    ["a fractional-sat amount", () => node.issue({ amountMsat: 1_000_001n, description: "", expirySeconds: 900 }).paymentRequest, undefined],
    [
      "a reported hash that is not the invoice's",
      () => node.issue({ amountMsat: 1_000_000n, description: "", expirySeconds: 900 }).paymentRequest,
      "ab".repeat(32),
    ],
    ["garbage", () => "lnbcrt1garbage", undefined],
    ["a number", () => 42, undefined],
    ["an empty string", () => "", undefined],
  ])("refuses %s as invalid_response", (_label, paymentRequest, reportedHash) => {
    expect(kindOf(() => checkCreatedInvoice("Test", request, paymentRequest(), reportedHash))).toBe("invalid_response");
  });
});

describe("decodeWalletInvoice", () => {
  it("applies BOLT11's default expiry of one hour when the invoice has no expiry field", () => {
    // A published BOLT11 test vector (no `x` field): "Please consider supporting this project".
    const vector =
      "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql";
    const decoded = decodeWalletInvoice("Test", vector);
    expect(decoded.amountMsat).toBeNull();
    expect(decoded.expiresAt.getTime()).toBe((1496314658 + 3600) * 1000);
  });

  it("refuses what is not an invoice without repeating it (the decoder's errors quote their input)", () => {
    for (const answer of ["lnbcINTERNAL-PAGE-TEXTxyz", "<html>INTERNAL-PAGE-TEXT</html>"]) {
      const err = (() => {
        try {
          decodeWalletInvoice("Test", answer);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(WalletError);
      expect((err as WalletError).kind).toBe("invalid_response");
      expect((err as WalletError).message).not.toContain("INTERNAL-PAGE-TEXT");
    }
  });
});

describe("assertInvoiceRequest", () => {
  it.each([
    [{ ...request, amountSats: 0 }, "rejected"],
    [{ ...request, amountSats: -1 }, "rejected"],
    [{ ...request, amountSats: 0.5 }, "rejected"],
    [{ ...request, amountSats: Number.MAX_SAFE_INTEGER }, "rejected"],
    [{ ...request, expirySeconds: 0 }, "rejected"],
    [request, "no error"],
  ])("%o -> %s", (candidate, expected) => {
    expect(kindOf(() => assertInvoiceRequest(candidate))).toBe(expected);
  });
});

describe("parseWalletResponse", () => {
  it("names the first offending field", () => {
    const schema = z.object({ outer: z.object({ inner: z.string() }) });
    expect(() => parseWalletResponse("Test", "lookup", schema, { outer: { inner: 1 } })).toThrow(
      /Test answered lookup with an unexpected shape at outer\.inner/,
    );
  });
});
