// `{api_url}/directory/feed.json`: JSON Feed 1.1 of the most recently listed APIs (spec 2.4, 4.3),
// each item carrying the `_hub` extension {slug, gateway, endpointCount, endpoints}. Served as
// application/feed+json. Recency is the tenant's creation time, as `sort=recent` in the list.
import { gatewayUrlFor, type Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { describePriceRange, describePricingModels } from "@/lib/pricing/describe-price.ts";
import { endpointDisplayOrder, toEndpointEntry } from "./entry-shape.ts";
import { listedTenantWhere } from "./listing-rule.ts";

/** Items in the feed: feed readers poll, so the newest listings are what matters. */
export const feedItemCount = 50;

export const jsonFeedVersion = "https://jsonfeed.org/version/1.1";
export const jsonFeedContentType = "application/feed+json; charset=utf-8";

export type FeedConfig = Pick<Config, "gatewayUrlTemplate" | "siteUrl" | "apiUrl">;

/** The `_hub` extension of an item (spec 2.4). */
export type HubFeedExtension = {
  slug: string;
  gateway: string;
  endpointCount: number;
  endpoints: { method: string; path: string; pricingModel: string | null; priceSats: number }[];
};

export type JsonFeedItem = {
  id: string;
  url: string;
  title: string;
  content_text: string;
  summary?: string;
  date_published: string;
  date_modified: string;
  tags?: string[];
  _hub: HubFeedExtension;
};

export type JsonFeed = {
  version: string;
  title: string;
  home_page_url: string;
  feed_url: string;
  description: string;
  language: string;
  items: JsonFeedItem[];
};

/** Builds the feed from the database: the newest listed APIs first. */
export async function buildDirectoryFeed({
  prisma,
  config,
  limit = feedItemCount,
}: {
  prisma: PrismaClient;
  config: FeedConfig;
  limit?: number;
}): Promise<JsonFeed> {
  const tenants = await prisma.tenant.findMany({
    where: listedTenantWhere,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    include: { endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder] } },
  });
  return {
    version: jsonFeedVersion,
    title: "L402 Hub: newly listed APIs",
    home_page_url: `${config.siteUrl}/directory?sort=recent`,
    feed_url: `${config.apiUrl}/directory/feed.json`,
    description: "Pay-per-call HTTP APIs newly listed in the L402 Hub directory, payable over Lightning (L402).",
    language: "en",
    items: tenants.map((tenant) => {
      const endpoints = tenant.endpoints.map(toEndpointEntry);
      const url = `${config.siteUrl}/directory/${tenant.slug}`;
      const facts = `${endpoints.length} ${endpoints.length === 1 ? "endpoint" : "endpoints"}; price ${describePriceRange(endpoints)}; ${describePricingModels(endpoints).join(", ")}.`;
      return {
        id: url,
        url,
        title: tenant.name,
        content_text: [tenant.description, facts].filter(Boolean).join("\n\n"),
        ...(tenant.description ? { summary: tenant.description } : {}),
        date_published: tenant.createdAt.toISOString(),
        date_modified: tenant.updatedAt.toISOString(),
        ...(tenant.tags?.length ? { tags: tenant.tags } : {}),
        _hub: {
          slug: tenant.slug,
          gateway: gatewayUrlFor(config, tenant.slug),
          endpointCount: endpoints.length,
          endpoints: endpoints.map((e) => ({ method: e.method, path: e.path, pricingModel: e.pricingModel, priceSats: e.priceSats })),
        },
      };
    }),
  };
}
