// The MCP server of one gateway: its OpenAPI operations as tools, paid through the L402 client
// within the budget, plus `hub_budget` (spent, remaining, payments). Each tool result carries the
// response and a line saying what the call paid. Transport-agnostic (server.ts runs it on stdio).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { L402Error, type L402Client } from "../client.ts";
import { toolRequest, type GatewayTool } from "./openapi-tools.ts";

/** The name of the budget tool (operation names always start with an HTTP method, so no clash). */
export const BUDGET_TOOL = "hub_budget";

/** Longest response text returned to the model. */
const MAX_RESULT_CHARS = 100_000;

export type GatewayMcpServerOptions = {
  /** The gateway base address (`{gateway_url}`). */
  gateway: string;
  tools: GatewayTool[];
  /** The paying client (its wallet refuses every payment when none is configured). */
  client: L402Client;
  /** False when HUB_WALLET is unset: paid tools then explain what to set instead of trying. */
  walletConfigured: boolean;
  budgetSats: number;
  /** Default stream window. */
  stream: { maxEvents: number; maxMs: number };
  /** Server name and version announced to clients. */
  name: string;
  version: string;
  /** Diagnostics (stderr: stdout belongs to the protocol). */
  log: (message: string) => void;
};

function text(value: string): { type: "text"; text: string } {
  return { type: "text", text: value.length > MAX_RESULT_CHARS ? `${value.slice(0, MAX_RESULT_CHARS)}\n… (truncated)` : value };
}

/** A response body for the model: pretty JSON when it parses, else the text. */
function readableBody(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** Builds the MCP server (not yet connected to a transport). */
export function createGatewayMcpServer(options: GatewayMcpServerOptions): Server {
  const { client, tools } = options;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const server = new Server({ name: options.name, version: options.version }, { capabilities: { tools: {} } });

  const budgetLine = () => `Budget: spent ${client.spentSats} of ${options.budgetSats} sats, ${client.remainingSats} remaining.`;

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ...tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
      {
        name: BUDGET_TOOL,
        description: "Shows this server's Lightning budget: sats spent, sats remaining, and every payment made so far. Free.",
        inputSchema: { type: "object" as const, properties: {} },
      },
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (name === BUDGET_TOOL) {
      const state = {
        gateway: options.gateway,
        budgetSats: options.budgetSats,
        spentSats: client.spentSats,
        remainingSats: client.remainingSats,
        walletConfigured: options.walletConfigured,
        payments: client.payments,
      };
      return { content: [text(JSON.stringify(state, null, 2))], structuredContent: state };
    }
    const tool = byName.get(name);
    if (!tool) return { content: [text(`Unknown tool ${name}`)], isError: true };
    if (tool.pricing && !options.walletConfigured) {
      return {
        content: [text(`${name} is paid (${tool.pricing.priceSats} sats) but no wallet is configured: set HUB_WALLET (see the @l402-hub/sdk README).`)],
        isError: true,
      };
    }
    let call: ReturnType<typeof toolRequest>;
    try {
      call = toolRequest(tool, options.gateway, args);
    } catch (err) {
      return { content: [text(`Invalid arguments for ${name}: ${(err as Error).message}`)], isError: true };
    }
    const gatewayUrl = new URL(options.gateway);
    const l402 = {
      pricingModel: tool.pricing?.model ?? null,
      // One session covers the endpoint template, whatever its path parameters.
      sessionScope: `${tool.method} ${gatewayUrl.origin}${gatewayUrl.pathname.replace(/\/+$/, "")}${tool.path}`,
    };
    try {
      if (tool.streaming) {
        const maxEvents = typeof args.maxEvents === "number" && args.maxEvents >= 1 ? Math.min(Math.floor(args.maxEvents), 1000) : options.stream.maxEvents;
        const maxMs = typeof args.maxSeconds === "number" && args.maxSeconds > 0 ? Math.min(args.maxSeconds * 1000, 300_000) : options.stream.maxMs;
        const stream = await client.stream(call.url, { ...call.init, l402, maxEvents, maxMs });
        const events = await stream.collect();
        const paid = `Paid ${stream.paidSats} sats for this stream${stream.paidSats === 0 && tool.pricing ? " (covered by a session)" : ""}. Read ${events.length} event(s); stopped: ${stream.endReason}. ${budgetLine()}`;
        return {
          content: [text(JSON.stringify(events, null, 2)), text(paid)],
          structuredContent: {
            status: stream.response.status,
            paidSats: stream.paidSats,
            endReason: stream.endReason,
            events,
            spentSats: client.spentSats,
            remainingSats: client.remainingSats,
          },
        };
      }
      const { response, paidSats } = await client.request(call.url, { ...call.init, l402 });
      const body = await response.text();
      const outcome = response.headers.get("x-hub-payment");
      const balance = response.headers.get("x-session-balance");
      const paid = [
        `HTTP ${response.status}.`,
        tool.pricing ? `Paid ${paidSats} sats for this call${paidSats === 0 ? " (covered by a session or credit)" : ""}.` : "Free endpoint.",
        outcome ? `X-Hub-Payment: ${outcome}${response.headers.get("x-hub-payment-code") ? ` (${response.headers.get("x-hub-payment-code")})` : ""}.` : "",
        balance !== null ? `Session balance: ${balance}.` : "",
        budgetLine(),
      ]
        .filter(Boolean)
        .join(" ");
      return {
        content: [text(readableBody(body)), text(paid)],
        structuredContent: {
          status: response.status,
          paidSats,
          payment: outcome,
          sessionBalance: balance,
          spentSats: client.spentSats,
          remainingSats: client.remainingSats,
        },
        ...(response.status >= 400 ? { isError: true } : {}),
      };
    } catch (err) {
      if (err instanceof L402Error) {
        options.log(`${name}: ${err.code}: ${err.message}`);
        return {
          content: [text(`Not done: ${err.message} (${err.code}). Paid ${err.paidSats} sats for this call. ${budgetLine()}`)],
          structuredContent: {
            error: err.code,
            paidSats: err.paidSats,
            details: err.details,
            spentSats: client.spentSats,
            remainingSats: client.remainingSats,
          },
          isError: true,
        };
      }
      options.log(`${name}: ${(err as Error).message}`);
      return { content: [text(`${name} failed: ${(err as Error).message}`)], isError: true };
    }
  });
  return server;
}
