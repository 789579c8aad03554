// /sitemap.xml: the home page, the directory, the docs and every listed API.
import type { MetadataRoute } from "next";
import { listDirectorySlugs } from "@/lib/directory/list-directory-slugs.ts";
import { getServerContext } from "@/lib/server-context.ts";

// Reads the database and SITE_URL at request time; `next build` needs neither.
export const dynamic = "force-dynamic";

export default async function sitemap(): Promise<MetadataRoute.Sitemap> {
  const { config, db } = await getServerContext();
  const apis = await listDirectorySlugs({ prisma: db.prisma });
  const newest = apis.reduce<Date | undefined>((max, api) => (!max || api.updatedAt > max ? api.updatedAt : max), undefined);
  return [
    { url: `${config.siteUrl}/`, lastModified: newest, changeFrequency: "daily", priority: 1 },
    { url: `${config.siteUrl}/directory`, lastModified: newest, changeFrequency: "daily", priority: 0.9 },
    { url: `${config.siteUrl}/docs`, changeFrequency: "monthly", priority: 0.8 },
    ...apis.map((api) => ({
      url: `${config.siteUrl}/directory/${api.slug}`,
      lastModified: api.updatedAt,
      changeFrequency: "weekly" as const,
      priority: 0.7,
    })),
  ];
}
