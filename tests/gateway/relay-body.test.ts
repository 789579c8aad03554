// The ordinary relay (lib/origin/origin-call.ts DirectBody): an origin body goes from undici's
// callbacks straight into the client's response. Large bodies arrive intact through a slow reader
// (backpressure both ways), a body the origin breaks off is not passed off as complete, and a
// client leaving mid-body closes the origin request.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";

let base: string;
const big = randomBytes(6 * 1024 * 1024);
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
let endlessClosed: Promise<void>;

// No wallet: every route here is free; rate limits off (noRateLimits).
const t = useGatewayTest({
  devNode: false,
  resetEachTest: false,
  routes: (origin) => {
    // 6 MB in 64 KB writes that respect the origin socket's own backpressure.
    origin.route("/v1/big", async (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(big.length) });
      for (let at = 0; at < big.length; at += 65_536) {
        if (!res.write(big.subarray(at, at + 65_536))) await new Promise((r) => res.once("drain", r));
      }
      res.end();
    });
    // Promises 1,000 bytes, sends 10, then drops the connection.
    origin.route("/v1/broken", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
      res.write("0123456789");
      setTimeout(() => res.socket?.destroy(), 50);
    });
    // Writes forever (until the gateway closes the request).
    let endlessDone!: () => void;
    endlessClosed = new Promise((resolve) => (endlessDone = resolve));
    origin.route("/v1/endless", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => res.write("x".repeat(1024)), 5);
      res.on("close", () => {
        clearInterval(timer);
        endlessDone();
      });
    });
    origin.route("/v1/empty", (_req, res) => void res.writeHead(204, { "x-origin": "yes" }).end());
    origin.route("/v1/chunked", async (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      for (const part of ["one,", "two,", "three"]) {
        res.write(part);
        await new Promise((r) => setTimeout(r, 10));
      }
      res.end();
    });
  },
});

beforeAll(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  for (const path of ["/v1/big", "/v1/broken", "/v1/endless", "/v1/empty", "/v1/chunked"]) await endpointFactory(t.ctx.db.prisma, tenantId, { path });
  base = `${t.urls[0]}/gw/${slug}`;
});

/** GET with node:http, reading the body with pauses (a slow client): the bytes, and whether it ended cleanly. */
function slowGet(url: string, pauseEveryBytes: number): Promise<{ status: number; body: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      const chunks: Buffer[] = [];
      let sincePause = 0;
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        sincePause += chunk.length;
        if (sincePause >= pauseEveryBytes) {
          sincePause = 0;
          res.pause();
          setTimeout(() => res.resume(), 20);
        }
      });
      const finish = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), complete: res.complete });
      res.on("end", finish);
      res.on("error", finish);
      res.on("aborted", finish);
    });
    req.on("error", reject);
  });
}

describe("relaying an origin body", () => {
  it("delivers a 6 MB body intact to a client that reads slowly", async () => {
    const got = await slowGet(`${base}/v1/big`, 512 * 1024);
    expect(got.status).toBe(200);
    expect(got.complete).toBe(true);
    expect(got.body.length).toBe(big.length);
    expect(sha256(got.body)).toBe(sha256(big));
  });

  it("serves many bodies at once, each intact", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => slowGet(`${base}/v1/big`, 2 * 1024 * 1024)));
    for (const got of results) expect(sha256(got.body)).toBe(sha256(big));
  });

  it("relays HEAD, an empty 204 and a chunked body of unknown length", async () => {
    const head = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.request(`${base}/v1/big`, { method: "HEAD" }, resolve).on("error", reject).end(),
    );
    head.resume();
    expect(head.statusCode).toBe(200);
    expect(head.headers["content-length"]).toBe(String(big.length));
    const empty = await slowGet(`${base}/v1/empty`, Infinity);
    expect([empty.status, empty.body.length, empty.complete]).toEqual([204, 0, true]);
    const chunked = await slowGet(`${base}/v1/chunked`, Infinity);
    expect([chunked.status, chunked.body.toString(), chunked.complete]).toEqual([200, "one,two,three", true]);
  });

  it("does not pass a body the origin broke off as complete", async () => {
    const got = await slowGet(`${base}/v1/broken`, Infinity);
    expect(got.status).toBe(200);
    expect(got.complete).toBe(false);
    expect(got.body.length).toBeLessThan(1000);
  });

  it("closes the origin request when the client leaves mid-body", async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/v1/endless`, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", (err) => (err.message.includes("socket hang up") ? undefined : reject(err)));
    });
    await expect(Promise.race([endlessClosed.then(() => "closed"), new Promise((r) => setTimeout(() => r("still open"), 3_000))])).resolves.toBe("closed");
  });

  it("keeps serving after all of the above", async () => {
    const got = await slowGet(`${base}/v1/big`, Infinity);
    expect(sha256(got.body)).toBe(sha256(big));
  });
});
