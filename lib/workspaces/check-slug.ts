// The live slug check of the create-workspace form: the API's own format rules (slugSchema) and
// whether a workspace already holds it.
import type { PrismaClient } from "@/lib/db/client.ts";
import { LISTING_SLUG_REASON, slugHeldByListing } from "@/lib/tenants/listing-slugs.ts";
import { slugSchema } from "@/lib/tenants/schemas.ts";
import type { SlugAvailability } from "./schemas.ts";

export type CheckSlugOptions = { prisma: PrismaClient; slug: string };

/** Available, or the reason it is not (same wording as the create route's 422/409). */
export async function checkSlugAvailability({ prisma, slug }: CheckSlugOptions): Promise<SlugAvailability> {
  const format = slugSchema.safeParse(slug);
  if (!format.success) return { slug, available: false, reason: format.error.issues[0]?.message ?? "is not a valid slug" };
  const taken = await prisma.tenant.findUnique({ where: { slug }, select: { id: true } });
  if (taken) return { slug, available: false, reason: "is already taken" };
  if (await slugHeldByListing(prisma, slug)) return { slug, available: false, reason: LISTING_SLUG_REASON };
  return { slug, available: true };
}
