// The public directory list (spec 4.3 `GET /directory`): listed hosted tenants and approved
// external listings in one ordered list, filtered by a full-text search (./search-query.ts) and a
// tag, sorted, paginated, shaped per spec 2.4. `relevance` orders by search rank, or
// alphabetically by name without a search; `recent` puts the newest listings first.
//
// Both kinds come out of one UNION ALL: the listing table carries the same search document, tag
// normalization and sort columns as Tenant (migration external_listing_health), so the search,
// tag and order fragments read either table aliased `t`, and pagination is exact across both
// (stricter than the spec's "may appear inconsistently across pages").
import type { Config } from "@/lib/config/index.ts";
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { endpointDisplayOrder, endpointRowSelect, listingRowSelect, toDirectoryEntry, toListingDirectoryEntry } from "./entry-shape.ts";
import { listDirectoryTags } from "./list-tags.ts";
import { listedListingSql, listedListingWhere, listedTenantSql, listedTenantWhere } from "./listing-rule.ts";
import { loadListingQuality, loadQuality } from "./quality.ts";
import type { DirectoryEntry, DirectoryList, DirectoryQuery } from "./schemas.ts";
import { parseSearch, searchCondition, searchRank, type DirectorySearch } from "./search-query.ts";

export type ListDirectoryOptions = Partial<Pick<DirectoryQuery, "search" | "tag">> &
  Pick<DirectoryQuery, "page" | "limit" | "sort"> & {
    prisma: PrismaClient;
    config: Pick<Config, "gatewayUrlTemplate">;
    /** The clock for the 7-day quality window, for tests. */
    now?: Date;
  };

/** One listed API: a hosted tenant or an approved external listing, by its row id. */
export type DirectoryRef = { kind: "tenant" | "listing"; id: string };

/** The filters of one kind's table (aliased `t`): its listing rule, the search and the tag. */
function whereClause(rule: Prisma.Sql, search: DirectorySearch | null, tag: string | undefined): Prisma.Sql {
  const parts = [rule];
  if (search) parts.push(searchCondition(search));
  // directory_tags() is the indexed, lowercased tag set (migrations directory_rollups, external_listing_health).
  if (tag) parts.push(Prisma.sql`"directory_tags"(t."tags") @> ARRAY[lower(${tag})]::text[]`);
  return Prisma.join(parts, " AND ");
}

/**
 * Both kinds as one relation `d` ("kind", "id", "sortName", "createdAt", "rank"). UNION ALL of two
 * simple selects is flattened by the planner, so an index walk per table (lower(name), createdAt)
 * is merged instead of sorting every listed API.
 */
function directoryRowsSql(search: DirectorySearch | null, tag: string | undefined): Prisma.Sql {
  const rank = search ? searchRank(search) : Prisma.sql`CAST(0 AS float8)`;
  return Prisma.sql`(
    SELECT 'tenant' AS "kind", t."id", lower(t."name") AS "sortName", t."createdAt", ${rank} AS "rank"
    FROM "Tenant" t WHERE ${whereClause(listedTenantSql, search, tag)}
    UNION ALL
    SELECT 'listing' AS "kind", t."id", lower(t."name") AS "sortName", t."createdAt", ${rank} AS "rank"
    FROM "ExternalListing" t WHERE ${whereClause(listedListingSql, search, tag)}
  ) d`;
}

function orderBy(search: DirectorySearch | null, sort: DirectoryQuery["sort"]): Prisma.Sql {
  if (sort === "recent") return Prisma.sql`d."createdAt" DESC, d."id" DESC`;
  if (!search) return Prisma.sql`d."sortName" ASC, d."id" ASC`;
  return Prisma.sql`d."rank" DESC, d."sortName" ASC, d."id" ASC`;
}

/** Lists the directory page described by the query (see the file comment for the rules). */
export async function listDirectory(options: ListDirectoryOptions): Promise<DirectoryList> {
  const { prisma, config, search, tag, page, limit, sort, now } = options;
  const parsed = parseSearch(search);
  const rows = directoryRowsSql(parsed, tag);

  const offset = (page - 1) * limit;
  const countSql = Prisma.sql`SELECT count(*)::int AS "total" FROM ${rows}`;
  let refs: DirectoryRef[];
  let total: number;
  let tagCounts: Awaited<ReturnType<typeof listDirectoryTags>>;
  if (parsed) {
    // A search evaluates its tsquery (and ranks) on every match to sort them anyway: the total
    // comes out of that same pass instead of a second scan. A page past the end has no row to
    // carry it, so only then is it counted on its own.
    const [found, tags] = await Promise.all([
      prisma.$queryRaw<{ kind: DirectoryRef["kind"]; id: string; total: number }[]>(Prisma.sql`
        SELECT d."kind", d."id", count(*) OVER ()::int AS "total" FROM ${rows}
        ORDER BY ${orderBy(parsed, sort)}
        LIMIT ${limit} OFFSET ${offset}`),
      listDirectoryTags({ prisma }),
    ]);
    refs = found.map((row) => ({ kind: row.kind, id: row.id }));
    total = found.length ? Number(found[0].total) : Number((await prisma.$queryRaw<{ total: number }[]>(countSql))[0]?.total ?? 0);
    tagCounts = tags;
  } else {
    // Without a search the order is an index walk (partial indexes on listed rows) and the count
    // an index-only scan: two cheap queries beat one that must visit every row.
    const [found, countRows, tags] = await Promise.all([
      prisma.$queryRaw<{ kind: DirectoryRef["kind"]; id: string }[]>(Prisma.sql`
        SELECT d."kind", d."id" FROM ${rows}
        ORDER BY ${orderBy(parsed, sort)}
        LIMIT ${limit} OFFSET ${offset}`),
      prisma.$queryRaw<{ total: number }[]>(countSql),
      listDirectoryTags({ prisma }),
    ]);
    refs = found.map((row) => ({ kind: row.kind, id: row.id }));
    total = Number(countRows[0]?.total ?? 0);
    tagCounts = tags;
  }
  return {
    entries: await loadDirectoryEntries({ prisma, config, refs, now }),
    tags: tagCounts.map((t) => t.tag),
    total,
    hasMore: page * limit < total,
  };
}

/** How many APIs are listed: listed tenants plus approved external listings. */
export async function countListedApis({ prisma }: { prisma: PrismaClient }): Promise<number> {
  const [tenants, listings] = await Promise.all([
    prisma.tenant.count({ where: listedTenantWhere }),
    prisma.externalListing.count({ where: listedListingWhere }),
  ]);
  return tenants + listings;
}

/**
 * Directory entries of the given tenants and listings, in the order of `refs`, with their active
 * (or declared) endpoints and quality (at most four round trips for any number, two per kind).
 * Shared by the list, the featured APIs and llms.txt.
 */
export async function loadDirectoryEntries(options: {
  prisma: PrismaClient;
  config: Pick<Config, "gatewayUrlTemplate">;
  refs: DirectoryRef[];
  now?: Date;
}): Promise<DirectoryEntry[]> {
  const { prisma, config, refs, now } = options;
  if (refs.length === 0) return [];
  const tenantIds = refs.filter((r) => r.kind === "tenant").map((r) => r.id);
  const listingIds = refs.filter((r) => r.kind === "listing").map((r) => r.id);
  const [tenants, quality, listings, listingQuality] = await Promise.all([
    tenantIds.length
      ? prisma.tenant.findMany({
          where: { id: { in: tenantIds } },
          select: {
            id: true,
            slug: true,
            name: true,
            description: true,
            tags: true,
            endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder], select: endpointRowSelect },
          },
        })
      : [],
    loadQuality({ prisma, tenantIds, now }),
    listingIds.length ? prisma.externalListing.findMany({ where: { id: { in: listingIds } }, select: { id: true, ...listingRowSelect } }) : [],
    loadListingQuality({ prisma, listingIds, now }),
  ]);
  const tenantById = new Map(tenants.map((tenant) => [tenant.id, tenant]));
  const listingById = new Map(listings.map((listing) => [listing.id, listing]));
  return refs.flatMap(({ kind, id }) => {
    if (kind === "listing") {
      const listing = listingById.get(id);
      return listing ? [toListingDirectoryEntry(listing, listingQuality.get(id)!)] : [];
    }
    const tenant = tenantById.get(id);
    return tenant ? [toDirectoryEntry(config, tenant, quality.get(id)!)] : [];
  });
}
