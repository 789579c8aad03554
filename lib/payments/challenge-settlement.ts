// Releases the preimage of a paid 402 challenge to the holder of that challenge's macaroon, so a
// browser that showed the invoice as a QR code (paid from a phone wallet) can finish its call.
// The macaroon is the capability: only we can mint one (HMAC chain keyed by APP_SECRET), and the
// gateway hands it only to the client that asked. So the preimage never reaches anyone who lacks
// it, and an unpaid invoice releases nothing. See docs/decisions.md "Settlement for QR payers".
// The route is public and polled, so each caller IP has a budget per minute, each challenge one for
// wallet lookups, and the wallet is asked through the web app's live backend of its tenant (one
// connection reused across polls, not one opened per call).
import { createHash } from "node:crypto";
import { rateLimitClient } from "@/lib/client-address.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { verifyL402Macaroon } from "@/lib/l402/macaroon.ts";
import type { InvoiceLookup } from "@/lib/lightning/types.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import type { WalletBackendCache } from "@/lib/wallets/wallet-backend-cache.ts";
import { recordInvoiceSettled } from "./record-settlement.ts";
import type { SettlementResponse } from "./settlement-schemas.ts";

/** Wallet lookups one challenge may cause per minute; try-it polls every 1-5 s. */
export const SETTLEMENT_LOOKUPS_PER_MINUTE = 60;
/**
 * Calls one IP may make per minute, whatever they carry: try-it polls one invoice about 15 times a
 * minute (every 1 s, backing off to 5 s), so this leaves room for several open QR invoices (or a few
 * visitors behind one NAT) and stops a flood before any macaroon check, database read or wallet call.
 */
export const SETTLEMENT_REQUESTS_PER_MINUTE_PER_IP = 120;

export type LookupChallengeSettlementOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  appSecret: string;
  /** Live wallet backends per tenant (ServerContext.wallets), reused across polls. */
  wallets: WalletBackendCache;
  /** The macaroon of the 402 challenge, as the gateway sent it. */
  macaroon: string;
  /** The caller's address (requestClientIp), whose budget every call spends (an IPv6 caller's /64's). */
  clientIp: string;
  now?: Date;
  lookupsPerMinute?: number;
  requestsPerMinutePerIp?: number;
};

/** True when `preimage` is 32 bytes of hex hashing to `paymentHash`: a wallet's word is checked, not trusted. */
function provesPayment(preimage: string | null | undefined, paymentHash: string): preimage is string {
  if (!preimage || !/^[0-9a-f]{64}$/.test(preimage)) return false;
  return createHash("sha256").update(Buffer.from(preimage, "hex")).digest("hex") === paymentHash;
}

/** 429 with the seconds until the budget's window ends (the route sends them as Retry-After too). */
function rateLimited(message: string, ttlMs: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return new AppError("rate_limited", `${message}; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
}

/**
 * Where the macaroon's invoice stands, with the preimage once it is settled. 429 past the caller's
 * per-IP budget (checked first) or the per-challenge lookup budget; 401 for a macaroon we did not
 * mint (or tampered with); 404 when its invoice is unknown to its tenant; 503 when the tenant's
 * wallet cannot be asked.
 */
export async function lookupChallengeSettlement(options: LookupChallengeSettlementOptions): Promise<SettlementResponse> {
  const { prisma, macaroon } = options;
  const now = options.now ?? new Date();
  const perIpLimit = options.requestsPerMinutePerIp ?? SETTLEMENT_REQUESTS_PER_MINUTE_PER_IP;
  const caller = await options.store.increment(`l402:settlement:ip:${rateLimitClient(options.clientIp)}`, 60_000);
  if (caller.count > perIpLimit) throw rateLimited(`Too many settlement checks from this address (${perIpLimit} per minute)`, caller.ttlMs);

  // The chain and caveats first, the clock ourselves: an expired token is still ours but can no
  // longer pay for anything, so there is nothing to release.
  const verified = verifyL402Macaroon({ appSecret: options.appSecret, macaroon, now: new Date(0) });
  if (!verified.ok) throw new AppError("unauthorized", "This macaroon was not issued by this hub's gateway");
  const { tenantId, paymentHash, validUntil } = verified.claims;
  if (now.getTime() >= validUntil.getTime()) return { state: "expired", paymentHash, preimage: null };

  const invoice = await prisma.invoice.findFirst({
    // Scoped by the tenant the macaroon names: a token of one API never reads another's invoices.
    where: { paymentHash, tenantId },
    select: { paymentHash: true, status: true },
  });
  if (!invoice) throw new AppError("not_found", "No invoice of this API matches this macaroon");
  if (invoice.status === "expired" || invoice.status === "canceled") return { state: invoice.status, paymentHash: invoice.paymentHash, preimage: null };

  const lookupLimit = options.lookupsPerMinute ?? SETTLEMENT_LOOKUPS_PER_MINUTE;
  const budget = await options.store.increment(`l402:settlement:${invoice.paymentHash}`, 60_000);
  if (budget.count > lookupLimit) throw rateLimited(`Too many settlement checks for this invoice (${lookupLimit} per minute); poll less often`, budget.ttlMs);

  const wallet = await prisma.wallet.findUnique({ where: { tenantId }, select: { type: true, credentialsEnc: true } });
  if (!wallet) throw new AppError("service_unavailable", "This API has no wallet connected");
  let lookup: InvoiceLookup | null;
  try {
    // The tenant's live backend, kept open for the next poll (replaced when the wallet changes).
    lookup = await options.wallets.backendFor(tenantId, wallet).lookupInvoice(invoice.paymentHash);
  } catch {
    throw new AppError("service_unavailable", "The provider's wallet did not answer; try again shortly");
  }
  if (!lookup) throw new AppError("not_found", "The provider's wallet does not know this invoice");
  if (lookup.state !== "settled") return { state: lookup.state, paymentHash: invoice.paymentHash, preimage: null };

  // Recorded as the worker would (once, with invoice.settled), so the dashboard need not wait for it.
  await recordInvoiceSettled({ prisma, paymentHash: invoice.paymentHash, settledAt: lookup.settledAt ?? now });
  const preimage = lookup.preimage?.toLowerCase();
  return { state: "settled", paymentHash: invoice.paymentHash, preimage: provesPayment(preimage, invoice.paymentHash) ? preimage : null };
}
