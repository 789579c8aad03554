// `{api_url}/directory/feed.json`: JSON Feed 1.1 of the most recently listed APIs (spec 2.4, 4.3),
// each item carrying the `_hub` extension {slug, gateway, endpointCount, endpoints}. Served as
// application/feed+json. Recency is the creation time, as `sort=recent` in the list. Approved
// external listings are items like hosted APIs, with `_hub.isExternal: true` and their own gateway.
import { gatewayUrlFor, type Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { describePriceRange, describePricingModels } from "@/lib/pricing/describe-price.ts";
import { endpointDisplayOrder, listingEndpoints, listingGatewayBase, toEndpointEntry } from "./entry-shape.ts";
import { listedListingWhere, listedTenantWhere } from "./listing-rule.ts";
import type { EndpointEntry } from "./schemas.ts";

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
  /** An external listing (a self-hosted gateway) rather than a hosted API; beyond the spec's four fields. */
  isExternal: boolean;
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

/** What an item is made of, for either kind. */
type FeedApi = {
  id: string;
  slug: string;
  name: string;
  description: string;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
  gateway: string;
  endpoints: EndpointEntry[];
  isExternal: boolean;
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
  const [tenants, listings] = await Promise.all([
    prisma.tenant.findMany({
      where: listedTenantWhere,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
      include: { endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder] } },
    }),
    prisma.externalListing.findMany({ where: listedListingWhere, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit }),
  ]);
  // The newest `limit` of both kinds: each query already holds its kind's newest `limit`.
  const apis: FeedApi[] = [
    ...tenants.map((t) => ({ ...t, gateway: gatewayUrlFor(config, t.slug), endpoints: t.endpoints.map(toEndpointEntry), isExternal: false })),
    ...listings.map((l) => ({ ...l, gateway: listingGatewayBase(l.gatewayUrl), endpoints: listingEndpoints(l.endpoints), isExternal: true })),
  ]
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, limit);
  return {
    version: jsonFeedVersion,
    title: "L402 Hub: newly listed APIs",
    home_page_url: `${config.siteUrl}/directory?sort=recent`,
    feed_url: `${config.apiUrl}/directory/feed.json`,
    description: "Pay-per-call HTTP APIs newly listed in the L402 Hub directory, payable over Lightning (L402).",
    language: "en",
    items: apis.map((api) => {
      const endpoints = api.endpoints;
      const url = `${config.siteUrl}/directory/${api.slug}`;
      const operated = api.isExternal ? " Independently operated gateway, listed by its operator." : "";
      const facts = `${endpoints.length} ${endpoints.length === 1 ? "endpoint" : "endpoints"}; price ${describePriceRange(endpoints)}; ${describePricingModels(endpoints).join(", ")}.${operated}`;
      return {
        id: url,
        url,
        title: api.name,
        content_text: [api.description, facts].filter(Boolean).join("\n\n"),
        ...(api.description ? { summary: api.description } : {}),
        date_published: api.createdAt.toISOString(),
        date_modified: api.updatedAt.toISOString(),
        ...(api.tags?.length ? { tags: api.tags } : {}),
        _hub: {
          slug: api.slug,
          gateway: api.gateway,
          endpointCount: endpoints.length,
          endpoints: endpoints.map((e) => ({ method: e.method, path: e.path, pricingModel: e.pricingModel, priceSats: e.priceSats })),
          isExternal: api.isExternal,
        },
      };
    }),
  };
}
