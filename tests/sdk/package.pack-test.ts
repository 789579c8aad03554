// What we would publish is what we test (`npm run sdk:pack-test`, a CI step): `npm pack` the SDK
// package, install the tarball into an empty folder as a stranger would, and use only what was
// installed: every exported subpath from plain Node, the declarations from a TypeScript project, and
// the MCP server started exactly as the gateway's served mcp.json says (`npx -y
// @l402-hub/sdk@<version> --gateway <url>`), driven with the MCP SDK's own client over stdio against
// a real gateway, origin and dev-wallet pay route: tools listed, a paid tool called and paid.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "@/lib/gateway/server.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";
import { noRateLimits } from "@/tests/helpers/gateway.ts";
import { startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";
import { startDevPayServer, type DevPayServer } from "./dev-pay-server.ts";
import { freePort } from "@/tests/helpers/free-port.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const sdkPackage = JSON.parse(readFileSync(path.join(root, "packages/sdk/package.json"), "utf8")) as {
  name: string;
  version: string;
  exports: Record<string, unknown>;
  bin: Record<string, string>;
};
const subpaths = Object.keys(sdkPackage.exports)
  .filter((s) => s !== "./package.json")
  .map((s) => (s === "." ? sdkPackage.name : `${sdkPackage.name}/${s.slice(2)}`));

let work: string;
let consumer: string;
let packedFiles: string[];
let ctx: TestContext;
let origin: TestOrigin;
let devNode: DevLightningNode;
let payServer: DevPayServer;
let gateway: Gateway;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "l402-sdk-pack-"));
  // `prepack` builds dist/ from the sources first.
  const packed = await run("npm", ["pack", "--workspace", sdkPackage.name, "--pack-destination", work, "--json"], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  packedFiles = info.files.map((f) => f.path).sort();
  // An empty project outside the repository: nothing resolves to the workspace or its node_modules.
  consumer = path.join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "stranger", private: true, type: "module" }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", path.join(work, info.filename)], { cwd: consumer, maxBuffer: 16 * 1024 * 1024 });

  ctx = await createTestContext();
  origin = await startTestOrigin();
  origin.route("/v1/route", (req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ route: req.url })));
  origin.route("/v1/free", (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ free: true })));
  devNode = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
  payServer = await startDevPayServer(ctx, devNode);
  const port = await freePort();
  const gatewayBase = `http://127.0.0.1:${port}`;
  gateway = createGateway({
    config: { ...ctx.config, gatewayUrlTemplate: `${gatewayBase}/gw/{slug}`, apiUrl: payServer.apiUrl, lightningDevNode: true },
    prisma: ctx.db.prisma,
    store: ctx.store,
    devNode,
    log: createLogger("silent"),
    rateLimits: noRateLimits,
  });
  await gateway.listen(port, "127.0.0.1");
  const tenant = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url, name: "Route Planner" });
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenant.tenantId, devNode.nodePubkey);
  await endpointFactory(ctx.db.prisma, tenant.tenantId, {
    path: "/v1/route",
    title: "Route",
    pricingModel: "per_request",
    priceSats: 10,
    parameters: [{ name: "from", in: "query", required: true, type: "string", description: "lat,lon" }],
  });
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/free", title: "Free" });
  base = `${gatewayBase}/gw/${tenant.slug}`;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await gateway?.close();
  await payServer?.close();
  await origin?.close();
  await ctx?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe(`the packed ${sdkPackage.name}`, () => {
  it("holds built JavaScript, declarations, its README, licence and package.json: no TypeScript sources, no tests", () => {
    expect(packedFiles).toContain("package.json");
    expect(packedFiles).toContain("README.md");
    expect(packedFiles).toContain("LICENSE");
    expect(packedFiles).toContain(sdkPackage.bin["l402-hub-mcp"].replace(/^\.\//, ""));
    const other = packedFiles.filter((f) => !/^dist\/.+(\.js|\.d\.ts)$/.test(f) && f !== "package.json" && f !== "README.md" && f !== "LICENSE");
    expect(other).toEqual([]);
    expect(packedFiles.filter((f) => /\.test\.|\.fuzz\./.test(f))).toEqual([]);
    expect(Object.keys(sdkPackage.bin)).toEqual(["l402-hub-mcp"]); // the only bin: what `npx <package>` runs
  });

  it("every exported subpath loads in plain Node from the installed package (no TypeScript loader)", async () => {
    const script = `const names = ${JSON.stringify(subpaths)}; for (const n of names) { const m = await import(n); console.log(n, Object.keys(m).length); }`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: consumer });
    const counts = Object.fromEntries(
      stdout
        .trim()
        .split("\n")
        .map((line) => line.split(" ")),
    );
    expect(Object.keys(counts).sort()).toEqual([...subpaths].sort());
    for (const name of subpaths) expect(Number(counts[name]), name).toBeGreaterThan(0);
    const resolved = await run(process.execPath, ["--input-type=module", "-e", `console.log(import.meta.resolve("${sdkPackage.name}/mcp"))`], {
      cwd: consumer,
    });
    expect(resolved.stdout.trim()).toBe(`file://${path.join(consumer, "node_modules", sdkPackage.name, "dist/mcp.js")}`);
  });

  it("its declarations type-check a stranger's TypeScript project (NodeNext, strict) and catch a misuse", async () => {
    writeFileSync(
      path.join(consumer, "use.ts"),
      [
        `import { createL402Client, devWallet, L402Error } from "${sdkPackage.name}";`,
        `import { parseChallenge } from "${sdkPackage.name}/client/l402-headers";`,
        `import { parseNwcConnectionUri } from "${sdkPackage.name}/client/wallets/nwc-uri";`,
        `import { gatewayGuard, verifyGatewayRequest } from "${sdkPackage.name}/origin";`,
        `import { verifyWebhook, webhookMiddleware, verifyNextWebhook } from "${sdkPackage.name}/webhooks";`,
        `import { toolsFromOpenApi, walletFromEnv } from "${sdkPackage.name}/mcp";`,
        `const l402 = createL402Client({ wallet: devWallet({ url: "http://127.0.0.1/pay" }), budgetSats: 10 });`,
        `const spent: number = l402.spentSats;`,
        `export const used = [spent, L402Error, parseChallenge, parseNwcConnectionUri, gatewayGuard, verifyGatewayRequest, verifyWebhook, webhookMiddleware, verifyNextWebhook, toolsFromOpenApi, walletFromEnv];`,
        `// @ts-expect-error budgetSats is a number`,
        `createL402Client({ wallet: devWallet({ url: "x" }), budgetSats: "10" });`,
      ].join("\n"),
    );
    writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2023",
          lib: ["ES2023", "DOM"],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          typeRoots: [path.join(root, "node_modules/@types")],
          types: ["node"],
        },
        files: ["use.ts"],
      }),
    );
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", consumer], { cwd: consumer }).catch((err: { stdout: string }) => err);
    expect(result.stdout).toBe("");
  });

  it("runs the MCP server exactly as the served mcp.json says, lists the tools and pays for a call", { timeout: 120_000 }, async () => {
    const res = await fetch(`${base}/.well-known/mcp.json`);
    expect(res.status).toBe(200);
    const config = (await res.json()) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
      tools: { name: string }[];
    };
    const slug = base.split("/").pop();
    const server = config.mcpServers[`l402-${slug}`];
    expect(server).toEqual({
      command: "npx",
      args: ["-y", `${sdkPackage.name}@${sdkPackage.version}`, "--gateway", base],
      env: { HUB_WALLET: "dev", HUB_DEV_WALLET_URL: payServer.payUrl, HUB_BUDGET_SATS: "1000" },
    });
    // Run from the stranger's folder, offline: npx can only use the tarball installed there.
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...server.env, npm_config_offline: "true", npm_config_update_notifier: "false" },
      cwd: consumer,
      stderr: process.env.TEST_LOG ? "inherit" : "ignore",
    });
    const client = new Client({ name: "pack-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...config.tools.map((t) => t.name), "hub_budget"].sort());
    const paid = (await client.callTool({ name: "get_v1_route", arguments: { from: "1,2" } })) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
    };
    expect(paid.isError, paid.content[0]?.text).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ status: 200, paidSats: 10, payment: "charged", spentSats: 10, remainingSats: 990 });
    expect(paid.content.map((c) => c.text).join("\n")).toContain('"route": "/v1/route?from=1%2C2"'); // the origin's paid answer
    expect(payServer.paid).toHaveLength(1);
    expect(await ctx.db.prisma.devNodeInvoice.count({ where: { settledAt: { not: null } } })).toBe(1);
    expect(origin.received.map((r) => r.url)).toEqual(["/v1/route?from=1%2C2"]);
  });
});
