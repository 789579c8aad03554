// The ready-to-paste MCP client config of one API (spec 2.4 "MCP config shape"), served at
// `{api_url}/directory/:slug/mcp-config` and `{gateway_url}/.well-known/mcp.json`.
//
// The server it starts is the stdio MCP server of the consumer issue, the `l402-hub-mcp` bin of the
// `@l402-hub/sdk` package (packages/sdk): the config runs it by package name and exact version,
// `npx -y @l402-hub/sdk@<version> --gateway <gateway url>`, which works on any machine with Node.
// With development features on and the site on a loopback address, a second entry, named
// `…-local-checkout`, runs the same server from this install's own checkout with its tsx (no package
// download; works on this machine only). A public site never shows its machine's paths, even with
// DEV_FEATURES=true.
// Their environment selects the wallet: HUB_WALLET=dev pays through this install's dev Lightning
// node (HUB_DEV_WALLET_URL), any other value is a wallet connection string (NWC); HUB_BUDGET_SATS
// caps what it may spend. docs/discovery.md documents the contract.
import path from "node:path";
import sdkPackage from "@l402-hub/sdk/package.json" with { type: "json" };
import { gatewayUrlFor, isLoopbackHost, type Config } from "@/lib/config/index.ts";
import { inputSchema, operationName, type DocumentedEndpoint } from "./openapi.ts";

export type McpConfigApi = {
  slug: string;
  name: string;
  description: string;
  tags: string[];
  endpoints: DocumentedEndpoint[];
};

export type McpConfigOptions = {
  config: Pick<Config, "gatewayUrlTemplate" | "apiUrl" | "siteUrl" | "lightningDevNode" | "devFeatures">;
  api: McpConfigApi;
  /** The checkout the local-checkout entry runs from; the process's working directory (the project root). */
  installDir?: string;
  /** The Node binary of the local-checkout entry; this process's own, so it works without PATH lookups. */
  nodePath?: string;
};

/** The default spending cap written into configs: enough for a few hundred cheap calls. */
export const defaultMcpBudgetSats = 1000;

/** Placeholder shown where the user must paste their own wallet connection (no dev node). */
export const walletPlaceholder = "nostr+walletconnect://<your wallet connection string>";

/** The package whose `l402-hub-mcp` bin is the server, at the version this checkout holds. */
export const mcpPackage = `${sdkPackage.name}@${sdkPackage.version}`;

/** The stdio server's source in the checkout, which the local-checkout entry runs with tsx. */
export const mcpServerEntry = "packages/sdk/src/mcp/server.ts";

/** The server name in `mcpServers`: the API's slug, prefixed so it reads well in client UIs. */
export function mcpServerName(slug: string): string {
  return `l402-${slug}`;
}

/** The development-only entry's name: the same server run from this install's checkout. */
export function localCheckoutServerName(slug: string): string {
  return `${mcpServerName(slug)}-local-checkout`;
}

/** Builds the config object (pure apart from the default paths). */
export function buildMcpConfig({ config, api, installDir = process.cwd(), nodePath = process.execPath }: McpConfigOptions) {
  const gateway = gatewayUrlFor(config, api.slug);
  const env: Record<string, string> = config.lightningDevNode
    ? { HUB_WALLET: "dev", HUB_DEV_WALLET_URL: `${config.apiUrl}/dev/lightning/pay`, HUB_BUDGET_SATS: String(defaultMcpBudgetSats) }
    : { HUB_WALLET: walletPlaceholder, HUB_BUDGET_SATS: String(defaultMcpBudgetSats) };
  const servers: Record<string, { command: string; args: string[]; env: Record<string, string> }> = {
    [mcpServerName(api.slug)]: { command: "npx", args: ["-y", mcpPackage, "--gateway", gateway], env },
  };
  const localCheckout = servesLocalCheckout(config);
  if (localCheckout) {
    servers[localCheckoutServerName(api.slug)] = {
      command: nodePath,
      args: [path.join(installDir, "node_modules/tsx/dist/cli.mjs"), path.join(installDir, mcpServerEntry), "--gateway", gateway],
      env: { ...env },
    };
  }
  return {
    mcpServers: servers,
    tools: api.endpoints.map((endpoint) => ({
      name: operationName(endpoint),
      description: [endpoint.title || `${endpoint.method} ${endpoint.path}`, endpoint.description].filter(Boolean).join(": "),
      url: `${gateway}${endpoint.path}`,
      method: endpoint.method,
      ...(endpoint.pricingModel !== null ? { costSats: endpoint.priceSats, pricingModel: endpoint.pricingModel } : {}),
      ...(Object.keys(endpoint.exampleRequest).length ? { exampleInput: exampleInput(endpoint) } : {}),
      inputSchema: inputSchema(endpoint),
    })),
    metadata: {
      name: api.name,
      description: api.description,
      tags: api.tags,
      gateway,
      discoveryUrl: `${gateway}/.well-known/l402-gateway.json`,
      openApiUrl: `${gateway}/.well-known/openapi.json`,
      mcpPackage,
      ...(localCheckout
        ? {
            localCheckout: `${localCheckoutServerName(api.slug)} runs the same server from this development install's checkout: it works on this machine only; use ${mcpServerName(api.slug)} anywhere else`,
          }
        : {}),
    },
  };
}

export type McpConfig = ReturnType<typeof buildMcpConfig>;

/** The local checkout's entry: development features on, and a site only this machine reaches. */
function servesLocalCheckout(config: McpConfigOptions["config"]): boolean {
  return config.devFeatures && isLoopbackHost(new URL(config.siteUrl).hostname);
}

/** The example request flattened into tool arguments: query values by name, plus `body`. */
function exampleInput(endpoint: DocumentedEndpoint): Record<string, unknown> {
  const { query, body } = endpoint.exampleRequest;
  const input: Record<string, unknown> = typeof query === "object" && query !== null && !Array.isArray(query) ? { ...query } : {};
  if (body !== undefined) input.body = body;
  return input;
}
