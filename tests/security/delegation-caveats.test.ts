// Issue 26 item 4: a paid macaroon narrowed offline by its holder (../shared/INTEROP.md "Delegation caveats":
// method=, path_prefix=, valid_until=<ms>, n_uses=, max_sats=) was served as if it carried none of
// them: a child credential meant for one path, one method, one use, 1 sat or a minute spent its
// parent's whole credit. Every caveat is enforced now, counters exactly across gateway instances,
// and a condition the gateway does not understand fails closed (401 unknown_caveat).
// Credentials are attenuated with the `macaroon` package, as a deployed client does.
import { beforeEach, describe, expect, it } from "vitest";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { attenuateAuthorization } from "@/tests/helpers/attenuate.ts";
import { usingPostgres } from "@/tests/helpers/context.ts";
import { call, header, payChallenge, testClock, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { statusRoute } from "@/tests/helpers/origin.ts";

const clock = testClock();

const t = useGatewayTest({
  gateways: 2,
  clock,
  routes: (origin) => {
    for (const path of ["/v1/a", "/v1/ab", "/v1/a/deep", "/v1/b", "/v1/c", "/v1/bucket", "/v1/meter", "/v1/kb"]) origin.route(path, statusRoute(path));
  },
});

let base: string;
let base2: string;
let tenantId: string;

beforeEach(async () => {
  const tenant = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  tenantId = tenant.tenantId;
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/a", pricingModel: "per_request", priceSats: 3 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/ab", pricingModel: "per_request", priceSats: 1 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/a/deep", pricingModel: "per_request", priceSats: 1 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { method: "POST", path: "/v1/b", pricingModel: "per_request", priceSats: 2 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/c", pricingModel: "per_request", priceSats: 2 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 10, tokenBudget: 5 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/meter", pricingModel: "metered", priceSats: 20, unitCostSats: 2 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/kb", pricingModel: "per_kb", priceSats: 20, unitCostSats: 1 });
  base = `${t.urls[0]}/gw/${tenant.slug}`;
  base2 = `${t.urls[1]}/gw/${tenant.slug}`;
});

/** Buys `sats` of prepaid credit (usable on every per_request endpoint); the parent's Authorization. */
async function buyCredit(sats: number): Promise<string> {
  const challenge = await call(`${base}/v1/a`, { "x-hub-credit": String(sats) });
  return (await payChallenge(t.devNode, challenge)).authorization;
}

async function creditLeft(): Promise<number> {
  return (await t.ctx.db.prisma.credit.findFirstOrThrow({ where: { tenantId } })).balanceSats;
}

/** Asserts a 401 naming the failed caveat, with nothing charged and nothing sent to the origin. */
function expectCaveatRefusal(res: Awaited<ReturnType<typeof call>>, caveat: string) {
  expect(res.status, res.text).toBe(401);
  expect(res.json.error).toMatchObject({ code: "caveat_failed", details: { caveat } });
  expect(res.json.error.message).toContain(caveat);
  expect(header(res, "x-hub-payment")).toBe("not_charged");
}

describe("each delegation caveat is enforced", () => {
  it("method=: a child limited to GET is refused on POST, nothing charged", async () => {
    const child = attenuateAuthorization(await buyCredit(100), ["method=GET"]);
    expect((await call(`${base}/v1/a`, { authorization: child })).status).toBe(200);
    const before = await creditLeft();
    expectCaveatRefusal(await call(`${base}/v1/b`, { authorization: child }, "POST", "{}"), "method");
    expect(await creditLeft()).toBe(before);
    expect(t.origin.received.map((r) => r.url)).toEqual(["/v1/a"]);
  });

  it("path_prefix=: the prefix itself and below, on the canonical path, never a sibling", async () => {
    const child = attenuateAuthorization(await buyCredit(100), ["path_prefix=/v1/a/"]);
    for (const path of ["/v1/a", "/v1/a/deep", "/v1/%61", "/v1//a/./deep/"]) {
      expect((await call(`${base}${path}`, { authorization: child })).status, path).toBe(200);
    }
    for (const path of ["/v1/ab", "/v1/c"]) expectCaveatRefusal(await call(`${base}${path}`, { authorization: child }), "path_prefix");
  });

  it("valid_until= (milliseconds): refused after it with 401, while the parent keeps working", async () => {
    const parent = await buyCredit(100);
    const child = attenuateAuthorization(parent, [`valid_until=${clock.now() + 60_000}`]);
    expect((await call(`${base}/v1/a`, { authorization: child })).status).toBe(200);
    clock.advance(61_000);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: child }), "valid_until");
    expect((await call(`${base}/v1/a`, { authorization: parent })).status).toBe(200);
  });

  it("n_uses=: exactly that many calls; the parent's credit pays for those only", async () => {
    const child = attenuateAuthorization(await buyCredit(100), ["n_uses=2"]);
    expect((await call(`${base}/v1/a`, { authorization: child })).status).toBe(200);
    expect((await call(`${base2}/v1/c`, { authorization: child })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: child }), "n_uses");
    expect(await creditLeft()).toBe(100 - 3 - 2);
  });

  it("max_sats=: the cumulative price is capped; a call that would pass it is refused, a cheaper one still fits", async () => {
    const child = attenuateAuthorization(await buyCredit(100), ["max_sats=5"]);
    expect((await call(`${base}/v1/a`, { authorization: child })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: child }), "max_sats");
    expect((await call(`${base}/v1/c`, { authorization: child })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/ab`, { authorization: child }), "max_sats");
    expect(await creditLeft()).toBe(100 - 5);
  });

  it("the most restrictive occurrence wins, and every one must hold", async () => {
    const parent = await buyCredit(100);
    const child = attenuateAuthorization(parent, ["n_uses=5", "n_uses=1", "path_prefix=/v1", "path_prefix=/v1/c"]);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: child }), "path_prefix");
    expect((await call(`${base}/v1/c`, { authorization: child })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/c`, { authorization: child }), "n_uses");
    // Disjoint prefixes leave nothing: the later caveat can only narrow, never move the scope.
    const disjoint = attenuateAuthorization(parent, ["path_prefix=/v1/c", "path_prefix=/v1/a"]);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: disjoint }), "path_prefix");
    expectCaveatRefusal(await call(`${base}/v1/c`, { authorization: disjoint }), "path_prefix");
  });

  it("a child of a child shares its parent's counters: re-attenuating never resets n_uses or max_sats", async () => {
    const child = attenuateAuthorization(await buyCredit(100), ["n_uses=2", "max_sats=100"]);
    const grandchild = attenuateAuthorization(child, ["method=GET"]);
    const sibling = attenuateAuthorization(child, ["valid_until=99999999999999"]);
    expect((await call(`${base}/v1/a`, { authorization: grandchild })).status).toBe(200);
    expect((await call(`${base}/v1/a`, { authorization: sibling })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: child }), "n_uses");
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: attenuateAuthorization(child, ["method=GET", "method=GET"]) }), "n_uses");
  });

  it("an origin failure gives the use and the sats back (spec 7.3)", async () => {
    const child = attenuateAuthorization(await buyCredit(100), ["n_uses=1", "max_sats=3"]);
    const failed = await call(`${base}/v1/a?status=500`, { authorization: child });
    expect(failed.status).toBe(500);
    expect(header(failed, "x-hub-payment")).toBe("refunded_to_balance");
    expect((await call(`${base}/v1/a`, { authorization: child })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: child }), "n_uses");
  });

  it("a per_request proof (endpoint scope) obeys max_sats against its price", async () => {
    const challenge = await call(`${base}/v1/a`);
    const { authorization } = await payChallenge(t.devNode, challenge);
    expectCaveatRefusal(await call(`${base}/v1/a`, { authorization: attenuateAuthorization(authorization, ["max_sats=2"]) }), "max_sats");
    // Refused without consuming the proof: the parent redeems it.
    expect((await call(`${base}/v1/a`, { authorization })).status).toBe(200);
  });
});

describe("session endpoints", () => {
  it("a caveated credential gets no X-Session-Token, so each call presents the macaroon and counts", async () => {
    const challenge = await call(`${base}/v1/bucket`);
    const { authorization } = await payChallenge(t.devNode, challenge);
    const child = attenuateAuthorization(authorization, ["n_uses=2"]);
    const first = await call(`${base}/v1/bucket`, { authorization: child });
    expect(first.status, first.text).toBe(200);
    expect(header(first, "x-session-token")).toBeUndefined();
    expect(header(first, "x-session-balance")).toBe("4");
    expect((await call(`${base2}/v1/bucket`, { authorization: child })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/bucket`, { authorization: child }), "n_uses");
    // The parent still spends the same session with its own macaroon.
    const parent = await call(`${base}/v1/bucket`, { authorization });
    expect(parent.status).toBe(200);
    expect(header(parent, "x-session-balance")).toBe("2");
  });

  it("metered: max_sats counts the unit cost of each call", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/meter`));
    const child = attenuateAuthorization(authorization, ["max_sats=5"]);
    expect((await call(`${base}/v1/meter`, { authorization: child })).status).toBe(200);
    expect((await call(`${base}/v1/meter`, { authorization: child })).status).toBe(200);
    expectCaveatRefusal(await call(`${base}/v1/meter`, { authorization: child }), "max_sats");
    expect(header(await call(`${base}/v1/meter`, { authorization }), "x-session-balance")).toBe("14");
  });

  it("max_sats where no sats price is known before the call (token_bucket, per_kb) is refused, never ignored", async () => {
    for (const path of ["/v1/bucket", "/v1/kb"]) {
      const { authorization } = await payChallenge(t.devNode, await call(`${base}${path}`));
      expectCaveatRefusal(await call(`${base}${path}`, { authorization: attenuateAuthorization(authorization, ["max_sats=1000"]) }), "max_sats");
      expect((await call(`${base}${path}`, { authorization: attenuateAuthorization(authorization, ["n_uses=1"]) })).status, path).toBe(200);
    }
  });
});

describe("conditions the gateway does not understand", () => {
  it.each([
    "foo=bar",
    "no equals sign",
    "ip_address=203.0.113.7",
    "n_uses=0",
    "n_uses=-1",
    "n_uses=+5",
    "n_uses=5.0",
    "n_uses=4294967296",
    "max_sats=",
    "max_sats=abc",
    "valid_until=soon",
    "method=",
    "method=GET POST",
    "path_prefix=v1/a",
    "path_prefix=/v1/../admin",
    "path_prefix=/v1/%2e%2e/admin",
    "path_prefix=/v1//a",
    "path_prefix=//evil.example/x",
    "path_prefix=/a://b",
    "path_prefix=/v1\\a",
  ])("%j fails closed with 401 unknown_caveat", async (caveat) => {
    const child = attenuateAuthorization(await buyCredit(100), [caveat]);
    const res = await call(`${base}/v1/a`, { authorization: child });
    expect(res.status, res.text).toBe(401);
    expect(res.json.error.code).toBe("unknown_caveat");
    expect(res.json.error.message).toContain(caveat.split("=")[0]);
    // Refused before the credit was even opened: nothing spent.
    expect(await t.ctx.db.prisma.credit.count()).toBe(0);
    expect(t.origin.received).toHaveLength(0);
  });
});

describe("counters are exact under concurrency", () => {
  it(
    "n_uses and max_sats hold across two gateway instances",
    async () => {
      const parent = await buyCredit(200);
      const uses = attenuateAuthorization(parent, ["n_uses=5"]);
      const sats = attenuateAuthorization(parent, ["max_sats=14"]);
      // Two counters taken together (one transaction): the tighter one decides.
      const both = attenuateAuthorization(parent, ["n_uses=6", "max_sats=9"]);
      const burst = (authorization: string) =>
        Promise.all(Array.from({ length: 24 }, (_, i) => call(`${i % 2 ? base : base2}/v1/c`, { authorization }).then((r) => r.status)));
      const [byUses, bySats, byBoth] = await Promise.all([burst(uses), burst(sats), burst(both)]);
      expect(byUses.filter((s) => s === 200)).toHaveLength(5);
      expect(byUses.filter((s) => s === 401)).toHaveLength(19);
      expect(bySats.filter((s) => s === 200)).toHaveLength(7);
      expect(bySats.filter((s) => s === 401)).toHaveLength(17);
      expect(byBoth.filter((s) => s === 200)).toHaveLength(4);
      expect(byBoth.filter((s) => s === 401)).toHaveLength(20);
      expect(await creditLeft()).toBe(200 - 5 * 2 - 7 * 2 - 4 * 2);
    },
    usingPostgres ? 60_000 : 30_000,
  );
});
