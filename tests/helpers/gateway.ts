// Shared pieces of the gateway integration tests: real gateway instances on one database, an
// injectable clock, a file's lifecycle (useGatewayTest), plain HTTP calls, and paying a 402 with
// the dev node.
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { request } from "undici";
import { createGateway, type Gateway, type GatewayOptions } from "@/lib/gateway/server.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { createTestContext, type TestContext, type TestDatabaseOptions } from "./context.ts";
import { startTestOrigin, type TestOrigin } from "./origin.ts";

/** A clock the tests move forward: real time plus an offset, shared by every gateway of a file. */
export type TestClock = { now: () => number; advance: (ms: number) => void; reset: () => void };

/** A fresh clock at real time; advance() moves every gateway that was given it. */
export function testClock(): TestClock {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms), reset: () => void (offset = 0) };
}

/** Rate limits out of the way: these files test payments (tests/gateway/rate-limits.test.ts tests limits). */
export const noRateLimits = {
  endpointPerMinute: 1e6,
  globalPerMinute: 1e6,
  credentialedPerMinute: 1e6,
  forgeriesBeforeDemotion: 1e6,
  demotionMs: 1,
  challengesPerMinute: 1e6,
  tenantLookupsPerMinute: 1e6,
};

/** Starts `count` gateway instances on the context's database and store (what a load balancer spreads over). */
export async function startGateways(
  ctx: TestContext,
  devNode: DevLightningNode | null,
  count: number,
  options: Partial<GatewayOptions> = {},
): Promise<{ gateways: Gateway[]; urls: string[]; close: () => Promise<void> }> {
  const gateways: Gateway[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const gateway = createGateway({
      config: ctx.config,
      prisma: ctx.db.prisma,
      pg: ctx.db.pg,
      store: ctx.store,
      devNode,
      log: createLogger(process.env.TEST_LOG ? "debug" : "silent"),
      rateLimits: noRateLimits,
      ...options,
    });
    urls.push(`http://127.0.0.1:${await gateway.listen(0, "127.0.0.1")}`);
    gateways.push(gateway);
  }
  return { gateways, urls, close: async () => void (await Promise.all(gateways.map((g) => g.close()))) };
}

/** What a gateway test file sets up once: see useGatewayTest. */
export type GatewayTestOptions = {
  /**
   * Configuration overrides (environment variable names), as createTestContext takes them; a
   * function is read when beforeAll runs (after the file's earlier beforeAll, e.g. a server's URL).
   */
  env?: Record<string, string | undefined> | (() => Record<string, string | undefined>);
  database?: TestDatabaseOptions;
  /** Registers the file's origin routes, once, before any test. */
  routes?: (origin: TestOrigin) => void;
  /** Gateway instances on the one database and store (default 1; 0 starts none). */
  gateways?: number;
  /**
   * What every gateway is given beyond startGateways' defaults (rate limits off: noRateLimits; `rateLimits: {}`
   * for the real defaults); a function is given the context (e.g. to wrap its Prisma client).
   */
  gatewayOptions?: Partial<GatewayOptions> | ((ctx: TestContext) => Partial<GatewayOptions>);
  /** False: the gateways have no dev node (no wallet to issue invoices through). */
  devNode?: boolean;
  /** Given to the gateways and reset to real time before each test. */
  clock?: TestClock;
  /**
   * True (default): each test starts from an empty database, fresh tenant caches and an empty
   * origin log. False: the file's data, made once in its own beforeAll, lives for the whole file.
   */
  resetEachTest?: boolean;
};

/** What useGatewayTest started; read it inside hooks and tests (it exists once beforeAll has run). */
export type GatewayTest = {
  readonly ctx: TestContext;
  readonly origin: TestOrigin;
  /** The dev node the gateways pay and issue through (null with `devNode: false`). */
  readonly devNode: DevLightningNode;
  readonly gateways: Gateway[];
  /** Each gateway's base URL, in the order of `gateways`. */
  readonly urls: string[];
};

/**
 * The hooks every gateway test file needs: one database and store, a real origin on loopback with
 * the file's routes, the dev node and `gateways` gateway instances for the whole file, closed at
 * the end; before each test (unless `resetEachTest: false`) the database is emptied, the clock
 * reset, every tenant cache dropped and the origin's log cleared. Call it before the file's own
 * beforeEach, which then runs after these resets.
 */
export function useGatewayTest(options: GatewayTestOptions = {}): GatewayTest {
  let started:
    { ctx: TestContext; origin: TestOrigin; devNode: DevLightningNode | null; gateways: Gateway[]; urls: string[]; close: () => Promise<void> } | undefined;
  let ctx: TestContext | undefined;
  let origin: TestOrigin | undefined;
  const running = () => {
    if (!started) throw new Error("useGatewayTest: read its fields inside hooks and tests, once beforeAll has run");
    return started;
  };
  beforeAll(async () => {
    ctx = await createTestContext(typeof options.env === "function" ? options.env() : options.env, options.database);
    origin = await startTestOrigin();
    options.routes?.(origin);
    const devNode = options.devNode === false ? null : new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
    const fileOptions = typeof options.gatewayOptions === "function" ? options.gatewayOptions(ctx) : options.gatewayOptions;
    const gatewayOptions = { ...(options.clock ? { clock: options.clock.now } : {}), ...fileOptions };
    const { gateways, urls, close } = await startGateways(ctx, devNode, options.gateways ?? 1, gatewayOptions);
    started = { ctx, origin, devNode, gateways, urls, close };
  });
  afterAll(async () => {
    await started?.close();
    await origin?.close();
    await ctx?.close();
  });
  if (options.resetEachTest !== false) {
    beforeEach(async () => {
      const { ctx, origin, gateways } = running();
      await ctx.reset();
      options.clock?.reset();
      gateways.forEach((gateway) => gateway.tenants.invalidate());
      origin.received.length = 0;
    });
  }
  return {
    get ctx() {
      return running().ctx;
    },
    get origin() {
      return running().origin;
    },
    get devNode() {
      return running().devNode as DevLightningNode;
    },
    get gateways() {
      return running().gateways;
    },
    get urls() {
      return running().urls;
    },
  };
}

/** A response read whole: status, headers, text and JSON (null when the body is not JSON). */
export type CallResult = { status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any };

/** One HTTP call, body read as text (and JSON when it parses). */
export async function call(url: string, headers: Record<string, string | string[]> = {}, method: "GET" | "POST" = "GET", body?: string): Promise<CallResult> {
  const res = await request(url, { method, headers, body });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** A header as one string (undici gives arrays for repeated headers). */
export function header(result: CallResult, name: string): string | undefined {
  const value = result.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Pays a 402 with the dev node; returns the Authorization value and the payment hash. */
export async function payChallenge(devNode: DevLightningNode, challenge: CallResult): Promise<{ authorization: string; paymentHash: string }> {
  expect(challenge.status, challenge.text).toBe(402);
  const macaroon = /macaroon="([^"]+)"/.exec(header(challenge, "www-authenticate") ?? "")![1];
  const { preimage } = await devNode.pay(challenge.json.paymentRequest);
  return { authorization: `L402 ${macaroon}:${preimage}`, paymentHash: challenge.json.paymentHash };
}
