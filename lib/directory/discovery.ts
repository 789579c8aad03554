// Per-gateway discovery documents (spec 4.2), served by the gateway under `{gateway_url}/.well-known/`:
// l402-gateway.json (our discovery metadata, schema in docs/discovery.md), openapi.json (./openapi.ts)
// and mcp.json (./mcp-config.ts). Any other name under /.well-known/ is 404: the prefix is reserved
// for discovery and never reaches the origin. No Next or gateway imports: the gateway calls this.
import { gatewayUrlFor, type Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { endpointDisplayOrder, toEndpointDetail } from "./entry-shape.ts";
import { listedTenantWhere } from "./listing-rule.ts";
import { buildMcpConfig, mcpPackage } from "./mcp-config.ts";
import { buildOpenApiDocument, l402Pricing, type DocumentedApi } from "./openapi.ts";

/** Browsers and agents may cache discovery documents this long (seconds). */
export const discoveryMaxAgeSeconds = 60;

/** The documents served, by file name. */
export const discoveryFiles = ["l402-gateway.json", "openapi.json", "mcp.json"] as const;
export type DiscoveryFile = (typeof discoveryFiles)[number];

export type DiscoveryConfig = Pick<Config, "gatewayUrlTemplate" | "apiUrl" | "siteUrl" | "lightningDevNode" | "devFeatures">;

/** A response the gateway writes as is. */
export type DiscoveryResponse = { status: number; headers: Record<string, string>; body: string };

/** Loads what the documents describe: the tenant's public fields and its active endpoints. */
export async function loadDocumentedApi(options: { prisma: PrismaClient; config: DiscoveryConfig; tenantId: string }): Promise<DocumentedApi | null> {
  const tenant = await options.prisma.tenant.findUnique({
    where: { id: options.tenantId },
    select: {
      slug: true,
      name: true,
      description: true,
      tags: true,
      endpoints: { where: { isActive: true }, orderBy: [...endpointDisplayOrder] },
    },
  });
  if (!tenant) return null;
  return {
    slug: tenant.slug,
    name: tenant.name,
    description: tenant.description,
    tags: tenant.tags ?? [],
    gatewayUrl: gatewayUrlFor(options.config, tenant.slug),
    pageUrl: `${options.config.siteUrl}/directory/${tenant.slug}`,
    endpoints: tenant.endpoints.map((row) => ({ ...toEndpointDetail(row), streaming: row.streaming })),
  };
}

/** `l402-gateway.json`: everything an agent needs to call this gateway (docs/discovery.md). */
export function buildGatewayDiscovery(config: DiscoveryConfig, api: DocumentedApi) {
  const wellKnown = `${api.gatewayUrl}/.well-known`;
  return {
    version: "1.0",
    protocol: "L402",
    name: api.name,
    slug: api.slug,
    description: api.description,
    tags: api.tags,
    gateway: api.gatewayUrl,
    directoryUrl: api.pageUrl,
    openApiUrl: `${wellKnown}/openapi.json`,
    mcpConfigUrl: `${wellKnown}/mcp.json`,
    authentication: {
      scheme: "L402",
      header: "Authorization",
      format: "L402 <macaroon_base64>:<preimage_hex>",
      legacySchemes: ["LSAT"],
      challengeHeader: "WWW-Authenticate",
      sessionHeader: "X-Session-Token",
      creditHeader: "X-Hub-Credit",
    },
    sdks: [
      {
        name: "L402 Hub SDK (TypeScript)",
        description: "fetch client that pays 402 challenges, keeps session tokens and credit; the MCP server of mcp.json",
        docsUrl: `${config.siteUrl}/docs#sdk`,
        install: `npm install ${mcpPackage}`,
      },
      {
        name: "@getalby/lightning-tools (fetchWithL402)",
        description: "Alby's L402 fetch helper; pays this gateway's challenges unchanged",
        docsUrl: "https://github.com/getAlby/js-lightning-tools",
      },
    ],
    endpoints: api.endpoints.map((e) => ({
      method: e.method,
      path: e.path,
      url: `${api.gatewayUrl}${e.path}`,
      title: e.title,
      description: e.description,
      docsUrl: e.docsUrl,
      streaming: e.streaming,
      freeTryEnabled: e.freeTryEnabled,
      pricing: l402Pricing(e),
      parameters: e.parameters,
      exampleRequest: e.exampleRequest,
      exampleResponse: e.exampleResponse,
    })),
  };
}

function json(status: number, value: unknown, cacheable: boolean): DiscoveryResponse {
  return {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": cacheable ? `public, max-age=${discoveryMaxAgeSeconds}` : "no-store",
    },
    body: JSON.stringify(value, null, 2),
  };
}

/**
 * Serves discovery for one gateway process. Documents are built once per loaded tenant
 * configuration: `tenantKey` is the gateway's cached tenant object, which the gateway replaces
 * whenever the provider changes something, so a document is never staler than the gateway itself.
 */
export function createDiscoveryServer(options: { prisma: PrismaClient; config: DiscoveryConfig }) {
  const built = new WeakMap<object, Promise<DocumentedApi | null>>();

  return async function serveDiscovery(request: { tenantKey: object; tenantId: string; method: string; path: string }): Promise<DiscoveryResponse> {
    const file = request.path.slice("/.well-known/".length);
    if (!(discoveryFiles as readonly string[]).includes(file)) {
      return json(404, { error: { code: "not_found", message: `No discovery document named "${file}"; try ${discoveryFiles.join(", ")}` } }, false);
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      const res = json(400, { error: { code: "method_not_allowed", message: `${request.method} is not allowed here; use GET` } }, false);
      return { ...res, headers: { ...res.headers, allow: "GET, HEAD" } };
    }
    let pending = built.get(request.tenantKey);
    if (!pending) {
      pending = loadDocumentedApi({ prisma: options.prisma, config: options.config, tenantId: request.tenantId });
      built.set(request.tenantKey, pending);
      // A failed load must not stick to this tenant object.
      pending.catch(() => built.delete(request.tenantKey));
    }
    const api = await pending;
    if (!api) return json(404, { error: { code: "not_found", message: "This API no longer exists" } }, false);
    switch (file as DiscoveryFile) {
      case "l402-gateway.json":
        return json(200, buildGatewayDiscovery(options.config, api), true);
      case "openapi.json":
        return json(200, buildOpenApiDocument(api), true);
      case "mcp.json":
        return json(200, buildMcpConfig({ config: options.config, api }), true);
    }
  };
}

/** The documented API of a listed tenant by slug (the directory's MCP config route), or null. */
export async function loadListedDocumentedApi(options: { prisma: PrismaClient; config: DiscoveryConfig; slug: string }): Promise<DocumentedApi | null> {
  const tenant = await options.prisma.tenant.findFirst({ where: { slug: options.slug.toLowerCase(), ...listedTenantWhere }, select: { id: true } });
  return tenant ? loadDocumentedApi({ prisma: options.prisma, config: options.config, tenantId: tenant.id }) : null;
}
