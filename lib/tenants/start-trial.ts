// The one-month free trial starts when a workspace publishes its first priced endpoint (spec 1.10).
import type { Prisma } from "@/lib/db/client.ts";

export type StartTrialOptions = {
  /** A transaction client, so the trial starts atomically with the endpoint write. */
  tx: Prisma.TransactionClient;
  tenantId: string;
  now: Date;
};

/** Sets Tenant.trialStartedAt unless already set; one conditional UPDATE, safe under concurrency. */
export async function startTrialIfUnset({ tx, tenantId, now }: StartTrialOptions): Promise<void> {
  await tx.tenant.updateMany({ where: { id: tenantId, trialStartedAt: null }, data: { trialStartedAt: now } });
}
