// Issue 23 finding 3: encoded, re-cased or decorated spellings of an expensive path must never be
// priced as a cheaper template. The gateway matches, charges for and forwards ONE canonical path
// (../shared/INTEROP.md "Delegation caveats": unreserved characters decoded, hex in upper case, `.` segments
// and repeated or trailing slashes dropped), and refuses spellings an origin could read as another
// endpoint (`..`, encoded slashes, letter case of a literal, `;` parameters, fragments) with 400.
// Real gateway, real recording origin, paid with the dev node: the table asserts the price each
// spelling is offered at (402 amountSats) and the exact path the origin then receives.
import net from "node:net";
import { beforeEach, describe, expect, it } from "vitest";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { payChallenge, type CallResult, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

let slug: string;

const TOP_PRICE = 1000;
const ENTITY_PRICE = 1;

const t = useGatewayTest();

beforeEach(async () => {
  const tenant = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  slug = tenant.slug;
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenant.tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/entity/top", pricingModel: "per_request", priceSats: TOP_PRICE });
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/entity/{id}", pricingModel: "per_request", priceSats: ENTITY_PRICE });
});

/**
 * One request with exactly these request-target bytes (no client-side normalization: undici and
 * fetch would resolve dots and drop fragments before the gateway ever saw them).
 */
function rawGet(target: string, headers: Record<string, string> = {}): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(t.urls[0]).port), "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (d) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const [head, ...rest] = raw.split("\r\n\r\n");
      const lines = head.split("\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0])?.[1] ?? 0);
      const parsed: Record<string, string | string[]> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).toLowerCase();
        const value = line.slice(colon + 1).trim();
        const seen = parsed[name];
        parsed[name] = seen === undefined ? value : [seen, value].flat();
      }
      const text = rest.join("\r\n\r\n");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      resolve({ status, headers: parsed, text, json: body });
    });
    const extra = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    socket.write(`GET /gw/${slug}${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`);
  });
}

/** Spellings that name the expensive literal route: offered at its price, forwarded canonically. */
const topSpellings = [
  "/v1/entity/top",
  "/v1/entity/t%6fp",
  "/v1/entity/t%6Fp",
  "/v1/entity/%74%6F%70",
  "/v1/entity/%74op/",
  "/v1/entity/top/",
  "/v1/entity/./top",
  "/v1/entity/%2e/top",
  "/v1//entity///top",
  "/v1/%65ntity/top",
  "/%76%31/entity/top",
];

/** Spellings of the cheap template: offered at its price; the origin receives the canonical form. */
const entitySpellings: [string, string][] = [
  ["/v1/entity/abc", "/v1/entity/abc"],
  ["/v1/entity/ab%63", "/v1/entity/abc"],
  ["/v1/entity/abc/", "/v1/entity/abc"],
  ["/v1/entity/caf%c3%a9", "/v1/entity/caf%C3%A9"],
  ["/v1/entity/a%3Bb", "/v1/entity/a%3Bb"],
  ["/v1/entity/%252e%252e", "/v1/entity/%252e%252e"],
  ["/v1/entity/top%2520", "/v1/entity/top%2520"],
  ["/v1/entity/a%7e", "/v1/entity/a~"],
  ['/v1/entity/a"b', "/v1/entity/a%22b"],
  ["/v1/entity/a{b}", "/v1/entity/a%7Bb%7D"],
];

/** Spellings an origin could read as another route (or that no endpoint has): 400 before any invoice. */
const refused = [
  "/v1/entity/TOP",
  "/v1/entity/Top",
  "/V1/entity/top",
  "/v1/ENTITY/abc",
  "/v1/entity/top;x",
  "/v1/entity/top;",
  "/v1/entity/;x/top",
  "/v1/entity/top#x",
  "/v1/entity/%2e%2e/entity/top",
  "/v1/entity/.%2E/entity/top",
  "/v1/entity/t%2fp",
  "/v1/entity/top%00",
  "/v1/entity/top%5c",
  "/v1/entity/top%",
  "/v1/entity/top%zz",
  "/v1/entity/%ff",
];

describe("canonical request path", () => {
  it.each(topSpellings)("%s is priced as /v1/entity/top and forwarded as /v1/entity/top", async (spelling) => {
    t.origin.route("/v1/entity/top", json(200, { route: "top" }));
    const challenge = await rawGet(spelling);
    expect(challenge.status, challenge.text).toBe(402);
    expect(challenge.json.amountSats).toBe(TOP_PRICE);
    const { authorization } = await payChallenge(t.devNode, challenge);
    const paid = await rawGet(spelling, { authorization });
    expect(paid.status, paid.text).toBe(200);
    expect(t.origin.received.map((r) => r.url)).toEqual(["/v1/entity/top"]);
  });

  it.each(entitySpellings)("%s is priced as /v1/entity/{id} and forwarded as %s", async (spelling, canonical) => {
    t.origin.route(canonical, json(200, { route: "entity" }));
    const challenge = await rawGet(spelling);
    expect(challenge.status, challenge.text).toBe(402);
    expect(challenge.json.amountSats).toBe(ENTITY_PRICE);
    const { authorization } = await payChallenge(t.devNode, challenge);
    const paid = await rawGet(spelling, { authorization });
    expect(paid.status, paid.text).toBe(200);
    expect(t.origin.received.map((r) => r.url)).toEqual([canonical]);
  });

  it.each(refused)("%s is refused with 400 naming the problem, before any invoice", async (spelling) => {
    const res = await rawGet(spelling);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.code).toBe("bad_request");
    expect(res.json.error.message).toMatch(/path|fragment/i);
    expect(res.headers["www-authenticate"]).toBeUndefined();
    expect(await t.ctx.db.prisma.invoice.count()).toBe(0);
    expect(t.origin.received).toHaveLength(0);
  });

  it("forwards the query with the canonical path, encoding only what the origin would otherwise see altered", async () => {
    t.origin.route("/v1/entity/abc", json(200, { route: "entity" }));
    const challenge = await rawGet("/v1/entity/ab%63?q=a'b&r=%7e");
    const { authorization } = await payChallenge(t.devNode, challenge);
    expect((await rawGet("/v1/entity/ab%63?q=a'b&r=%7e", { authorization })).status).toBe(200);
    expect(t.origin.received.map((r) => r.url)).toEqual(["/v1/entity/abc?q=a%27b&r=%7e"]);
  });
});
