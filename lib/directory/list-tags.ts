// Tags of the listed APIs with how many APIs carry each (the categories view of spec 4.3).
import { Prisma, type PrismaClient } from "../db/client.ts";
import { listedTenantSql } from "./listing-rule.ts";
import type { TagCount } from "./schemas.ts";

/**
 * Tags are compared case-insensitively everywhere in the directory, so they are counted and
 * returned lowercase: "Maps" and "maps" are one tag. Most used first, then alphabetical.
 */
export async function listDirectoryTags({ prisma }: { prisma: PrismaClient }): Promise<TagCount[]> {
  const rows = await prisma.$queryRaw<{ tag: string; count: number }[]>(Prisma.sql`
    SELECT lower(tg) AS "tag", count(DISTINCT t."id")::int AS "count"
    FROM "Tenant" t CROSS JOIN LATERAL unnest(COALESCE(t."tags", ARRAY[]::text[])) AS tg
    WHERE ${listedTenantSql} AND btrim(tg) <> ''
    GROUP BY lower(tg)
    ORDER BY "count" DESC, "tag" ASC`);
  return rows.map((row) => ({ tag: row.tag, count: Number(row.count) }));
}
