// Development only: writes an external listing row in a chosen state, as the review would leave
// it, so the browser tests (e2e/list-your-api.spec.ts) and a developer can see an approved
// listing's API page without running a real third-party gateway through the review. Served by
// POST /api/dev/external-listings, which answers 404 unless development features are on.
import { z } from "zod";
import type { PrismaClient } from "@/lib/db/client.ts";

export const devListingSchema = z.object({
  slug: z.string().regex(/^[a-z0-9-]{3,63}$/, "must be 3-63 lowercase letters, digits or hyphens"),
  name: z.string().min(1).max(200),
  description: z.string().max(1000).default(""),
  tags: z.array(z.string().max(64)).max(10).default([]),
  gatewayUrl: z.url({ protocol: /^https$/ }),
  contactEmail: z.email().default("operator@example.com"),
  status: z.enum(["pending", "approved", "rejected", "suspended"]).default("approved"),
  endpoints: z
    .array(
      z.object({
        path: z.string().startsWith("/"),
        method: z.string().default("GET"),
        title: z.string().default(""),
        description: z.string().default(""),
        // The directory reads an unknown model as free (lib/directory/entry-shape.ts).
        pricingModel: z.string().nullable().default(null),
        priceSats: z.number().int().nonnegative().nullable().default(null),
      }),
    )
    .max(100)
    .default([]),
});
export type DevListing = z.output<typeof devListingSchema>;

/** Inserts (or replaces, by slug) the listing. The caller checks that development features are on. */
export async function seedExternalListing(options: { prisma: PrismaClient; listing: DevListing }): Promise<{ slug: string; status: string }> {
  const { prisma, listing } = options;
  const reviewedAt = listing.status === "pending" ? null : new Date();
  const data = { ...listing, reviewedAt, reviewNotes: listing.status === "pending" ? null : "seeded for development" };
  const row = await prisma.externalListing.upsert({ where: { slug: listing.slug }, create: data, update: data, select: { slug: true, status: true } });
  return row;
}
