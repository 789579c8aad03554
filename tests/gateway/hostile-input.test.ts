// Hostile input against the real gateway: fuzzed credentials, slow and oversize requests, odd
// paths. Whatever arrives: no crash, no 500, no origin call and no charge without a valid proof.
import http from "node:http";
import net from "node:net";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

const t = useGatewayTest({
  gatewayOptions: {
    rateLimits: {
      endpointPerMinute: 1e6,
      globalPerMinute: 1e6,
      credentialedPerMinute: 1e6,
      forgeriesBeforeDemotion: 1e6,
      demotionMs: 1,
      challengesPerMinute: 1e6,
    },
    limits: { bodyReadTimeoutMs: 500 },
  },
  resetEachTest: false,
  routes: (origin) => {
    origin.route("/v1/paid", json(200, { ok: true }));
    origin.route("/v1/free", json(200, { ok: true }));
  },
});
let port: number;
let slug: string;
let tenantId: string;

beforeAll(async () => {
  ({ tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url }));
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 5 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { method: "POST", path: "/v1/free" });
  port = Number(new URL(t.urls[0]).port);
});

const paidUrl = () => `http://127.0.0.1:${port}/gw/${slug}/v1/paid`;

describe("fuzzed credentials", () => {
  it("never crashes, never answers 500 and never reaches the origin without a valid proof", async () => {
    const base64ish = fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_".split("")), maxLength: 400 });
    const credential = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc
        .tuple(fc.constantFrom("L402", "LSAT", "l402", "Bearer", "Basic"), base64ish, fc.stringMatching(/^[0-9a-fA-F]{0,70}$/))
        .map(([scheme, mac, pre]) => `${scheme} ${mac}:${pre}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          credential.filter((s) => /^[\t\x20-\x7e]*$/.test(s)),
          { minLength: 1, maxLength: 2 },
        ),
        async (values) => {
          const res = await request(paidUrl(), { headers: { authorization: values.length === 1 ? values[0] : values } });
          await res.body.dump();
          expect([401, 402]).toContain(res.statusCode);
        },
      ),
      { numRuns: 150 },
    );
    expect(t.origin.received.filter((r) => r.url.startsWith("/v1/paid"))).toHaveLength(0);
    expect(await t.ctx.db.prisma.proof.count()).toBe(0);
  }, 120_000);

  it("answers odd and unicode paths with 400 or 404, never 500", async () => {
    const paths = [
      "/v1/päid",
      "/v1/%F0%9F%92%A9",
      "/v1/paid%00",
      "/v1/paid/..%2f..%2f",
      "/v1//paid",
      "/%",
      "/v1/paid?" + "q=".repeat(2000),
      "/" + "a/".repeat(600),
    ];
    for (const p of paths) {
      const status = await rawStatus(`GET /gw/${slug}${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect([200, 400, 402, 404, 414], `${p} → ${status}`).toContain(status);
    }
  });
});

/** Sends raw bytes and returns the status code of the first response line. */
function rawStatus(payload: string | Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let data = "";
    socket.on("data", (d) => (data += d));
    socket.on("error", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    socket.setTimeout(10_000, () => reject(new Error("no answer")));
    // No half-close: Node's HTTP server treats a client FIN as an aborted request. The request
    // carries `Connection: close` (or trickles and is cut off), so the server closes the socket.
    socket.write(payload);
  });
}

describe("oversize and slow requests", () => {
  it("refuses headers over Node's limit with 431", async () => {
    const res = await new Promise<number>((resolve) => {
      const req = http.request(paidUrl(), { headers: { "x-big": "a".repeat(20_000) } }, (r) => resolve(r.statusCode ?? 0));
      req.on("error", () => resolve(0));
      req.end();
    });
    expect(res).toBe(431);
  });

  it("gives up on a body that trickles in (slowloris) with 408 and never calls the origin", async () => {
    const head = `POST /gw/${slug}/v1/free HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nabc`;
    const before = t.origin.received.length;
    const started = Date.now();
    expect(await rawStatus(head)).toBe(408);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(t.origin.received.length).toBe(before);
  });

  it("counts the bytes of a chunked body that declares no length", async () => {
    const body = "x".repeat(2 * 1024 * 1024);
    const status = await rawStatus(
      `POST /gw/${slug}/v1/free HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(status).toBe(413);
  });
});
