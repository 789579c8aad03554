#!/usr/bin/env node
// The stdio MCP server that the served MCP configs start (the platform's lib/directory/mcp-config.ts),
// installed as the package's `l402-hub-mcp` bin:
//   npx -y @l402-hub/sdk@<version> --gateway <gateway url>
// Environment: HUB_WALLET (dev | nostr+walletconnect://… | lnbits+https://… | lnd+https://… |
// phoenixd+http://…), HUB_DEV_WALLET_URL (with dev), HUB_BUDGET_SATS (default 1000), optional
// HUB_MAX_PER_REQUEST_SATS, HUB_CREDIT_SATS, HUB_STREAM_MAX_EVENTS (50), HUB_STREAM_MAX_SECONDS (20).
// It reads `<gateway>/.well-known/openapi.json` once at start. stdout carries the protocol only:
// every diagnostic goes to stderr.
import { readFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createL402Client, type L402Wallet } from "../client.ts";
import { createGatewayMcpServer } from "./gateway-mcp-server.ts";
import { toolsFromOpenApi } from "./openapi-tools.ts";
import { walletFromEnv } from "./wallet-from-env.ts";

const DEFAULT_BUDGET_SATS = 1000;

function log(message: string): void {
  process.stderr.write(`[l402-mcp] ${message}\n`);
}

/** `--gateway <url>` or `--gateway=<url>`. */
function gatewayArgument(argv: string[]): string {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--gateway" && argv[i + 1]) return argv[i + 1];
    if (argv[i].startsWith("--gateway=")) return argv[i].slice("--gateway=".length);
  }
  throw new Error("usage: l402-hub-mcp --gateway <gateway url> (e.g. http://localhost:8402/gw/demo)");
}

/** A positive integer environment variable, or the default; a bad value stops the server with its name. */
function positiveInteger(env: Record<string, string | undefined>, name: string, fallback: number | undefined): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) throw new Error(`${name} must be a positive whole number (got "${raw}")`);
  return Number(raw);
}

async function main(): Promise<void> {
  const env = process.env;
  const gateway = new URL(gatewayArgument(process.argv.slice(2))).toString().replace(/\/+$/, "");
  const budgetSats = positiveInteger(env, "HUB_BUDGET_SATS", DEFAULT_BUDGET_SATS)!;
  const configured = walletFromEnv(env);
  const wallet: L402Wallet = configured ?? {
    name: "none",
    pay: async () => {
      throw new Error("no wallet configured: set HUB_WALLET");
    },
  };

  const openApiUrl = `${gateway}/.well-known/openapi.json`;
  const res = await fetch(openApiUrl, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(15_000) });
  if (!res.ok) throw new Error(`GET ${openApiUrl} answered ${res.status}`);
  const document = (await res.json()) as { info?: { title?: string } };
  const tools = toolsFromOpenApi(document);

  const client = createL402Client({
    wallet,
    budgetSats,
    maxPerRequestSats: positiveInteger(env, "HUB_MAX_PER_REQUEST_SATS", undefined),
    creditSats: positiveInteger(env, "HUB_CREDIT_SATS", undefined),
    onEvent: (event) => {
      if (event.type === "paid") log(`paid ${event.payment.amountSats} sats (${event.payment.purpose}) for ${event.payment.url}`);
      if (event.type === "refused") log(`refused: ${event.error.message}`);
    },
  });
  const server = createGatewayMcpServer({
    gateway,
    tools,
    client,
    walletConfigured: configured !== null,
    budgetSats,
    stream: {
      maxEvents: positiveInteger(env, "HUB_STREAM_MAX_EVENTS", 50)!,
      maxMs: positiveInteger(env, "HUB_STREAM_MAX_SECONDS", 20)! * 1000,
    },
    name: `l402-${document.info?.title ?? "gateway"}`.slice(0, 100),
    version: packageVersion(),
    log,
  });
  const transport = new StdioServerTransport();
  const shutdown = async () => {
    await server.close().catch(() => undefined);
    await wallet.close?.();
    process.exit(0);
  };
  transport.onclose = () => void shutdown();
  process.stdin.on("end", () => void shutdown());
  await server.connect(transport);
  log(`serving ${tools.length} tool(s) of ${gateway} with ${configured ? `the ${wallet.name} wallet` : "no wallet"}, budget ${budgetSats} sats`);
}

main().catch((err: unknown) => {
  log(`cannot start: ${(err as Error).message}`);
  process.exit(1);
});

/** The package's own version (package.json sits two folders up from src/mcp and dist/mcp alike). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
