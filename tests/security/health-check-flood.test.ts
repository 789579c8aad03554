// Same class as issue 23, finding 12 (a request that costs a database query before any limit):
// GET /healthz on the gateway ran a query and a store ping for every request, unauthenticated and
// unlimited. Checks now share one probe a second, so a flood costs the database at most one query
// a second while load balancers still see the current state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import type { PrismaClient } from "@/lib/db/client.ts";
import { createGateway, type Gateway } from "@/lib/gateway/server.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";

let ctx: TestContext;
let gateway: Gateway;
let gatewayUrl: string;
let queries = 0;

/** The real client, counting raw queries (the health check's SELECT 1). */
function countingPrisma(real: PrismaClient): PrismaClient {
  return new Proxy(real, {
    get(target, property, receiver) {
      if (property !== "$queryRaw") return Reflect.get(target, property, receiver);
      return (...args: unknown[]) => {
        queries += 1;
        return Reflect.apply(target.$queryRaw, target, args);
      };
    },
  });
}

beforeAll(async () => {
  ctx = await createTestContext();
  gateway = createGateway({
    config: ctx.config,
    prisma: countingPrisma(ctx.db.prisma),
    pg: ctx.db.pg,
    store: ctx.store,
    devNode: null,
    log: createLogger("silent"),
  });
  gatewayUrl = `http://127.0.0.1:${await gateway.listen(0, "127.0.0.1")}`;
});

afterAll(async () => {
  await gateway?.close();
  await ctx?.close();
});

async function health() {
  const res = await request(`${gatewayUrl}/healthz`);
  return { status: res.statusCode, body: (await res.body.json()) as { status: string; database: string } };
}

describe("GET /healthz under a flood", () => {
  it("answers every request from at most one database query a second", async () => {
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 40 }, () => health()));
    for (let i = 0; i < 40; i++) answers.push(await health());
    const seconds = (Date.now() - started) / 1000;
    expect(answers.every((a) => a.status === 200 && a.body.status === "ok" && a.body.database === "ok")).toBe(true);
    expect(queries).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  });

  it("probes again once the shared answer is a second old", async () => {
    await health();
    const before = queries;
    await new Promise((r) => setTimeout(r, 1_100));
    await health();
    expect(queries).toBe(before + 1);
  });
});
