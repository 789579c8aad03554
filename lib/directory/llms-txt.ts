// Crawler files at the site root (spec 4.3): `/llms.txt` in the llmstxt.org format (`# Name`, a
// `> summary`, free markdown without headings, then `## Section` lists of `- [name](url): notes`)
// with how to pay, the five pricing models and the top 20 APIs; and `/llms-full.txt` with every
// listed API and every endpoint (price, parameters, example), streamed page by page so a directory
// of thousands of APIs never sits in memory at once. Approved external listings are APIs like the
// others, marked as independently operated, without the OpenAPI link only hosted gateways serve.
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { describePrice, describePriceRange } from "@/lib/pricing/describe-price.ts";
import { prettyJson } from "@/lib/format/pretty-json.ts";
import { callExample } from "./call-example.ts";
import {
  endpointDisplayOrder,
  listingEndpoints,
  listingRowSelect,
  type ListingRow,
  toDirectoryEntry,
  toEndpointDetail,
  toListingDirectoryEntry,
} from "./entry-shape.ts";
import { listedListingWhere, listedTenantWhere } from "./listing-rule.ts";
import { countListedApis } from "./list-directory.ts";
import { paymentSteps, pricingModelGuide } from "./payment-guide.ts";
import { noSamplesQuality } from "./quality.ts";
import type { DirectoryEntry } from "./schemas.ts";

/** How many APIs llms.txt links (spec 4.3: top 20). */
export const llmsTopCount = 20;

export type LlmsConfig = Pick<Config, "siteUrl" | "apiUrl" | "gatewayUrlTemplate">;

/** Link text and notes must stay on one line and must not close the markdown link early. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function linkText(text: string): string {
  return oneLine(text).replace(/[[\]]/g, "");
}

/** The shared introduction: what the platform is and how to pay, with the pricing models. */
function introduction(total: number): string[] {
  return [
    "# L402 Hub",
    "",
    "> A directory of pay-per-call HTTP APIs settled over Lightning (L402). No accounts and no API keys: a priced endpoint answers 402 with a Lightning invoice, you pay it from any wallet and repeat the call with the proof. Payments go straight to each provider's own wallet.",
    "",
    `${total} ${total === 1 ? "API is" : "APIs are"} listed. Each API has a gateway address; endpoint paths are relative to it.`,
    "",
    "How to pay an L402 endpoint, step by step:",
    "",
    ...paymentSteps.map((step, i) => `${i + 1}. ${step}`),
    "",
    "The five pricing models (the `pricingModel` of an endpoint; free endpoints have none):",
    "",
    ...pricingModelGuide.map((m) => `- \`${m.model}\` (${m.name}): ${m.summary}`),
    "",
  ];
}

/** llms.txt from the top APIs (pure). */
export function buildLlmsTxt(options: { config: LlmsConfig; top: DirectoryEntry[]; total: number }): string {
  const { config, top, total } = options;
  const lines = introduction(total);
  // Per-API routes are shown with a real slug, so the link works when followed; only hosted APIs
  // have an MCP config.
  const hostedExample = top.find((entry) => !entry.isExternal);
  lines.push("## APIs", "");
  if (top.length === 0) lines.push(`- [Directory](${config.siteUrl}/directory): no APIs are listed yet`);
  for (const entry of top) {
    const notes = [
      entry.description,
      `${describePriceRange(entry.endpoints)}; ${entry.endpointCount} ${entry.endpointCount === 1 ? "endpoint" : "endpoints"}`,
      `gateway ${entry.gatewayDomain}`,
      entry.isExternal ? externalNote : `OpenAPI ${entry.gatewayDomain}/.well-known/openapi.json`,
    ]
      .filter(Boolean)
      .map(oneLine)
      .join("; ");
    lines.push(`- [${linkText(entry.name)}](${config.siteUrl}/directory/${entry.slug}): ${notes}`);
  }
  lines.push(
    "",
    "## Directory API",
    "",
    `- [List and search](${config.apiUrl}/directory): JSON; parameters search, tag, page (1-1000), limit (max 50), sort (relevance or recent)`,
    ...(top[0] ? [`- [API details](${config.apiUrl}/directory/${top[0].slug}): JSON of one API by slug, with endpoints, prices and examples`] : []),
    ...(hostedExample
      ? [`- [MCP config](${config.apiUrl}/directory/${hostedExample.slug}/mcp-config): ready-to-paste MCP client config of one API by slug`]
      : []),
    `- [Categories](${config.apiUrl}/directory/categories): tags with the number of APIs carrying each`,
    `- [JSON Feed](${config.apiUrl}/directory/feed.json): newly listed APIs (JSON Feed 1.1)`,
    "",
    "## Docs",
    "",
    `- [How to pay and the pricing models](${config.siteUrl}/docs): curl walkthrough, sessions, refunds, webhooks and origin verification`,
    `- [Every API in full](${config.siteUrl}/llms-full.txt): every listed API with every endpoint, price, parameters and example`,
    "",
    "## Optional",
    "",
    `- [Sitemap](${config.siteUrl}/sitemap.xml): every API page`,
    "",
  );
  return lines.join("\n");
}

/** One API of llms-full.txt as markdown (pure). */
export function llmsFullSection(entry: DirectoryEntry & { endpoints: ReturnType<typeof toEndpointDetail>[] }): string {
  const lines = [`## ${oneLine(entry.name)}`, ""];
  if (entry.description) lines.push(oneLine(entry.description), "");
  lines.push(`- Slug: ${entry.slug}`, `- Gateway: ${entry.gatewayDomain}`);
  lines.push(entry.isExternal ? `- Operator: ${externalNote}` : `- OpenAPI: ${entry.gatewayDomain}/.well-known/openapi.json`);
  if (entry.tags.length) lines.push(`- Tags: ${entry.tags.join(", ")}`);
  lines.push("");
  for (const endpoint of entry.endpoints) {
    lines.push(`### ${endpoint.method} ${endpoint.path}${endpoint.title ? `: ${oneLine(endpoint.title)}` : ""}`, "");
    if (endpoint.description) lines.push(oneLine(endpoint.description), "");
    const model = endpoint.pricingModel === null ? "free" : `pricingModel ${endpoint.pricingModel}, priceSats ${endpoint.priceSats}`;
    lines.push(`Price: ${describePrice(endpoint)} (${model})`);
    if (endpoint.docsUrl) lines.push(`Docs: ${endpoint.docsUrl}`);
    if (endpoint.parameters.length) {
      lines.push("", "Parameters:");
      for (const p of endpoint.parameters) {
        lines.push(`- \`${p.name}\` (${p.in}, ${p.type}${p.required ? ", required" : ""})${p.description ? `: ${oneLine(p.description)}` : ""}`);
      }
    }
    lines.push("", "Example:", "", "```sh", callExample(entry.gatewayDomain, endpoint), "```");
    if (Object.keys(endpoint.exampleResponse).length) lines.push("", "Example response:", "", "```json", prettyJson(endpoint.exampleResponse), "```");
    lines.push("");
  }
  return lines.join("\n");
}

/** How llms.txt and llms-full.txt mark an external listing. */
export const externalNote = "external listing, an independently operated L402 gateway (not run by L402 Hub)";

/** APIs read per database round trip while streaming llms-full.txt. */
const fullPageSize = 100;

/** Streams llms-full.txt: the introduction, then every listed API by slug, one page at a time. */
export async function* streamLlmsFull({ prisma, config }: { prisma: PrismaClient; config: LlmsConfig }): AsyncGenerator<string> {
  const total = await countListedApis({ prisma });
  yield introduction(total).join("\n").replace("# L402 Hub", "# L402 Hub: every listed API") + "\n";
  let cursor: string | undefined;
  for (;;) {
    const tenants = await prisma.tenant.findMany({
      where: { ...listedTenantWhere, ...(cursor ? { slug: { gt: cursor } } : {}) },
      orderBy: { slug: "asc" },
      take: fullPageSize,
      include: { endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder] } },
    });
    if (tenants.length === 0) break;
    for (const tenant of tenants) {
      // Health numbers change every few minutes and belong to the live API, not to this file.
      const entry = { ...toDirectoryEntry(config, tenant, noSamplesQuality), endpoints: tenant.endpoints.map(toEndpointDetail) };
      yield llmsFullSection(entry) + "\n";
    }
    cursor = tenants[tenants.length - 1].slug;
  }
  // Then the external listings, the same way.
  let listingCursor: string | undefined;
  for (;;) {
    const listings: ListingRow[] = await prisma.externalListing.findMany({
      where: { ...listedListingWhere, ...(listingCursor ? { slug: { gt: listingCursor } } : {}) },
      orderBy: { slug: "asc" },
      take: fullPageSize,
      select: listingRowSelect,
    });
    if (listings.length === 0) return;
    for (const listing of listings) {
      yield llmsFullSection({ ...toListingDirectoryEntry(listing, noSamplesQuality), endpoints: listingEndpoints(listing.endpoints) }) + "\n";
    }
    listingCursor = listings[listings.length - 1].slug;
  }
}
