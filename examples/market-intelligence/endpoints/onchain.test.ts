// /v1/onchain/* and /v1/network/mempool: known and unknown addresses, days bounds, flows that add up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testMarketApp, type TestMarketApp } from "../test-app.ts";

let t: TestMarketApp;
beforeAll(async () => {
  t = await testMarketApp();
}, 120_000);
afterAll(async () => {
  await t?.app.close();
});

const BINANCE_COLD = "34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo";
const UNKNOWN = "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh";

describe("/v1/onchain/entity/{address}", () => {
  it("labels a corpus address; an unknown one resolves empty, not an error; a malformed one is a 400 naming address", async () => {
    expect((await t.get(`/v1/onchain/entity/${BINANCE_COLD}`)).body).toMatchObject({
      address: BINANCE_COLD,
      resolved: true,
      entity: { name: "Binance", category: "exchange", role: "cold wallet", illustrative: false },
    });
    const unknown = await t.get(`/v1/onchain/entity/${UNKNOWN}`);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ address: UNKNOWN, resolved: false, entity: null });
    const bad = await t.get("/v1/onchain/entity/not-an-address!");
    expect([bad.status, bad.body.error.field]).toEqual([400, "address"]);
  });
});

describe("/v1/onchain/entity/{address}/balance-history", () => {
  it("gives one point a day for a tracked address, an empty untracked series otherwise; days 1 to 365", async () => {
    const tracked = (await t.get(`/v1/onchain/entity/${BINANCE_COLD}/balance-history`, { days: "7" })).body;
    expect(tracked).toMatchObject({ tracked: true, entity: "Binance", days: 7 });
    expect(tracked.points).toHaveLength(7);
    expect(tracked.change_btc).toBeCloseTo(tracked.points[6].balance_btc - tracked.points[0].balance_btc, 3);
    expect((await t.get(`/v1/onchain/entity/${BINANCE_COLD}/balance-history`)).body.days).toBe(30);
    expect((await t.get(`/v1/onchain/entity/${UNKNOWN}/balance-history`)).body).toMatchObject({ tracked: false, points: [], entity: null, change_btc: null });
    for (const days of ["0", "366", "1.5", "x"]) {
      const bad = await t.get(`/v1/onchain/entity/${BINANCE_COLD}/balance-history`, { days });
      expect([bad.status, bad.body.error.field], days).toEqual([400, "days"]);
    }
  });
});

describe("flows and valuation", () => {
  it("reserves sum, whale flows add up by kind, MVRV and NUPL follow from the realized price", async () => {
    const reserves = (await t.get("/v1/onchain/exchange-reserves")).body;
    expect(reserves.total_reserve_btc).toBeCloseTo(
      reserves.exchanges.reduce((s: number, e: { reserve_btc: number }) => s + e.reserve_btc, 0),
      1,
    );
    const metrics = (await t.get("/v1/onchain/metrics")).body;
    expect(metrics.net_exchange_flow_btc).toBeCloseTo(metrics.exchange_inflow_btc - metrics.exchange_outflow_btc, 3);
    for (const tx of metrics.whale_transactions) {
      expect(tx.amount_btc).toBeGreaterThanOrEqual(100);
      if (tx.kind === "exchange_inflow") expect(["Binance", "Bitfinex", "Coinbase", "Kraken", "Bitstamp", "OKX"]).toContain(tx.to.entity);
    }
    const valuation = (await t.get("/v1/onchain/valuation")).body;
    expect(valuation.mvrv).toBeCloseTo(valuation.price / valuation.realized_price, 3);
    expect(valuation.nupl).toBeCloseTo(1 - 1 / valuation.mvrv, 3);
    const mempool = (await t.get("/v1/network/mempool")).body;
    expect(mempool.fees_sat_vb.fastest).toBeGreaterThanOrEqual(mempool.fees_sat_vb.economy);
    expect(mempool.block_height).toBeGreaterThan(900_000);
  });
});
