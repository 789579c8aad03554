// What a billing cycle measured: its served requests and its earnings (spec 8). Both are read from
// what was recorded, never estimated: served requests from BillableUsage (each gateway instance adds
// its own counts, in the statement that writes its UsageCounter rows), earnings from the settled
// invoices themselves.
import type { PrismaClient } from "@/lib/db/client.ts";

export type MeasureCycleOptions = {
  prisma: PrismaClient;
  tenantId: string;
  /** Start of the cycle, on a whole UTC hour (cycles are hour-aligned: lifecycle.ts). */
  periodStart: Date;
  /** End of the cycle (exclusive), on a whole UTC hour. */
  periodEnd: Date;
};

export type CycleMeasure = { requests: number; earningsSats: number };

/**
 * Served requests of the hours that start in [periodStart, periodEnd) and sats of the tenant's
 * invoices settled in the same period, the platform's own billing invoices excluded.
 */
export async function measureCycle({ prisma, tenantId, periodStart, periodEnd }: MeasureCycleOptions): Promise<CycleMeasure> {
  const [usage, earnings] = await Promise.all([
    prisma.billableUsage.aggregate({ where: { tenantId, hour: { gte: periodStart, lt: periodEnd } }, _sum: { servedRequests: true } }),
    prisma.invoice.aggregate({
      where: { tenantId, status: "settled", purpose: { not: "billing" }, settledAt: { gte: periodStart, lt: periodEnd } },
      _sum: { amountSats: true },
    }),
  ]);
  return { requests: usage._sum.servedRequests ?? 0, earningsSats: earnings._sum.amountSats ?? 0 };
}
