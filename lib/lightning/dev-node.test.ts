import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decode as decodeBolt11 } from "bolt11";
import { recoverPublicKey } from "@noble/secp256k1";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";
import { DevLightningNode, DevPaymentError, WalletError, walletBackendFor, type DevPaymentErrorCode } from "./index.ts";

const APP_SECRET = "dev-node-test-secret-0123456789abcdef";
const T0 = new Date("2030-01-01T00:00:00.000Z");

const BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

/** Regroups bit words (5 -> 8 with zero padding), as BOLT11 does for the signed data. */
function regroup(words: number[], from: number, to: number): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const word of words) {
    acc = (acc << from) | word;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & ((1 << to) - 1));
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out.push((acc << (to - bits)) & ((1 << to) - 1));
  return out;
}

/** Recovers the signer of a BOLT11 invoice with @noble/secp256k1, independently of the bolt11 package. */
function recoverInvoiceSigner(invoice: string): string {
  const lower = invoice.toLowerCase();
  const separator = lower.lastIndexOf("1");
  const hrp = lower.slice(0, separator);
  const words = [...lower.slice(separator + 1, -6)].map((c) => BECH32_CHARSET.indexOf(c));
  const data = words.slice(0, -104);
  const signature = Uint8Array.from(regroup(words.slice(-104), 5, 8)); // r ‖ s ‖ recovery id: exactly 65 bytes
  const digest = createHash("sha256")
    .update(Buffer.concat([Buffer.from(hrp, "utf8"), Buffer.from(regroup(data, 5, 8))]))
    .digest();
  const recovered = Uint8Array.from([signature[64], ...signature.subarray(0, 64)]);
  return Buffer.from(recoverPublicKey(recovered, digest, { prehash: false })).toString("hex");
}

async function payError(promise: Promise<unknown>): Promise<DevPaymentErrorCode> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DevPaymentError);
    return (err as DevPaymentError).code;
  }
  throw new Error("expected the payment to fail");
}

describe("DevLightningNode", () => {
  let ctx: TestContext;
  let clock: Date;
  let node: DevLightningNode;

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });
  beforeEach(async () => {
    await ctx.reset();
    clock = T0;
    node = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: APP_SECRET, now: () => clock });
  });

  it("derives one node key per APP_SECRET (every process of an install shares it)", () => {
    const again = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: APP_SECRET });
    const other = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: "another-install-secret-0123456789" });
    expect(node.nodePubkey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(again.nodePubkey).toBe(node.nodePubkey);
    expect(other.nodePubkey).not.toBe(node.nodePubkey);
  });

  it("issues real regtest BOLT11 invoices that third-party decoders accept", async () => {
    const created = await node.createInvoice({ amountSats: 2100, description: "GET /v1/weather ☀", expirySeconds: 600 });
    expect(created.paymentRequest).toMatch(/^lnbcrt21u1/);
    expect(created.paymentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(created.expiresAt).toEqual(new Date(T0.getTime() + 600_000));

    const decoded = decodeBolt11(created.paymentRequest);
    expect(decoded.network?.bech32).toBe("bcrt");
    expect(decoded.prefix).toBe("lnbcrt21u");
    expect(decoded.satoshis).toBe(2100);
    expect(decoded.millisatoshis).toBe("2100000");
    expect(decoded.timestamp).toBe(T0.getTime() / 1000);
    expect(decoded.timeExpireDate).toBe(T0.getTime() / 1000 + 600);
    expect(decoded.tagsObject.payment_hash).toBe(created.paymentHash);
    expect(decoded.tagsObject.description).toBe("GET /v1/weather ☀");
    expect(decoded.tagsObject.expire_time).toBe(600);
    expect(decoded.tagsObject.payment_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(decoded.tagsObject.feature_bits?.payment_secret?.required).toBe(true);
    // bolt11 recovers the signer from the signature; so does an independent implementation.
    expect(decoded.payeeNodeKey).toBe(node.nodePubkey);
    expect(recoverInvoiceSigner(created.paymentRequest)).toBe(node.nodePubkey);
  });

  it("encodes sub-microbitcoin and large amounts exactly", async () => {
    for (const amountSats of [1, 7, 150, 123_456_789]) {
      const { paymentRequest } = await node.createInvoice({ amountSats, description: "", expirySeconds: 60 });
      expect(decodeBolt11(paymentRequest).millisatoshis).toBe(String(amountSats * 1000));
    }
  });

  it("refuses invoices it cannot issue with WalletError(rejected)", async () => {
    const bad = [
      { amountSats: 0, description: "x", expirySeconds: 60 },
      { amountSats: 1.5, description: "x", expirySeconds: 60 },
      { amountSats: 10, description: "x", expirySeconds: 0 },
      { amountSats: 10, description: "x".repeat(640), expirySeconds: 60 },
    ];
    for (const request of bad) {
      await expect(node.createInvoice(request)).rejects.toMatchObject({ name: "WalletError", kind: "rejected" });
    }
  });

  it("pays an invoice once, returning the preimage of its payment hash", async () => {
    const created = await node.createInvoice({ amountSats: 21, description: "one call", expirySeconds: 600 });
    expect(await node.lookupInvoice(created.paymentHash)).toEqual({
      paymentHash: created.paymentHash,
      state: "open",
      settledAt: null,
      amountSats: 21,
      preimage: null,
    });

    clock = new Date(T0.getTime() + 5_000);
    const paid = await node.pay(created.paymentRequest);
    expect(paid.paymentHash).toBe(created.paymentHash);
    expect(paid.amountSats).toBe(21);
    expect(createHash("sha256").update(Buffer.from(paid.preimage, "hex")).digest("hex")).toBe(created.paymentHash);
    expect(await node.lookupInvoice(created.paymentHash)).toMatchObject({ state: "settled", settledAt: clock });

    expect(await payError(node.pay(created.paymentRequest))).toBe("already_paid");
    // Settled stays settled after the expiry passes.
    clock = new Date(T0.getTime() + 3_600_000);
    expect(await node.lookupInvoice(created.paymentHash)).toMatchObject({ state: "settled" });
    expect(await payError(node.pay(created.paymentRequest))).toBe("already_paid");
  });

  it("settles exactly once under concurrent pays", async () => {
    const { paymentRequest } = await node.createInvoice({ amountSats: 5, description: "race", expirySeconds: 600 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => node.pay(paymentRequest)));
    const fulfilled = results.filter((r) => r.status === "fulfilled");
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(fulfilled).toHaveLength(1);
    expect(rejected.map((r) => (r.reason as DevPaymentError).code)).toEqual(Array(7).fill("already_paid"));
  });

  it("refuses expired invoices and reports them expired", async () => {
    const created = await node.createInvoice({ amountSats: 5, description: "late", expirySeconds: 60 });
    clock = new Date(T0.getTime() + 60_000);
    expect(await payError(node.pay(created.paymentRequest))).toBe("expired");
    expect(await node.lookupInvoice(created.paymentHash)).toMatchObject({ state: "expired", settledAt: null });
    clock = new Date(T0.getTime() + 59_999);
    expect(await node.lookupInvoice(created.paymentHash)).toMatchObject({ state: "open" });
  });

  it("refuses strings that are not invoices", async () => {
    const { paymentRequest } = await node.createInvoice({ amountSats: 5, description: "x", expirySeconds: 60 });
    const flipped = paymentRequest.slice(0, 20) + (paymentRequest[20] === "q" ? "p" : "q") + paymentRequest.slice(21);
    for (const garbage of ["", "   ", "hello", "lnbcrt1", "lightning:", flipped, "ln" + "q".repeat(5000)]) {
      expect(await payError(node.pay(garbage))).toBe("invalid_invoice");
    }
  });

  it("refuses invoices another node signed, and its own invoices it has no record of", async () => {
    const other = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: "another-install-secret-0123456789", now: () => clock });
    const foreign = await other.createInvoice({ amountSats: 5, description: "elsewhere", expirySeconds: 600 });
    expect(await payError(node.pay(foreign.paymentRequest))).toBe("unknown_invoice");

    const forgotten = await node.createInvoice({ amountSats: 5, description: "forgotten", expirySeconds: 600 });
    await ctx.reset();
    expect(await payError(node.pay(forgotten.paymentRequest))).toBe("unknown_invoice");
    expect(await node.lookupInvoice(forgotten.paymentHash)).toBeNull();
  });

  it("accepts the lightning: URI form and any letter case", async () => {
    const first = await node.createInvoice({ amountSats: 5, description: "uri", expirySeconds: 600 });
    expect((await node.pay(`lightning:${first.paymentRequest}`)).paymentHash).toBe(first.paymentHash);
    const second = await node.createInvoice({ amountSats: 5, description: "upper", expirySeconds: 600 });
    expect((await node.pay(second.paymentRequest.toUpperCase())).paymentHash).toBe(second.paymentHash);
  });

  it("looks up unknown or malformed hashes as null", async () => {
    expect(await node.lookupInvoice("ab".repeat(32))).toBeNull();
    expect(await node.lookupInvoice("not-a-hash")).toBeNull();
  });

  it("exposes the receive side as a WalletBackend of type dev", async () => {
    const wallet = node.wallet();
    expect(wallet.type).toBe("dev");
    expect(await wallet.getNodePubkey()).toBe(node.nodePubkey);
    expect("pay" in wallet).toBe(false);
    const created = await wallet.createInvoice({ amountSats: 3, description: "via wallet", expirySeconds: 60 });
    expect(await wallet.lookupInvoice(created.paymentHash)).toMatchObject({ state: "open", amountSats: 3 });
  });

  it("walletBackendFor returns the dev node's wallet, and throws unreachable when the dev node is off", async () => {
    const wallet = walletBackendFor({ type: "dev", devNode: node });
    expect(wallet.type).toBe("dev");
    expect(await wallet.getNodePubkey()).toBe(node.nodePubkey);

    let thrown: unknown = null;
    try {
      walletBackendFor({ type: "dev", devNode: null });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(WalletError);
    expect((thrown as WalletError).kind).toBe("unreachable");
  });
});
