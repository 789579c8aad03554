// Tags of the listed APIs with how many APIs carry each (the categories view of spec 4.3).
import type { PrismaClient } from "@/lib/db/client.ts";
import type { TagCount } from "./schemas.ts";

/**
 * Tags are compared case-insensitively everywhere in the directory, so they are counted and
 * returned lowercase: "Maps" and "maps" are one tag. Most used first, then alphabetical.
 *
 * The counts are kept by a trigger on Tenant (migration directory_rollups, over the same
 * `directory_tags()` normalization the tag filter uses), so this reads a few dozen rows instead
 * of unnesting every listed tenant's tags on each directory request.
 */
export async function listDirectoryTags({ prisma }: { prisma: PrismaClient }): Promise<TagCount[]> {
  const rows = await prisma.directoryTagCount.findMany({
    where: { count: { gt: 0 } },
    orderBy: [{ count: "desc" }, { tag: "asc" }],
  });
  return rows.map((row) => ({ tag: row.tag, count: row.count }));
}
