// Invoices paid at the wallet and never presented at the gateway (a client that paid, then crashed):
// only the worker's settlement pass (lib/payments/record-settlement.ts) learns of them, by asking the
// wallet. The soak makes a backlog of them and kills the worker holding the pass's lease mid-pass.
import { createHash } from "node:crypto";

/** Asks `url` for `count` fresh challenges and pays each invoice, never presenting the proof. */
export async function payWithoutPresenting(options: {
  url: string;
  count: number;
  pay: (invoice: string) => Promise<{ preimage: string }>;
  /** Challenges asked for at once. */
  concurrency?: number;
}): Promise<string[]> {
  const hashes: string[] = [];
  let next = 0;
  const one = async () => {
    while (next < options.count) {
      const n = next++;
      // Each from its own client address (believed from the balancer), as that many payers would be:
      // one address asking for 300 challenges at once is rate limited.
      const res = await fetch(options.url, { headers: { "x-forwarded-for": `10.250.${n >> 8}.${n & 255}` }, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      const invoice = /invoice="([^"]+)"/.exec(res.headers.get("www-authenticate") ?? "")?.[1];
      if (res.status !== 402 || !invoice) throw new Error(`expected a 402 challenge from ${options.url}, got ${res.status}`);
      const { preimage } = await options.pay(invoice);
      hashes.push(createHash("sha256").update(Buffer.from(preimage, "hex")).digest("hex"));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, one));
  return hashes;
}
