// `@l402-hub/sdk/mcp`: the parts of the stdio MCP server (the `l402-hub-mcp` bin, mcp/server.ts), to
// embed it in another transport: a gateway's OpenAPI operations as tools, the server that pays them
// through the L402 client, and the wallet from HUB_WALLET-style settings. Node 20+.
export { BUDGET_TOOL, createGatewayMcpServer, type GatewayMcpServerOptions } from "./mcp/gateway-mcp-server.ts";
export { fallbackToolName, priceInWords, toolRequest, toolsFromOpenApi, type GatewayTool, type ToolPricing } from "./mcp/openapi-tools.ts";
export { walletFromEnv } from "./mcp/wallet-from-env.ts";
