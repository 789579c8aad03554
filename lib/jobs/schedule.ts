// The platform's job list, wired to real dependencies.
import type { PrismaClient } from "../db/client.ts";
import type { DevLightningNode } from "../lightning/dev-node.ts";
import { walletBackendFor } from "../lightning/index.ts";
import type { Logger } from "../logging/logger.ts";
import { pollInvoiceSettlements } from "../payments/record-settlement.ts";
import type { Job } from "./worker.ts";

export function platformJobs(deps: { prisma: PrismaClient; devNode: DevLightningNode | null; log: Logger }): Job[] {
  return [
    {
      name: "invoice-settlements",
      intervalMs: 3_000,
      singleton: true,
      run: async () => {
        const recorded = await pollInvoiceSettlements({
          prisma: deps.prisma,
          walletFor: async (tenantId) => {
            const wallet = await deps.prisma.wallet.findUnique({ where: { tenantId }, select: { type: true } });
            if (wallet?.type !== "dev" || !deps.devNode) return null;
            return walletBackendFor({ type: "dev", devNode: deps.devNode });
          },
        });
        if (recorded) deps.log.info("invoice settlements recorded", { count: recorded });
      },
    },
  ];
}
