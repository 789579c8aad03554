// One listed API in full (spec 4.3 `GET /directory/:slug`, detail view of spec 2.4).
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { endpointDisplayOrder, toDirectoryEntry, toEndpointDetail } from "./entry-shape.ts";
import { listedTenantWhere } from "./listing-rule.ts";
import { loadQuality } from "./quality.ts";
import type { DirectoryDetail } from "./schemas.ts";

export type GetDirectoryEntryOptions = {
  prisma: PrismaClient;
  config: Pick<Config, "gatewayUrlTemplate">;
  slug: string;
  /** The clock for the 7-day quality window, for tests. */
  now?: Date;
};

/**
 * The detail view of a hosted tenant, or null when no listed tenant has this slug: an unlisted,
 * suspended, wallet-less or endpoint-less tenant is indistinguishable from a missing one.
 */
export async function getDirectoryEntry({ prisma, config, slug, now }: GetDirectoryEntryOptions): Promise<DirectoryDetail | null> {
  const tenant = await prisma.tenant.findFirst({
    // Slugs are stored lowercase; a hand-typed /directory/Demo still finds the API.
    where: { slug: slug.toLowerCase(), ...listedTenantWhere },
    include: {
      endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder] },
      wallet: { select: { nodePubkey: true } },
    },
  });
  if (!tenant) return null;
  const quality = await loadQuality({ prisma, tenantIds: [tenant.id], now });
  return {
    ...toDirectoryEntry(config, tenant, quality.get(tenant.id)!),
    endpoints: tenant.endpoints.map(toEndpointDetail),
    walletPubkey: tenant.wallet?.nodePubkey ?? null,
    isExternal: false,
  };
}
