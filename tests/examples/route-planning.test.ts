// The route-planning example API end to end, as `npm start` runs it: the launcher starts the real
// origin process with the tenant's secrets and seeds the `routes` tenant from the origin's OpenAPI
// document; paid calls go through a real gateway, paid with the dev node. The operations' answers
// are proved right in examples/route-planning (engine and operation tests); this file proves the
// wiring: seeding, prices, the signature guard, payment, errors and the free basemap.
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/examples/route-planning/operations/index.ts";
import { launchHostedExamples } from "@/lib/hosted-examples/launch-hosted-examples.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { rotateOriginSecrets } from "@/lib/tenants/rotate-origin-secrets.ts";
import { call, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";

const t = useGatewayTest({ resetEachTest: false });
let launched: Awaited<ReturnType<typeof launchHostedExamples>>;

/** The routes example as npm start launches it, on this file's database and gateway. */
function launch(logLevel: "error" | "silent" = "error") {
  return launchHostedExamples({
    prisma: t.ctx.db.prisma,
    store: t.ctx.store,
    config: { ...t.ctx.config, hostedExamples: ["routes"] },
    devNode: t.devNode,
    log: createLogger(logLevel),
    root: process.cwd(),
    // The engine tests' cache: the graph and hierarchies are built once per machine, not per run.
    dataDir: path.join(os.tmpdir(), "l402-hub-route-engine-test"),
  });
}
let base: string;

beforeAll(async () => {
  launched = await launch();
  expect(launched.running.map((r) => r.slug)).toEqual(["routes"]);
  base = `${t.urls[0]}/gw/routes`;
}, 300_000);

afterAll(async () => {
  await launched?.stop();
});

async function paidPost(pathname: string, body: unknown) {
  const challenge = await call(`${base}${pathname}`, { "content-type": "application/json" }, "POST", JSON.stringify(body));
  const { authorization } = await payChallenge(t.devNode, challenge);
  return { challenge, answer: await call(`${base}${pathname}`, { "content-type": "application/json", authorization }, "POST", JSON.stringify(body)) };
}

describe("the routes tenant as npm start seeds it", () => {
  it("is listed with every operation from the origin's OpenAPI document, priced per_request", async () => {
    const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { slug: "routes" }, include: { endpoints: true, wallet: true } });
    expect(tenant.directoryListed).toBe(true);
    expect(tenant.wallet?.type).toBe("dev");
    expect(tenant.billingExempt).toBe(true);
    const byPath = Object.fromEntries(tenant.endpoints.map((e) => [`${e.method} ${e.path}`, e]));
    expect(operations.map((op) => op.name)).toEqual(["cluster", "directions", "matrix", "navigate", "optimize", "optimize-fleet", "reachable"]);
    for (const op of operations) {
      const endpoint = byPath[`POST /origin/v1/routes/${op.name}`];
      expect(endpoint, op.name).toMatchObject({ pricingModel: "per_request", priceSats: op.priceSats, isActive: true });
      expect(endpoint.exampleResponse, op.name).toMatchObject({ attribution: "© OpenStreetMap contributors" });
      expect(endpoint.exampleRequest, op.name).toEqual({ body: op.exampleRequest });
      expect(Array.isArray(endpoint.parameters) && endpoint.parameters.length > 0, op.name).toBe(true);
    }
    expect(byPath["GET /origin/v1/routes/basemap"]?.pricingModel).toBeNull();
  });

  it("a second launch keeps the tenant and its endpoints, and follows the origin to its new port", async () => {
    const before = await t.ctx.db.prisma.endpoint.count({ where: { tenant: { slug: "routes" } } });
    const oldUrl = launched.running[0].originUrl;
    await launched.stop();
    launched = await launch();
    const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { slug: "routes" }, include: { endpoints: true } });
    expect(tenant.endpoints).toHaveLength(before);
    expect(tenant.originUrl).toBe(launched.running[0].originUrl);
    expect(oldUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  }, 300_000);
});

describe("paid calls through the gateway", () => {
  it("every operation answers its documented example, paid at its price", async () => {
    for (const op of operations) {
      const { challenge, answer } = await paidPost(`/origin/v1/routes/${op.name}`, op.exampleRequest);
      expect(challenge.json.amountSats, op.name).toBe(op.priceSats);
      expect(answer.status, `${op.name}: ${answer.text}`).toBe(200);
      expect(answer.headers["x-hub-payment"], op.name).toBe("charged");
      expect(op.response.safeParse(answer.json).success, op.name).toBe(true);
    }
  });

  it("a matrix costs its price and answers grids from the engine", async () => {
    const body = {
      points: [
        { lat: 57.7066, lng: 11.9686 },
        { lat: 57.6998, lng: 11.9527 },
      ],
    };
    const { challenge, answer } = await paidPost("/origin/v1/routes/matrix", body);
    expect(challenge.json.amountSats).toBe(3);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.distances[0][0]).toBe(0);
    expect(answer.json.distances[0][1]).toBeGreaterThan(500);
    expect(answer.json.durations[1][0]).toBeGreaterThan(30);
    expect(answer.json.attribution).toBe("© OpenStreetMap contributors");
  });

  it("reachable costs its price and answers nested isochrone bands; minutes with meters is a 400 naming both", async () => {
    const { challenge, answer } = await paidPost("/origin/v1/routes/reachable", { center: { lat: 57.7066, lng: 11.9686 }, minutes: 6, buckets: 2 });
    expect(challenge.json.amountSats).toBe(5);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.type).toBe("FeatureCollection");
    expect(answer.json.features.map((f: { properties: { minutes: number } }) => f.properties.minutes)).toEqual([3, 6]);
    expect(answer.json.features[1].properties.area_m2).toBeGreaterThan(answer.json.features[0].properties.area_m2);
    expect(answer.json.attribution).toBe("© OpenStreetMap contributors");
    const both = await paidPost("/origin/v1/routes/reachable", { center: { lat: 57.7066, lng: 11.9686 }, minutes: 6, meters: 500 });
    expect(both.answer.status).toBe(400);
    expect(both.answer.json.error).toMatchObject({ code: "conflicting_fields", field: "minutes" });
    expect(both.answer.json.error.message).toMatch(/minutes.*meters/);
  });

  it("directions and navigate cost their prices and answer turn-by-turn guidance", async () => {
    const waypoints = [
      { lat: 57.7066, lng: 11.9686 },
      { lat: 57.6973, lng: 11.9797 },
    ];
    const directions = await paidPost("/origin/v1/routes/directions", { waypoints, steps: true, locale: "sv" });
    expect(directions.challenge.json.amountSats).toBe(2);
    expect(directions.answer.status, directions.answer.text).toBe(200);
    expect(directions.answer.json.legs[0].steps[0].instruction).toMatch(/^Kör åt /);
    const navigate = await paidPost("/origin/v1/routes/navigate", { waypoints });
    expect(navigate.challenge.json.amountSats).toBe(3);
    expect(navigate.answer.status, navigate.answer.text).toBe(200);
    expect(navigate.answer.json).toMatchObject({ code: "Ok", routes: [{ weight_name: "duration", voiceLocale: "en" }] });
  });

  it("a bad body is a 400 naming the field; a point outside the city a 422 naming the box", async () => {
    const bad = await paidPost("/origin/v1/routes/matrix", { points: [{ lat: 57.7, lng: 11.97 }] });
    expect(bad.answer.status).toBe(400);
    expect(bad.answer.json.error).toMatchObject({ code: "invalid_request", field: "points" });
    const far = await paidPost("/origin/v1/routes/matrix", {
      points: [
        { lat: 59.33, lng: 18.07 },
        { lat: 57.7, lng: 11.97 },
      ],
    });
    expect(far.answer.status).toBe(422);
    expect(far.answer.json.error).toMatchObject({ code: "outside_coverage", field: "points[0]" });
    expect(far.answer.json.error.coverage_bbox).toHaveLength(4);
  });

  it("the basemap is free through the gateway; the origin refuses anyone but the gateway", async () => {
    const free = await call(`${base}/origin/v1/routes/basemap?bbox=11.96,57.70,11.975,57.71`);
    expect(free.status, free.text).toBe(200);
    expect(free.json.type).toBe("FeatureCollection");
    expect(free.json.features.length).toBeGreaterThan(50);
    expect(free.json.detail).toBe("all_ways");
    const direct = await call(`${launched.running[0].originUrl}/origin/v1/routes/matrix`, { "content-type": "application/json" }, "POST", "{}");
    expect(direct.status).toBe(403);
    const openapi = await call(`${launched.running[0].originUrl}/origin/v1/routes/openapi.json`);
    expect(openapi.json).toMatchObject({ openapi: "3.1.0", info: { version: "1.0.0" } });
  });
});

describe("origin secrets", () => {
  it("after a rotation in the dashboard the running origin accepts the gateway's new signature", async () => {
    const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { slug: "routes" }, select: { id: true } });
    // No grace period: the old pair is refused at once, so only the handed-over pair can pass.
    await rotateOriginSecrets({ prisma: t.ctx.db.prisma, store: t.ctx.store, appSecret: t.ctx.config.appSecret, tenantId: tenant.id, graceHours: 0 });
    t.gateways.forEach((gateway) => gateway.tenants.invalidate());
    await new Promise((resolve) => setTimeout(resolve, 500));
    const free = await call(`${base}/origin/v1/routes/basemap?bbox=11.96,57.70,11.962,57.702`);
    expect(free.status, free.text).toBe(200);
  });
});

describe("a workspace the hub did not create", () => {
  it("is never taken over: the example is not started and the workspace keeps its origin", async () => {
    await launched.stop();
    const prisma = t.ctx.db.prisma;
    const tenant = await prisma.tenant.findUniqueOrThrow({ where: { slug: "routes" }, select: { id: true, originUrl: true } });
    // As if someone had registered the slug before it was reserved.
    await prisma.user.updateMany({ where: { email: "routes@localhost" }, data: { email: "someone@example.com" } });
    try {
      const again = await launch("silent");
      expect(again.running).toEqual([]);
      expect((await prisma.tenant.findUniqueOrThrow({ where: { id: tenant.id } })).originUrl).toBe(tenant.originUrl);
    } finally {
      await prisma.user.updateMany({ where: { email: "someone@example.com" }, data: { email: "routes@localhost" } });
    }
  });
});
