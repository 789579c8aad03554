// Hosted APIs and external listings share one namespace: the directory's /directory/<slug> and the
// badges name either. A listing's submission refuses a workspace's slug (lib/listings); this is the
// other direction, for the workspace forms and the operator's create.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";

export const LISTING_SLUG_REASON = "is taken by a listed external API";

/** Whether an external listing (in any state: a rejected one keeps its slug, spec 4.4) holds `slug`. */
export async function slugHeldByListing(prisma: PrismaClient, slug: string): Promise<boolean> {
  return (await prisma.externalListing.findUnique({ where: { slug }, select: { id: true } })) !== null;
}

/** 409 naming the field when a listing holds the slug. */
export async function refuseListingSlug(prisma: PrismaClient, slug: string): Promise<void> {
  if (await slugHeldByListing(prisma, slug)) {
    throw new AppError("conflict", `The slug "${slug}" ${LISTING_SLUG_REASON}`, { field: "slug", fields: [{ field: "slug", message: LISTING_SLUG_REASON }] });
  }
}
