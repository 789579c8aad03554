// Slugs of every listed API with their last change, for the sitemap (and later the JSON feed).
import type { PrismaClient } from "@/lib/db/client.ts";
import { listedTenantWhere } from "./listing-rule.ts";

export type ListedSlug = { slug: string; updatedAt: Date };

/** All listed slugs, oldest first; the sitemap protocol allows 50,000 URLs per file. */
export async function listDirectorySlugs({ prisma, max = 50_000 }: { prisma: PrismaClient; max?: number }): Promise<ListedSlug[]> {
  return prisma.tenant.findMany({
    where: listedTenantWhere,
    select: { slug: true, updatedAt: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: max,
  });
}
