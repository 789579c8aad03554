// The latest health probe of each endpoint of a workspace (lib/health/monitor.ts writes them every
// 5 minutes), for the dashboard's endpoint list: up or failing now, with the status and latency.
import type { PrismaClient } from "@/lib/db/client.ts";

export type LatestProbe = { ok: boolean; statusCode: number | null; latencyMs: number | null; error: string | null; checkedAt: Date };

export type LatestHealthOptions = { prisma: PrismaClient; tenantId: string; endpointIds: string[] };

/**
 * endpointId -> its newest HealthSample; endpoints never probed are absent. One indexed lookup per
 * endpoint ((endpointId, checkedAt) index): a workspace has tens of endpoints, and scanning a
 * week of samples for all of them would read thousands of rows.
 */
export async function latestHealthByEndpoint({ prisma, tenantId, endpointIds }: LatestHealthOptions): Promise<Map<string, LatestProbe>> {
  const samples = await Promise.all(
    endpointIds.map((endpointId) =>
      prisma.healthSample.findFirst({
        where: { tenantId, endpointId },
        orderBy: { checkedAt: "desc" },
        select: { endpointId: true, ok: true, statusCode: true, latencyMs: true, error: true, checkedAt: true },
      }),
    ),
  );
  const latest = new Map<string, LatestProbe>();
  for (const sample of samples) {
    if (!sample) continue;
    const { endpointId, ...probe } = sample;
    latest.set(endpointId, probe);
  }
  return latest;
}
