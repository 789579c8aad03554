// POST /api/tenants/:tenantId/billing/check: the billing page asks the platform wallet whether the
// workspace's outstanding fee invoice was paid, right after paying it (or while a QR code is on
// screen), instead of waiting up to a minute for the worker's pass. Rate limited per workspace,
// since every call may ask the platform's wallet.
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { DevLightningNode } from "@/lib/lightning/index.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { getBilling } from "./get-billing.ts";
import { openPlatformWallet } from "./platform-wallet.ts";
import { recordTenantPayments } from "./run-billing.ts";
import type { BillingCheck } from "./schemas.ts";

/** Checks one workspace may make per minute: the page polls every 3-5 s while an invoice is on screen. */
export const BILLING_CHECKS_PER_MINUTE = 30;

export type CheckBillingPaymentOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  config: Config;
  devNode: DevLightningNode | null;
  tenantId: string;
  now?: Date;
  log?: Logger;
  checksPerMinute?: number;
};

/**
 * Records a payment of the workspace's outstanding fee invoice (once, with billing.payment_received,
 * lifting a suspension at once) and answers the billing view after it. 429 past the workspace's
 * budget; 503 when no platform wallet is configured (nothing could have been invoiced).
 */
export async function checkBillingPayment(options: CheckBillingPaymentOptions): Promise<BillingCheck> {
  const { prisma, store, tenantId } = options;
  const now = options.now ?? new Date();
  const limit = options.checksPerMinute ?? BILLING_CHECKS_PER_MINUTE;
  const budget = await store.increment(`billing:check:${tenantId}`, 60_000);
  if (budget.count > limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil(budget.ttlMs / 1000));
    throw new AppError("rate_limited", `Too many payment checks for this workspace (${limit} per minute); retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }
  const outstanding = await prisma.billingCycle.count({ where: { tenantId, status: "invoiced" } });
  let recorded = { paid: 0, reactivated: 0 };
  if (outstanding > 0) {
    const wallet = openPlatformWallet({ config: options.config, devNode: options.devNode });
    if (!wallet) throw new AppError("service_unavailable", "No platform wallet is configured to check the payment with");
    try {
      recorded = await recordTenantPayments({ prisma, store, wallet, now, tenantId, log: options.log });
    } finally {
      await wallet.close?.();
    }
  }
  return { paid: recorded.paid, reactivated: recorded.reactivated > 0, billing: await getBilling({ prisma, tenantId, now }) };
}
