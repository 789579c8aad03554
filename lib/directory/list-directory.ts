// The public directory list (spec 4.3 `GET /directory`): listed hosted tenants, filtered by a
// full-text search (./search-query.ts) and a tag, sorted, paginated, shaped per spec 2.4.
// `relevance` orders by search rank, or alphabetically by name without a search; `recent` puts
// the newest listings first.
import type { Config } from "@/lib/config/index.ts";
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { endpointDisplayOrder, endpointRowSelect, toDirectoryEntry } from "./entry-shape.ts";
import { listDirectoryTags } from "./list-tags.ts";
import { listedTenantSql } from "./listing-rule.ts";
import { loadQuality } from "./quality.ts";
import type { DirectoryEntry, DirectoryList, DirectoryQuery } from "./schemas.ts";
import { parseSearch, searchCondition, searchRank, type DirectorySearch } from "./search-query.ts";

export type ListDirectoryOptions = Partial<Pick<DirectoryQuery, "search" | "tag">> &
  Pick<DirectoryQuery, "page" | "limit" | "sort"> & {
    prisma: PrismaClient;
    config: Pick<Config, "gatewayUrlTemplate">;
    /** The clock for the 7-day quality window, for tests. */
    now?: Date;
  };

function whereClause(search: DirectorySearch | null, tag: string | undefined): Prisma.Sql {
  const parts = [listedTenantSql];
  if (search) parts.push(searchCondition(search));
  // directory_tags() is the indexed, lowercased tag set (migration directory_rollups).
  if (tag) parts.push(Prisma.sql`"directory_tags"(t."tags") @> ARRAY[lower(${tag})]::text[]`);
  return Prisma.join(parts, " AND ");
}

function orderBy(search: DirectorySearch | null, sort: DirectoryQuery["sort"]): Prisma.Sql {
  if (sort === "recent") return Prisma.sql`t."createdAt" DESC, t."id" DESC`;
  if (!search) return Prisma.sql`lower(t."name") ASC, t."id" ASC`;
  return Prisma.sql`${searchRank(search)} DESC, lower(t."name") ASC, t."id" ASC`;
}

/** Lists the directory page described by the query (see the file comment for the rules). */
export async function listDirectory(options: ListDirectoryOptions): Promise<DirectoryList> {
  const { prisma, config, search, tag, page, limit, sort, now } = options;
  const parsed = parseSearch(search);
  const where = whereClause(parsed, tag);

  const offset = (page - 1) * limit;
  const countSql = Prisma.sql`SELECT count(*)::int AS "total" FROM "Tenant" t WHERE ${where}`;
  let ids: string[];
  let total: number;
  let tagCounts: Awaited<ReturnType<typeof listDirectoryTags>>;
  if (parsed) {
    // A search evaluates its tsquery (and ranks) on every match to sort them anyway: the total
    // comes out of that same pass instead of a second scan. A page past the end has no row to
    // carry it, so only then is it counted on its own.
    const [rows, tags] = await Promise.all([
      prisma.$queryRaw<{ id: string; total: number }[]>(Prisma.sql`
        SELECT t."id", count(*) OVER ()::int AS "total" FROM "Tenant" t
        WHERE ${where}
        ORDER BY ${orderBy(parsed, sort)}
        LIMIT ${limit} OFFSET ${offset}`),
      listDirectoryTags({ prisma }),
    ]);
    ids = rows.map((row) => row.id);
    total = rows.length ? Number(rows[0].total) : Number((await prisma.$queryRaw<{ total: number }[]>(countSql))[0]?.total ?? 0);
    tagCounts = tags;
  } else {
    // Without a search the order is an index walk (partial indexes on listed tenants) and the count
    // an index-only scan: two cheap queries beat one that must visit every row.
    const [idRows, countRows, tags] = await Promise.all([
      prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
        SELECT t."id" FROM "Tenant" t
        WHERE ${where}
        ORDER BY ${orderBy(parsed, sort)}
        LIMIT ${limit} OFFSET ${offset}`),
      prisma.$queryRaw<{ total: number }[]>(countSql),
      listDirectoryTags({ prisma }),
    ]);
    ids = idRows.map((row) => row.id);
    total = Number(countRows[0]?.total ?? 0);
    tagCounts = tags;
  }
  return {
    entries: await loadDirectoryEntries({ prisma, config, ids, now }),
    tags: tagCounts.map((t) => t.tag),
    total,
    hasMore: page * limit < total,
  };
}

/**
 * Directory entries of the given tenants, in the order of `ids`, with their active endpoints and
 * quality (two round trips for any number). Shared by the list, the featured APIs and llms.txt.
 */
export async function loadDirectoryEntries(options: {
  prisma: PrismaClient;
  config: Pick<Config, "gatewayUrlTemplate">;
  ids: string[];
  now?: Date;
}): Promise<DirectoryEntry[]> {
  const { prisma, config, ids, now } = options;
  if (ids.length === 0) return [];
  const [tenants, quality] = await Promise.all([
    prisma.tenant.findMany({
      where: { id: { in: ids } },
      select: {
        id: true,
        slug: true,
        name: true,
        description: true,
        tags: true,
        endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder], select: endpointRowSelect },
      },
    }),
    loadQuality({ prisma, tenantIds: ids, now }),
  ]);
  const byId = new Map(tenants.map((tenant) => [tenant.id, tenant]));
  return ids.flatMap((id) => {
    const tenant = byId.get(id);
    return tenant ? [toDirectoryEntry(config, tenant, quality.get(id)!)] : [];
  });
}
