// Slugs of every listed API (hosted tenants and approved external listings) with their last
// change, for the sitemap.
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { listedListingSql, listedTenantSql } from "./listing-rule.ts";

export type ListedSlug = { slug: string; updatedAt: Date };

/** All listed slugs, oldest first; the sitemap protocol allows 50,000 URLs per file. */
export async function listDirectorySlugs({ prisma, max = 50_000 }: { prisma: PrismaClient; max?: number }): Promise<ListedSlug[]> {
  return prisma.$queryRaw<ListedSlug[]>(Prisma.sql`
    SELECT d."slug", d."updatedAt" FROM (
      SELECT t."slug", t."updatedAt", t."createdAt", t."id" FROM "Tenant" t WHERE ${listedTenantSql}
      UNION ALL
      SELECT t."slug", t."updatedAt", t."createdAt", t."id" FROM "ExternalListing" t WHERE ${listedListingSql}
    ) d
    ORDER BY d."createdAt" ASC, d."id" ASC
    LIMIT ${max}`);
}
