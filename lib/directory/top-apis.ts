// The "top" listed APIs (llms.txt's top 20, the home page's featured APIs): the ones people
// actually call. Rule (docs/decisions.md, Directory): most requests served in the last 30 days
// (UsageCounter.servedRequests, which the gateway counts for 2xx responses only), then the newest.
// Approved external listings take part with no known usage: they rank among the unused APIs by
// age, and `usedOnly` leaves them out.
import type { Config } from "@/lib/config/index.ts";
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { loadDirectoryEntries, type DirectoryRef } from "./list-directory.ts";
import { listedListingSql, listedTenantSql } from "./listing-rule.ts";
import type { DirectoryEntry } from "./schemas.ts";

/** How far back usage counts towards "top". */
export const topWindowDays = 30;

export type TopApisOptions = {
  prisma: PrismaClient;
  config: Pick<Config, "gatewayUrlTemplate">;
  limit: number;
  /** Only APIs that served at least one request in the window (the home page's "most used"). */
  usedOnly?: boolean;
  now?: Date;
};

/** The top `limit` listed APIs as directory entries, most used first. */
export async function listTopApis({ prisma, config, limit, usedOnly = false, now = new Date() }: TopApisOptions): Promise<DirectoryEntry[]> {
  // ISO 8601 with its zone, cast to timestamptz: the same instant in any session time zone.
  const since = new Date(now.getTime() - topWindowDays * 86_400_000).toISOString();
  const listings = usedOnly
    ? Prisma.empty
    : Prisma.sql`UNION ALL SELECT 'listing' AS "kind", t."id", 0 AS "served", t."createdAt" FROM "ExternalListing" t WHERE ${listedListingSql}`;
  const rows = await prisma.$queryRaw<DirectoryRef[]>(Prisma.sql`
    SELECT d."kind", d."id" FROM (
      SELECT 'tenant' AS "kind", t."id", coalesce(usage."served", 0) AS "served", t."createdAt"
      FROM "Tenant" t
      LEFT JOIN (
        SELECT u."tenantId", sum(u."servedRequests") AS "served"
        FROM "UsageCounter" u
        WHERE u."hour" >= CAST(${since} AS timestamptz)
        GROUP BY u."tenantId"
      ) usage ON usage."tenantId" = t."id"
      WHERE ${listedTenantSql} ${usedOnly ? Prisma.sql`AND usage."served" > 0` : Prisma.empty}
      ${listings}
    ) d
    ORDER BY d."served" DESC, d."createdAt" DESC, d."id" DESC
    LIMIT ${limit}`);
  return loadDirectoryEntries({ prisma, config, refs: rows.map((r) => ({ kind: r.kind, id: r.id })), now });
}
