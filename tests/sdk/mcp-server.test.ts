// The stdio MCP server (packages/sdk/src/mcp/server.ts, the `l402-hub-mcp` bin of @l402-hub/sdk) driven by the MCP SDK's own client over stdio, against
// a real gateway, a real origin and the real dev-wallet pay route: tools from the gateway's OpenAPI
// document, paid calls end to end, sessions reused, streams read in a window, the budget enforced;
// and the config the gateway serves at /.well-known/mcp.json, spawned exactly as given.
import http from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "@/lib/gateway/server.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";
import { noRateLimits } from "@/tests/helpers/gateway.ts";
import { startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";
import { startDevPayServer, type DevPayServer } from "./dev-pay-server.ts";
import { freePort } from "@/tests/helpers/free-port.ts";

let ctx: TestContext;
let origin: TestOrigin;
let devNode: DevLightningNode;
let payServer: DevPayServer;
let gateway: Gateway;
let gatewayBase: string;

beforeAll(async () => {
  ctx = await createTestContext();
  origin = await startTestOrigin();
  const answer = (req: { url: string; method: string; body: string }, res: http.ServerResponse) =>
    void res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ url: req.url, method: req.method, body: req.body ? JSON.parse(req.body) : null }));
  for (const p of ["/v1/route", "/v1/isochrone/15", "/v1/free", "/v1/dear"]) origin.route(p, answer);
  origin.route("/v1/ticks", (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
    res.write("event: tick\ndata: 1\n\n");
    res.write("event: tick\ndata: 2\n\n");
    res.end("event: tick\ndata: 3\n\n");
  });
  devNode = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
  payServer = await startDevPayServer(ctx, devNode);
  const port = await freePort();
  gatewayBase = `http://127.0.0.1:${port}`;
  // The gateway's own config names its address and the API's, so its mcp.json points at these servers.
  gateway = createGateway({
    config: { ...ctx.config, gatewayUrlTemplate: `${gatewayBase}/gw/{slug}`, apiUrl: payServer.apiUrl, lightningDevNode: true },
    prisma: ctx.db.prisma,
    store: ctx.store,
    devNode,
    log: createLogger("silent"),
    rateLimits: noRateLimits,
  });
  await gateway.listen(port, "127.0.0.1");
});

afterAll(async () => {
  await gateway?.close();
  await payServer?.close();
  await origin?.close();
  await ctx?.close();
});

let slug: string;
let base: string;
const clients: Client[] = [];

beforeEach(async () => {
  await ctx.reset();
  gateway.tenants.invalidate();
  origin.received.length = 0;
  payServer.paid.length = 0;
  const tenant = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url, name: "Route Planner" });
  slug = tenant.slug;
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenant.tenantId, devNode.nodePubkey);
  const prisma = ctx.db.prisma;
  await endpointFactory(prisma, tenant.tenantId, {
    path: "/v1/route",
    title: "Route",
    description: "A route between two points.",
    pricingModel: "per_request",
    priceSats: 10,
    parameters: [
      { name: "from", in: "query", required: true, type: "string", description: "lat,lon" },
      { name: "to", in: "query", required: true, type: "string", description: "lat,lon" },
    ],
    exampleRequest: { query: { from: "57.7,11.9", to: "57.71,11.97" } },
  });
  await endpointFactory(prisma, tenant.tenantId, {
    method: "POST",
    path: "/v1/isochrone/{minutes}",
    title: "Isochrone",
    pricingModel: "token_bucket",
    priceSats: 30,
    tokenBudget: 2,
    parameters: [
      { name: "minutes", in: "path", required: true, type: "integer", description: "travel time" },
      { name: "origin", in: "body", required: true, type: "string", description: "lat,lon" },
    ],
  });
  await endpointFactory(prisma, tenant.tenantId, { path: "/v1/free", title: "Free" });
  await endpointFactory(prisma, tenant.tenantId, { path: "/v1/ticks", title: "Ticks", pricingModel: "per_request", priceSats: 4, streaming: true });
  await endpointFactory(prisma, tenant.tenantId, { path: "/v1/dear", title: "Dear", pricingModel: "per_request", priceSats: 60 });
  base = `${gatewayBase}/gw/${slug}`;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
});

/** Starts the server as an MCP client would and connects the SDK's client to it over stdio. */
async function connect(server: { command: string; args: string[]; env: Record<string, string> }): Promise<Client> {
  const transport = new StdioClientTransport({ ...server, stderr: process.env.TEST_LOG ? "inherit" : "ignore" });
  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: Record<string, any> };

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

const settledInvoices = () => ctx.db.prisma.devNodeInvoice.count({ where: { settledAt: { not: null } } });
const root = path.resolve(import.meta.dirname, "../..");

describe("MCP server over stdio", () => {
  it("lists the gateway's operations as tools, pays for calls within the budget and reports every payment", { timeout: 90_000 }, async () => {
    const client = await connect({
      command: process.execPath,
      args: [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "packages/sdk/src/mcp/server.ts"), "--gateway", base],
      env: { HUB_WALLET: "dev", HUB_DEV_WALLET_URL: payServer.payUrl, HUB_BUDGET_SATS: "100", HUB_STREAM_MAX_EVENTS: "2" },
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "get_v1_dear",
      "get_v1_free",
      "get_v1_route",
      "get_v1_ticks",
      "hub_budget",
      "post_v1_isochrone_by_minutes",
    ]);
    const route = tools.find((t) => t.name === "get_v1_route")!;
    expect(route.description).toMatch(/10 sats per call \(per_request\)/);
    expect(route.inputSchema).toMatchObject({ type: "object", required: ["from", "to"], properties: { from: { type: "string" }, to: { type: "string" } } });
    const isochrone = tools.find((t) => t.name === "post_v1_isochrone_by_minutes")!;
    expect(isochrone.inputSchema).toMatchObject({
      required: ["minutes", "body"],
      properties: { minutes: { type: "integer" }, body: { type: "object", required: ["origin"] } },
    });
    expect(isochrone.description).toMatch(/30 sats for 2 calls/);

    const paid = await callTool(client, "get_v1_route", { from: "57.7,11.9", to: "57.71,11.97" });
    expect(paid.isError).toBeFalsy();
    expect(JSON.parse(paid.content[0].text)).toMatchObject({ url: "/v1/route?from=57.7%2C11.9&to=57.71%2C11.97", method: "GET" });
    expect(paid.content[1].text).toMatch(/Paid 10 sats for this call\..*X-Hub-Payment: charged.*spent 10 of 100 sats, 90 remaining/);
    expect(paid.structuredContent).toMatchObject({ status: 200, paidSats: 10, spentSats: 10, remainingSats: 90 });

    const first = await callTool(client, "post_v1_isochrone_by_minutes", { minutes: 15, body: { origin: "57.7,11.9" } });
    expect(JSON.parse(first.content[0].text)).toMatchObject({ url: "/v1/isochrone/15", method: "POST", body: { origin: "57.7,11.9" } });
    expect(first.structuredContent).toMatchObject({ paidSats: 30, sessionBalance: "1" });
    const second = await callTool(client, "post_v1_isochrone_by_minutes", { minutes: 15, body: { origin: "57.7,11.9" } });
    expect(second.structuredContent).toMatchObject({ paidSats: 0, sessionBalance: "0", spentSats: 40 });
    expect(second.content[1].text).toMatch(/covered by a session or credit/);

    const free = await callTool(client, "get_v1_free");
    expect(free.structuredContent).toMatchObject({ status: 200, paidSats: 0 });
    expect(free.content[1].text).toMatch(/Free endpoint/);

    const ticks = await callTool(client, "get_v1_ticks");
    expect(JSON.parse(ticks.content[0].text)).toEqual([
      { type: "event", event: "tick", data: "1", id: null },
      { type: "event", event: "tick", data: "2", id: null },
    ]);
    expect(ticks.structuredContent).toMatchObject({ paidSats: 4, endReason: "max_events" });

    // 44 of 100 spent: a 60-sat call would exceed the budget and is refused before paying.
    const dear = await callTool(client, "get_v1_dear");
    expect(dear.isError).toBe(true);
    expect(dear.structuredContent).toMatchObject({ error: "budget_exceeded", paidSats: 0, spentSats: 44, remainingSats: 56 });
    expect(origin.received.some((r) => r.url === "/v1/dear")).toBe(false);

    const budget = await callTool(client, "hub_budget");
    expect(budget.structuredContent).toMatchObject({ budgetSats: 100, spentSats: 44, remainingSats: 56, walletConfigured: true });
    expect(budget.structuredContent!.payments.map((p: { amountSats: number }) => p.amountSats)).toEqual([10, 30, 4]);
    expect(payServer.paid).toHaveLength(3);
    expect(await settledInvoices()).toBe(3);

    const bad = await callTool(client, "get_v1_route", { from: "x" });
    expect(bad).toMatchObject({ isError: true });
    expect(bad.content[0].text).toMatch(/missing required argument "to"/);
  });

  // The package entry (`npx -y @l402-hub/sdk@<version>`) runs the published package: `npm run
  // sdk:pack-test` runs it exactly as given against the packed tarball (tests/sdk/package.pack-test.ts).
  it("runs the development entry of the config the gateway serves at /.well-known/mcp.json exactly as given", { timeout: 90_000 }, async () => {
    const res = await fetch(`${base}/.well-known/mcp.json`);
    expect(res.status).toBe(200);
    const config = (await res.json()) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
      tools: { name: string }[];
    };
    expect(config.mcpServers[`l402-${slug}`]).toMatchObject({
      command: "npx",
      args: ["-y", expect.stringMatching(/^@l402-hub\/sdk@\d+\.\d+\.\d+$/), "--gateway", base],
    });
    const server = config.mcpServers[`l402-${slug}-local-checkout`];
    expect(server.args.slice(-2)).toEqual(["--gateway", base]);
    expect(server.env).toMatchObject({ HUB_WALLET: "dev", HUB_DEV_WALLET_URL: payServer.payUrl, HUB_BUDGET_SATS: "1000" });

    const client = await connect(server);
    const { tools } = await client.listTools();
    expect(
      tools
        .map((t) => t.name)
        .filter((n) => n !== "hub_budget")
        .sort(),
    ).toEqual(config.tools.map((t) => t.name).sort());
    const paid = await callTool(client, "get_v1_route", { from: "1,2", to: "3,4" });
    expect(paid.structuredContent).toMatchObject({ status: 200, paidSats: 10, spentSats: 10, remainingSats: 990 });
    expect(await settledInvoices()).toBe(1);
  });

  it("starts without a wallet: free tools work, paid tools say what to configure and pay nothing", { timeout: 90_000 }, async () => {
    const client = await connect({
      command: process.execPath,
      args: [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "packages/sdk/src/mcp/server.ts"), "--gateway", base],
      env: { HUB_WALLET: "nostr+walletconnect://<your wallet connection string>" },
    });
    expect((await callTool(client, "get_v1_free")).structuredContent).toMatchObject({ status: 200 });
    const paid = await callTool(client, "get_v1_route", { from: "1,2", to: "3,4" });
    expect(paid.isError).toBe(true);
    expect(paid.content[0].text).toMatch(/no wallet is configured: set HUB_WALLET/);
    expect(await settledInvoices()).toBe(0);
  });
});
