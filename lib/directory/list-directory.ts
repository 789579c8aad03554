// The public directory list (spec 4.3 `GET /directory`): listed hosted tenants, filtered by a
// simple word search and a tag, sorted, paginated, shaped per spec 2.4.
//
// Search for now: every word must occur (ILIKE, case-insensitive) in the name, slug, description,
// a tag, or an active endpoint's path. Relevance ranks by where the words matched; without a
// search it is alphabetical by name. A later issue replaces this with full-text ranking: only
// searchFilter and orderBy below need to change.
import type { Config } from "../config/index.ts";
import { Prisma, type PrismaClient } from "../db/client.ts";
import { endpointDisplayOrder, toDirectoryEntry } from "./entry-shape.ts";
import { listDirectoryTags } from "./list-tags.ts";
import { listedTenantSql } from "./listing-rule.ts";
import { loadQuality } from "./quality.ts";
import type { DirectoryList, DirectoryQuery } from "./schemas.ts";

export type ListDirectoryOptions = Partial<Pick<DirectoryQuery, "search" | "tag">> &
  Pick<DirectoryQuery, "page" | "limit" | "sort"> & {
    prisma: PrismaClient;
    config: Pick<Config, "gatewayUrlTemplate">;
    /** The clock for the 7-day quality window, for tests. */
    now?: Date;
  };

/** At most this many words of a search are used; the rest add cost, not precision. */
const maxSearchWords = 8;

/** Splits a search into words, each escaped for use inside an ILIKE pattern. */
export function searchPatterns(search: string | undefined): string[] {
  if (!search) return [];
  return search
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, maxSearchWords)
    .map((word) => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
}

function wordMatches(pattern: string): Prisma.Sql {
  return Prisma.sql`(t."name" ILIKE ${pattern}
    OR t."slug" ILIKE ${pattern}
    OR t."description" ILIKE ${pattern}
    OR EXISTS (SELECT 1 FROM unnest(t."tags") AS tg WHERE tg ILIKE ${pattern})
    OR EXISTS (SELECT 1 FROM "Endpoint" se WHERE se."tenantId" = t."id" AND se."isActive" = true AND se."path" ILIKE ${pattern}))`;
}

/** A word in the name or slug outweighs one in a tag, which outweighs description and paths. */
function wordScore(pattern: string): Prisma.Sql {
  return Prisma.sql`(CASE WHEN t."name" ILIKE ${pattern} OR t."slug" ILIKE ${pattern} THEN 8 ELSE 0 END
    + CASE WHEN EXISTS (SELECT 1 FROM unnest(t."tags") AS tg WHERE tg ILIKE ${pattern}) THEN 4 ELSE 0 END
    + CASE WHEN t."description" ILIKE ${pattern} THEN 2 ELSE 0 END
    + CASE WHEN EXISTS (SELECT 1 FROM "Endpoint" se WHERE se."tenantId" = t."id" AND se."isActive" = true AND se."path" ILIKE ${pattern}) THEN 1 ELSE 0 END)`;
}

function whereClause(patterns: string[], tag: string | undefined): Prisma.Sql {
  const parts = [listedTenantSql, ...patterns.map(wordMatches)];
  if (tag) parts.push(Prisma.sql`EXISTS (SELECT 1 FROM unnest(t."tags") AS tg WHERE lower(tg) = lower(${tag}))`);
  return Prisma.join(parts, " AND ");
}

function orderBy(patterns: string[], sort: DirectoryQuery["sort"]): Prisma.Sql {
  if (sort === "recent") return Prisma.sql`t."createdAt" DESC, t."id" DESC`;
  if (patterns.length === 0) return Prisma.sql`lower(t."name") ASC, t."id" ASC`;
  return Prisma.sql`(${Prisma.join(patterns.map(wordScore), " + ")}) DESC, lower(t."name") ASC, t."id" ASC`;
}

/** Lists the directory page described by the query (see the file comment for the rules). */
export async function listDirectory(options: ListDirectoryOptions): Promise<DirectoryList> {
  const { prisma, config, search, tag, page, limit, sort, now } = options;
  const patterns = searchPatterns(search);
  const where = whereClause(patterns, tag);

  const [idRows, countRows, tagCounts] = await Promise.all([
    prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
      SELECT t."id" FROM "Tenant" t
      WHERE ${where}
      ORDER BY ${orderBy(patterns, sort)}
      LIMIT ${limit} OFFSET ${(page - 1) * limit}`),
    prisma.$queryRaw<{ total: number }[]>(Prisma.sql`SELECT count(*)::int AS "total" FROM "Tenant" t WHERE ${where}`),
    listDirectoryTags({ prisma }),
  ]);
  const ids = idRows.map((row) => row.id);
  const total = Number(countRows[0]?.total ?? 0);

  const [tenants, quality] = await Promise.all([
    ids.length === 0
      ? Promise.resolve([])
      : prisma.tenant.findMany({
          where: { id: { in: ids } },
          include: { endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder] } },
        }),
    loadQuality({ prisma, tenantIds: ids, now }),
  ]);
  const byId = new Map(tenants.map((tenant) => [tenant.id, tenant]));

  return {
    entries: ids.flatMap((id) => {
      const tenant = byId.get(id);
      return tenant ? [toDirectoryEntry(config, tenant, quality.get(id)!)] : [];
    }),
    tags: tagCounts.map((t) => t.tag),
    total,
    hasMore: page * limit < total,
  };
}
