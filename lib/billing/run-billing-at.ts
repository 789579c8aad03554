// One billing pass with the platform wallet opened for it: what the operator's clock route runs.
// The worker keeps its wallet open across passes instead (lib/jobs/schedule.ts).
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { DevLightningNode } from "@/lib/lightning/index.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { openPlatformWallet } from "./platform-wallet.ts";
import { runBilling, type BillingPass } from "./run-billing.ts";

export type RunBillingAtOptions = { prisma: PrismaClient; store: KeyValueStore; config: Config; devNode: DevLightningNode | null; now: Date; log?: Logger };

/** Runs every transition due at `now` and closes the wallet it opened. */
export async function runBillingAt({ config, devNode, ...rest }: RunBillingAtOptions): Promise<BillingPass> {
  const wallet = openPlatformWallet({ config, devNode });
  try {
    return await runBilling({ ...rest, wallet });
  } finally {
    await wallet?.close?.();
  }
}
