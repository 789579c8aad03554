// Releases the preimage of a paid 402 challenge to the holder of that challenge's macaroon, so a
// browser that showed the invoice as a QR code (paid from a phone wallet) can finish its call.
// The macaroon is the capability: only we can mint one (HMAC chain keyed by APP_SECRET), and the
// gateway hands it only to the client that asked. So the preimage never reaches anyone who lacks
// it, and an unpaid invoice releases nothing. See docs/decisions.md "Settlement for QR payers".
import { createHash } from "node:crypto";
import type { PrismaClient } from "../db/client.ts";
import { AppError } from "../errors/index.ts";
import { verifyL402Macaroon } from "../l402/macaroon.ts";
import type { DevLightningNode } from "../lightning/dev-node.ts";
import type { InvoiceLookup } from "../lightning/types.ts";
import type { TargetPolicy } from "../lightning/wallet-network.ts";
import type { KeyValueStore } from "../store/types.ts";
import { openWalletBackend } from "../wallets/open-wallet.ts";
import { recordInvoiceSettled } from "./record-settlement.ts";
import type { SettlementResponse } from "./settlement-schemas.ts";

/** Wallet lookups one challenge may cause per minute; try-it polls every 1-5 s. */
export const SETTLEMENT_LOOKUPS_PER_MINUTE = 60;

export type LookupChallengeSettlementOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  appSecret: string;
  devNode: DevLightningNode | null;
  /** The wallet address rules (walletTargetPolicy(config)). */
  targetPolicy: TargetPolicy;
  /** The macaroon of the 402 challenge, as the gateway sent it. */
  macaroon: string;
  now?: Date;
  lookupsPerMinute?: number;
};

/** True when `preimage` is 32 bytes of hex hashing to `paymentHash`: a wallet's word is checked, not trusted. */
function provesPayment(preimage: string | null | undefined, paymentHash: string): preimage is string {
  if (!preimage || !/^[0-9a-f]{64}$/.test(preimage)) return false;
  return createHash("sha256").update(Buffer.from(preimage, "hex")).digest("hex") === paymentHash;
}

/**
 * Where the macaroon's invoice stands, with the preimage once it is settled. 401 for a macaroon we
 * did not mint (or tampered with); 404 when its invoice is unknown to its tenant; 429 past the
 * per-challenge lookup budget; 503 when the tenant's wallet cannot be asked.
 */
export async function lookupChallengeSettlement(options: LookupChallengeSettlementOptions): Promise<SettlementResponse> {
  const { prisma, macaroon } = options;
  const now = options.now ?? new Date();
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

  const budget = await options.store.increment(`l402:settlement:${invoice.paymentHash}`, 60_000);
  if (budget.count > (options.lookupsPerMinute ?? SETTLEMENT_LOOKUPS_PER_MINUTE)) {
    throw new AppError("rate_limited", "Too many settlement checks for this invoice; poll less often", {
      retryAfterSeconds: Math.max(1, Math.ceil(budget.ttlMs / 1000)),
    });
  }

  const wallet = await prisma.wallet.findUnique({ where: { tenantId }, select: { type: true, credentialsEnc: true } });
  if (!wallet) throw new AppError("service_unavailable", "This API has no wallet connected");
  let lookup: InvoiceLookup | null;
  const backend = openWalletBackend({ appSecret: options.appSecret, wallet, devNode: options.devNode, targetPolicy: options.targetPolicy });
  try {
    lookup = await backend.lookupInvoice(invoice.paymentHash);
  } catch {
    throw new AppError("service_unavailable", "The provider's wallet did not answer; try again shortly");
  } finally {
    await backend.close?.();
  }
  if (!lookup) throw new AppError("not_found", "The provider's wallet does not know this invoice");
  if (lookup.state !== "settled") return { state: lookup.state, paymentHash: invoice.paymentHash, preimage: null };

  // Recorded as the worker would (once, with invoice.settled), so the dashboard need not wait for it.
  await recordInvoiceSettled({ prisma, paymentHash: invoice.paymentHash, settledAt: lookup.settledAt ?? now });
  const preimage = lookup.preimage?.toLowerCase();
  return { state: "settled", paymentHash: invoice.paymentHash, preimage: provesPayment(preimage, invoice.paymentHash) ? preimage : null };
}
