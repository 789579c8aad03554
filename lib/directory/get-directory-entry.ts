// One listed API in full (spec 4.3 `GET /directory/:slug`, detail view of spec 2.4): a listed
// hosted tenant, or else an approved external listing (`isExternal: true`, `walletPubkey: null`).
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { endpointDisplayOrder, listingEndpoints, listingRowSelect, toDirectoryEntry, toEndpointDetail, toListingDirectoryEntry } from "./entry-shape.ts";
import { listedListingWhere, listedTenantWhere } from "./listing-rule.ts";
import { loadListingQuality, loadQuality } from "./quality.ts";
import type { DirectoryDetail } from "./schemas.ts";

export type GetDirectoryEntryOptions = {
  prisma: PrismaClient;
  config: Pick<Config, "gatewayUrlTemplate">;
  slug: string;
  /** The clock for the 7-day quality window, for tests. */
  now?: Date;
};

/**
 * The detail view of a listed API, or null when nothing listed has this slug: an unlisted,
 * suspended, wallet-less or endpoint-less tenant, and a pending, rejected or suspended listing, are
 * indistinguishable from a missing one. A hosted tenant wins a slug both hold (submission refuses
 * a taken slug, so only a tenant created after the listing can collide).
 */
export async function getDirectoryEntry({ prisma, config, slug, now }: GetDirectoryEntryOptions): Promise<DirectoryDetail | null> {
  // Slugs are stored lowercase; a hand-typed /directory/Demo still finds the API.
  const wanted = slug.toLowerCase();
  const tenant = await prisma.tenant.findFirst({
    where: { slug: wanted, ...listedTenantWhere },
    include: {
      endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder] },
      wallet: { select: { nodePubkey: true } },
    },
  });
  if (!tenant) return getListingDetail({ prisma, slug: wanted, now });
  const quality = await loadQuality({ prisma, tenantIds: [tenant.id], now });
  return {
    ...toDirectoryEntry(config, tenant, quality.get(tenant.id)!),
    endpoints: tenant.endpoints.map(toEndpointDetail),
    walletPubkey: tenant.wallet?.nodePubkey ?? null,
  };
}

/** The detail view of an approved external listing, or null. */
async function getListingDetail({ prisma, slug, now }: { prisma: PrismaClient; slug: string; now?: Date }): Promise<DirectoryDetail | null> {
  const listing = await prisma.externalListing.findFirst({ where: { slug, ...listedListingWhere }, select: { id: true, ...listingRowSelect } });
  if (!listing) return null;
  const quality = await loadListingQuality({ prisma, listingIds: [listing.id], now });
  return {
    ...toListingDirectoryEntry(listing, quality.get(listing.id)!),
    endpoints: listingEndpoints(listing.endpoints),
    walletPubkey: null,
  };
}
