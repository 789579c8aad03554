// The "top" listed APIs (llms.txt's top 20, the home page's featured APIs): the ones people
// actually call. Rule (docs/decisions.md, Directory): most requests served in the last 30 days
// (UsageCounter.servedRequests, which the gateway counts for 2xx responses only), then the newest.
import type { Config } from "@/lib/config/index.ts";
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { loadDirectoryEntries } from "./list-directory.ts";
import { listedTenantSql } from "./listing-rule.ts";
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
  const rows = await prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
    SELECT t."id"
    FROM "Tenant" t
    LEFT JOIN (
      SELECT u."tenantId", sum(u."servedRequests") AS "served"
      FROM "UsageCounter" u
      WHERE u."hour" >= CAST(${since} AS timestamptz)
      GROUP BY u."tenantId"
    ) usage ON usage."tenantId" = t."id"
    WHERE ${listedTenantSql} ${usedOnly ? Prisma.sql`AND usage."served" > 0` : Prisma.empty}
    ORDER BY coalesce(usage."served", 0) DESC, t."createdAt" DESC, t."id" DESC
    LIMIT ${limit}`);
  return loadDirectoryEntries({ prisma, config, ids: rows.map((r) => r.id), now });
}
