// Same class as issue 23, finding 12 (a request that costs a database query before any limit):
// GET /healthz on the gateway ran a query and a store ping for every request, unauthenticated and
// unlimited. Checks now share one probe a second, so a flood costs the database at most one query
// a second while load balancers still see the current state.
import { describe, expect, it } from "vitest";
import { request } from "undici";
import type { PrismaClient } from "@/lib/db/client.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";

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

// The gateway (real rate limits) reads through a client counting its raw queries; the database stays empty.
const t = useGatewayTest({
  devNode: false,
  gatewayOptions: (ctx) => ({ prisma: countingPrisma(ctx.db.prisma), rateLimits: {} }),
  resetEachTest: false,
});

async function health() {
  const res = await request(`${t.urls[0]}/healthz`);
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
