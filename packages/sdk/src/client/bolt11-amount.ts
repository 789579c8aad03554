// The amount of a BOLT11 invoice, read from its human-readable part alone (BOLT 11 "Human-Readable
// Part": `ln` + currency prefix + optional amount + multiplier). Browser-safe: the `bolt11` package
// needs Node's Buffer and secp256k1, and a payer only needs the amount to decide whether to pay.

/** Millisatoshis per unit of each BOLT11 multiplier (none = whole bitcoin). */
const MSAT_PER_UNIT: Record<string, bigint> = {
  "": 100_000_000_000n,
  m: 100_000_000n,
  u: 100_000n,
  n: 100n,
};

/** `ln` + currency (bc, tb, tbs, bcrt, sb) + amount digits + multiplier; the data part follows the last `1`. */
const HRP = /^ln(bcrt|bc|tbs|tb|sb)(?:(\d+)([munp]?))?$/;

/** What the human-readable part says: the network prefix and the amount (null: "any amount" invoice). */
export type Bolt11Amount = { currency: string; amountMsat: bigint | null; amountSats: number | null };

/**
 * Reads the amount of a bolt11 invoice; throws a TypeError for strings that are not one. `amountSats`
 * rounds sub-satoshi amounts UP, so budget checks never under-count.
 */
export function decodeBolt11Amount(invoice: string): Bolt11Amount {
  const text = invoice
    .trim()
    .toLowerCase()
    .replace(/^lightning:/, "");
  const separator = text.lastIndexOf("1");
  if (separator < 4 || text.length - separator < 7) throw new TypeError("not a bolt11 invoice");
  const match = HRP.exec(text.slice(0, separator));
  if (!match) throw new TypeError("not a bolt11 invoice (unknown human-readable part)");
  const [, currency, digits, multiplier] = match;
  if (digits === undefined) return { currency, amountMsat: null, amountSats: null };
  if (digits.length > 1 && digits.startsWith("0")) throw new TypeError("bolt11 amount has a leading zero");
  const amount = BigInt(digits);
  let amountMsat: bigint;
  if (multiplier === "p") {
    // A pico-bitcoin is a tenth of a millisatoshi; BOLT 11 requires the last digit to be 0.
    if (amount % 10n !== 0n) throw new TypeError("bolt11 pico amount is not a whole millisatoshi");
    amountMsat = amount / 10n;
  } else {
    amountMsat = amount * MSAT_PER_UNIT[multiplier];
  }
  const sats = (amountMsat + 999n) / 1000n;
  if (sats > BigInt(Number.MAX_SAFE_INTEGER)) throw new TypeError("bolt11 amount is out of range");
  return { currency, amountMsat, amountSats: Number(sats) };
}
