// The API page's free preview (lib/previews/load-preview.ts) against a real origin on loopback and
// a real database: signed calls the SDK verifies (not probes) to the endpoints found by shape, with
// fixed parameters; one origin call per endpoint per 10 s whatever the number of visitors; only
// for a listed tenant the hub created for a hosted example; origin failures as 502.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyGatewayRequest } from "@l402-hub/sdk/origin";
import { AppError } from "@/lib/errors/index.ts";
import { clearPreviewCache, loadPreview, PREVIEW_TTL_MS, type ChartPreview, type VerdictPreview } from "@/lib/previews/load-preview.ts";
import { createTenant } from "@/lib/tenants/create-tenant.ts";
import { getOriginSecrets } from "@/lib/tenants/get-origin-secrets.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { json, startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";

const ctx = useTestContext();
let origin: TestOrigin;

const H = 3_600_000;
const t0 = Date.UTC(2026, 10, 26, 0);
const candles = [2, 1, 0].map((i) => ({ time: new Date(t0 + i * H).toISOString(), open: 100 + i, high: 102 + i, low: 99 + i, close: 101 + i, volume: 1 }));
const verdict = {
  view: "full",
  state: "QUIET",
  bias: "neutral",
  risk: "MODERATE",
  bias_score: 0.05,
  confidence: 0.7,
  conviction: 0.07,
  headline: "Quiet.",
  evidence: [{ summary: "Funding flat", endpoint: "/v1/derivatives/overview", contribution: 0.01, available: true }],
  changed: null,
  computed_at: new Date(t0).toISOString(),
  meta: { source: "simulated" },
};

const q = (...names: string[]) => names.map((name) => ({ name, in: "query", type: "string" }));

/** A listed tenant with the market API's three preview endpoints, owned as `ownerEmail`. */
async function marketTenant(slug: string, ownerEmail: string) {
  const prisma = ctx().db.prisma;
  const { tenantId } = await createTenant(prisma, ctx().config.appSecret, { slug, name: `API ${slug}`, ownerEmail, description: "", tags: [], listed: true });
  await prisma.tenant.update({ where: { id: tenantId }, data: { originUrl: origin.url } });
  await prisma.wallet.create({ data: { tenantId, type: "dev", credentialsEnc: "sealed", nodePubkey: `02${"ab".repeat(32)}` } });
  const endpoints = [
    { path: "/v1/history/candles", parameters: q("timeframe", "start", "end", "limit", "offset", "exchange") },
    { path: "/v1/market/snapshot", parameters: q("exchange") },
    { path: "/v1/verdict", parameters: q("view") },
  ];
  for (const e of endpoints) await prisma.endpoint.create({ data: { tenantId, method: "GET", pricingModel: "per_request", priceSats: 3, ...e } });
  return tenantId;
}

const config = () => ({ ...ctx().config, hostedExamples: ["market"], originAllowPrivate: true });

beforeEach(async () => {
  clearPreviewCache();
  origin = await startTestOrigin();
  origin.route("/v1/history/candles", json(200, { exchange: "binance", timeframe: "1h", candles, meta: { source: "simulated" } }));
  origin.route("/v1/market/snapshot", json(200, { price: 104.5, last_candle: { time: new Date(t0 + 3 * H + 60_000).toISOString(), close: 104.5 } }));
  origin.route("/v1/verdict", json(200, verdict));
});
afterEach(async () => {
  await origin.close();
});

describe("loadPreview", () => {
  it("reads the chart from the candles and snapshot endpoints with signed, non-probe calls and fixed parameters", async () => {
    const tenantId = await marketTenant("market", "market@localhost");
    const chart = (await loadPreview({ prisma: ctx().db.prisma, config: config(), slug: "market", kind: "chart" })) as ChartPreview;
    expect(chart).toMatchObject({ kind: "chart", exchange: "binance", timeframe: "1h", live: { price: 104.5, time: (t0 + 3 * H + 60_000) / 1000 } });
    expect(chart.candles.map((c) => c.time)).toEqual([0, 1, 2].map((i) => (t0 + i * H) / 1000));
    expect(origin.received.map((r) => r.url).sort()).toEqual(["/v1/history/candles?timeframe=1h&limit=72", "/v1/market/snapshot"]);
    const secrets = await getOriginSecrets({ prisma: ctx().db.prisma, appSecret: ctx().config.appSecret, tenantId });
    for (const r of origin.received) {
      expect(r.headers["x-hub-probe"]).toBeUndefined();
      const [path, query] = r.url.split("?");
      const check = await verifyGatewayRequest({
        method: "GET",
        path,
        query: query ? `?${query}` : "",
        headers: r.headers,
        rawBody: r.body,
        secrets: [secrets],
        requireSignatureV2: true,
      });
      expect(check).toEqual({ ok: true });
    }
  });

  it("reads the verdict card, and serves every visitor from one origin call per endpoint for the TTL", async () => {
    await marketTenant("market", "market@localhost");
    let now = t0;
    const load = () => loadPreview({ prisma: ctx().db.prisma, config: config(), slug: "Market", kind: "verdict", now: () => now });
    const answers = await Promise.all([load(), load(), load()]);
    expect((answers[0] as VerdictPreview).verdict).toMatchObject({ state: "QUIET", bias: "neutral", risk: "MODERATE", confidence: 0.7, headline: "Quiet." });
    expect(answers[1]).toBe(answers[0]);
    now += PREVIEW_TTL_MS - 1;
    await load();
    expect(origin.received.filter((r) => r.url === "/v1/verdict?view=full")).toHaveLength(1);
    now += 1;
    await load();
    expect(origin.received.filter((r) => r.url === "/v1/verdict?view=full")).toHaveLength(2);
  });

  it("previews no tenant the hub did not create for a hosted example, and no API without the endpoints", async () => {
    await marketTenant("market", "someone@example.com");
    await marketTenant("other", "other@localhost");
    const refused = (slug: string, hosted = ["market", "other"]) =>
      loadPreview({ prisma: ctx().db.prisma, config: { ...config(), hostedExamples: hosted }, slug, kind: "chart" }).then(
        () => null,
        (err: unknown) => (err instanceof AppError ? err.code : String(err)),
      );
    expect(await refused("market")).toBe("not_found");
    expect(await refused("other", ["market"])).toBe("not_found");
    await ctx().db.prisma.endpoint.deleteMany({ where: { path: "/v1/history/candles" } });
    expect(await refused("other")).toBe("not_found");
    expect(origin.received).toHaveLength(0);
  });

  it("answers 502 when the origin fails, and asks again on the next visit", async () => {
    await marketTenant("market", "market@localhost");
    origin.route("/v1/verdict", json(500, { error: "boom" }));
    const load = () => loadPreview({ prisma: ctx().db.prisma, config: config(), slug: "market", kind: "verdict" });
    await expect(load()).rejects.toMatchObject({ code: "bad_gateway", message: "The API answered /v1/verdict with status 500" });
    origin.route("/v1/verdict", json(200, verdict));
    await expect(load()).resolves.toMatchObject({ kind: "verdict" });
  });
});
