// /robots.txt: public pages are crawlable; the platform API and provider dashboard are not.
import type { MetadataRoute } from "next";
import { getServerContext } from "@/lib/server-context.ts";

// SITE_URL is read at request time so one build serves any deployment.
export const dynamic = "force-dynamic";

export default async function robots(): Promise<MetadataRoute.Robots> {
  const { config } = await getServerContext();
  return {
    rules: [{ userAgent: "*", allow: "/", disallow: ["/api/", "/dashboard"] }],
    sitemap: `${config.siteUrl}/sitemap.xml`,
    host: config.siteUrl,
  };
}
