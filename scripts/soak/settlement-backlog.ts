// Invoices paid at the wallet and never presented at the gateway (a client that paid, then crashed):
// only the worker's settlement pass (lib/payments/record-settlement.ts) learns of them, by asking the
// wallet. The soak asks for a backlog of challenges here, pays them all, and kills the worker holding
// the pass's lease mid-pass (scripts/soak.ts).
import { parseChallenge } from "@l402-hub/sdk/client/l402-headers";
import { clientAddress } from "./load.ts";

/**
 * Asks `url` for `count` fresh challenges, each from its own address, as that many payers would (one
 * address asking for 300 at once would meet the global anonymous limit, 300 a minute). A challenge
 * that fails is asked for again up to three times; those that still fail are left out (the caller
 * reports how many it got). Resolves with the invoices.
 */
export async function fetchChallenges(options: { url: string; count: number; concurrency?: number }): Promise<string[]> {
  const invoices: string[] = [];
  let next = 0;
  const one = async () => {
    while (next < options.count) {
      const n = next++;
      for (let attempt = 1; attempt <= 3; attempt++) {
        const res = await fetch(options.url, { headers: { "x-forwarded-for": clientAddress("10.250", n) }, signal: AbortSignal.timeout(10_000) }).catch(
          () => null,
        );
        await res?.arrayBuffer().catch(() => undefined);
        const challenge = res?.status === 402 ? parseChallenge(res.headers.get("www-authenticate") ?? "") : null;
        if (challenge) {
          invoices.push(challenge.invoice);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, one));
  return invoices;
}
