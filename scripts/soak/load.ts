// The soak's load: virtual users calling the balanced gateway with our own client SDK
// (`@l402-hub/sdk`), each call recorded as the client saw it (status, X-Hub-Payment, the proof or
// balance it spent) for the audit. Every user pays through the dev Lightning node.
import { createHash } from "node:crypto";
import { createL402Client, memoryCredentialStore, type L402Client, type L402CredentialStore, type L402Wallet } from "@l402-hub/sdk/client";
import { perKbCost } from "@/lib/pricing/quote.ts";
import type { CallRecord, LoadKind } from "./audit.ts";

/** The endpoints the soak's tenant sells (scripts/soak.ts creates them). */
export type SoakEndpoints = {
  /** `http://lb/gw/<slug>` */
  base: string;
  perRequestSats: number;
  meteredUnitSats: number;
  perKbUnitSats: number;
  creditPriceSats: number;
};

export type LoadOptions = {
  endpoints: SoakEndpoints;
  wallet: L402Wallet;
  /** Mints a free-try bearer token for a new user id. */
  freeTryToken: (userId: string) => Promise<string>;
  /** The platform's directory (null when the soak runs without web processes). */
  directoryUrl: string | null;
  users: number;
  /** The load stops once this returns false (the soak extends it until the last fault has recovered). */
  running: () => boolean;
  record: (call: CallRecord) => void;
  /** How long an SSE stream is held open. */
  streamHoldMs: number;
};

/** Relative weights of the kinds of load (streams are held for seconds, so fewer of them). */
const MIX: Array<[LoadKind, number]> = [
  ["per_request", 20],
  ["credit", 12],
  ["per_kb", 8],
  ["token_bucket", 10],
  ["time_pass", 8],
  ["metered", 10],
  ["free_try", 5],
  ["cached", 8],
  ["stream", 3],
  ["free", 8],
  ["directory", 6],
];

/** A soak client's own address, sent as X-Forwarded-For (the gateways believe it only from HAProxy). */
export function clientAddress(prefix: string, n: number): string {
  return `${prefix}.${(n >> 8) & 255}.${n & 255}`;
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

function pickKind(random: () => number, directory: boolean): LoadKind {
  const mix = directory ? MIX : MIX.filter(([kind]) => kind !== "directory");
  let roll = random() * mix.reduce((sum, [, w]) => sum + w, 0);
  for (const [kind, weight] of mix) {
    roll -= weight;
    if (roll < 0) return kind;
  }
  return "free";
}

/** A credential store that remembers the last session token and credit proof it was given. */
function watchedStore(): L402CredentialStore & { lastToken: string | null; lastCreditHash: string | null } {
  const inner = memoryCredentialStore();
  const store = {
    ...inner,
    lastToken: null as string | null,
    lastCreditHash: null as string | null,
    setSession(scope: string, session: Parameters<L402CredentialStore["setSession"]>[1]) {
      store.lastToken = session.token;
      inner.setSession(scope, session);
    },
    setCredit(provider: string, credit: Parameters<L402CredentialStore["setCredit"]>[1]) {
      // `L402 <macaroon>:<preimage>`: the credit row is keyed by the preimage's hash.
      const preimage = credit.authorization.split(":").pop() ?? "";
      store.lastCreditHash = sha256(Buffer.from(preimage, "hex"));
      inner.setCredit(provider, credit);
    },
  };
  return store;
}

/** Runs `users` virtual users until `until`; resolves when every call in flight has ended. */
export async function runLoad(options: LoadOptions): Promise<void> {
  const { endpoints, wallet } = options;
  let userSeq = 0;
  const user = async (n: number) => {
    let seed = n * 7919 + 1;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    // A distinct client address per user: the balancer appends its own, the gateway trusts it only from there.
    const address = clientAddress("10.77", n);
    const addressedFetch: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("x-forwarded-for", address);
      return fetch(input, { ...init, headers });
    };
    const clientWith = (store: L402CredentialStore, creditSats?: number): L402Client =>
      createL402Client({ wallet, budgetSats: 10_000_000, fetch: addressedFetch, upstreamRetries: 0, credentials: store, creditSats, maxRetryAfterMs: 3_000 });
    const sessionStores = new Map<string, ReturnType<typeof watchedStore>>();
    const sessionClients = new Map<string, L402Client>();
    const creditStore = watchedStore();
    const creditClient = clientWith(creditStore, 200);

    while (options.running()) {
      const kind = pickKind(random, options.directoryUrl !== null);
      const startedAt = Date.now();
      const record: CallRecord = { kind, startedAt, endedAt: startedAt, status: null, payment: null, complete: false };
      // A call that gets no answer still names what it may have spent: the proof it paid, or the balance it was using.
      let proofClient: L402Client | null = null;
      try {
        if (kind === "directory") {
          const res = await addressedFetch(options.directoryUrl!);
          record.status = res.status;
          await res.arrayBuffer();
          record.complete = true;
        } else if (kind === "per_request" || kind === "cached" || kind === "stream") {
          // A fresh client per call: a fresh proof, and its payment hash is this call's.
          const client = (proofClient = clientWith(memoryCredentialStore()));
          const path = kind === "per_request" ? "/v1/item" : kind === "cached" ? "/v1/cached" : "/v1/events";
          const abort = new AbortController();
          const res = await client.fetch(`${endpoints.base}${path}`, { signal: abort.signal });
          record.proofHash = client.payments.find((p) => p.purpose === "request")?.paymentHash ?? null;
          record.status = res.status;
          record.payment = res.headers.get("x-hub-payment");
          if (kind === "stream" && res.ok) {
            // Held open for a while, then left by the client (the gateway must notice and close upstream).
            const timer = setTimeout(() => abort.abort(), options.streamHoldMs);
            await res.arrayBuffer().catch(() => undefined);
            clearTimeout(timer);
            record.complete = abort.signal.aborted;
          } else {
            await res.arrayBuffer();
            record.complete = true;
          }
        } else if (kind === "credit") {
          record.charge = endpoints.creditPriceSats;
          record.ledger = creditStore.lastCreditHash ? `credit:${creditStore.lastCreditHash}` : null;
          const res = await creditClient.fetch(`${endpoints.base}/v1/item-credit`);
          record.status = res.status;
          record.payment = res.headers.get("x-hub-payment");
          record.ledger = creditStore.lastCreditHash ? `credit:${creditStore.lastCreditHash}` : null;
          await res.arrayBuffer();
          record.complete = true;
        } else if (kind === "free_try") {
          const token = await options.freeTryToken(`soak-user-${n}-${++userSeq}`);
          const res = await addressedFetch(`${endpoints.base}/v1/try`, { headers: { authorization: `Bearer ${token}` } });
          record.status = res.status;
          record.payment = res.headers.get("x-hub-payment");
          await res.arrayBuffer();
          record.complete = true;
        } else if (kind === "free") {
          const res = await addressedFetch(`${endpoints.base}/v1/free`);
          record.status = res.status;
          await res.arrayBuffer();
          record.complete = true;
        } else {
          const path = { per_kb: "/v1/kb", token_bucket: "/v1/bucket", time_pass: "/v1/pass", metered: "/v1/meter" }[kind];
          if (!sessionClients.has(kind)) {
            const store = watchedStore();
            sessionStores.set(kind, store);
            sessionClients.set(kind, clientWith(store));
          }
          const store = sessionStores.get(kind)!;
          record.ledger = store.lastToken ? `session:${sha256(store.lastToken)}` : null;
          record.charge =
            kind === "token_bucket" ? 1 : kind === "metered" ? endpoints.meteredUnitSats : kind === "per_kb" ? perKbCost(1600, endpoints.perKbUnitSats) : 0;
          const res = await sessionClients.get(kind)!.fetch(`${endpoints.base}${path}`);
          record.status = res.status;
          record.payment = res.headers.get("x-hub-payment");
          record.ledger = store.lastToken ? `session:${sha256(store.lastToken)}` : null;
          const body = Buffer.from(await res.arrayBuffer());
          record.complete = true;
          record.charge =
            kind === "token_bucket"
              ? 1
              : kind === "metered"
                ? endpoints.meteredUnitSats
                : kind === "per_kb"
                  ? perKbCost(body.length, endpoints.perKbUnitSats)
                  : 0;
        }
      } catch (err) {
        record.error = err instanceof Error ? err.message : String(err);
        if (proofClient) record.proofHash = proofClient.payments.find((p) => p.purpose === "request")?.paymentHash ?? null;
      }
      record.endedAt = Date.now();
      options.record(record);
      // A think time between a user's calls: many users, each a realistic caller.
      await new Promise((resolve) => setTimeout(resolve, 50 + random() * 200));
    }
  };
  await Promise.all(Array.from({ length: options.users }, (_, i) => user(i + 1)));
}
