// Issue 23, finding 6: a per_kb client that reads most of a large body and then resets the
// connection must pay for what it was sent. The rule (docs/decisions.md, per_kb): the charge covers
// the bytes handed to the client's socket; only the part the socket never took is refunded.
// Real gateway, real origin, dev node payments, a raw TCP client that resets (RST) mid-body.
import net from "node:net";
import { beforeEach, describe, expect, it } from "vitest";
import { perKbCost } from "@/lib/pricing/quote.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, header, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";

let base: string;
const deposit = 100_000;

const t = useGatewayTest({
  gatewayOptions: { limits: { perKbMaxBytes: 64 * 1024 * 1024 } },
  routes: (origin) => {
    origin.route("/v1/kb", (req, res) => {
      const body = Buffer.alloc(Number(new URL(req.url, "http://o").searchParams.get("bytes") ?? 0), "k");
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length }).end(body);
    });
  },
});

beforeEach(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  // 1 sat per KB: the charge in sats is the body's size in KB, rounded up.
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/kb", pricingModel: "per_kb", priceSats: deposit, unitCostSats: 1 });
  base = `${t.urls[0]}/gw/${slug}`;
});

/** Buys a per_kb session and returns its token (the first call reads an empty body). */
async function openSession(): Promise<string> {
  const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/kb`));
  const first = await call(`${base}/v1/kb?bytes=0`, { authorization });
  expect(first.status, first.text).toBe(200);
  return header(first, "x-session-token")!;
}

/**
 * Requests `bytes` with a raw socket, reads the head and `readBytes` of the body (0: reads the head
 * only and stops reading), then resets the connection. Returns the body bytes it received.
 */
function readThenReset(token: string, bytes: number, readBytes: number): Promise<number> {
  const target = new URL(`${base}/v1/kb?bytes=${bytes}`);
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    let bodyReceived = -1;
    const socket = net.connect(Number(target.port), target.hostname, () => {
      socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nX-Session-Token: ${token}\r\n\r\n`);
    });
    const reset = () => {
      socket.removeAllListeners("data");
      socket.pause();
      // Stalled long enough for the gateway to fill the socket buffers, then RST.
      setTimeout(
        () => {
          socket.resetAndDestroy();
          resolve(bodyReceived);
        },
        readBytes === 0 ? 500 : 0,
      );
    };
    socket.on("data", (chunk: Buffer) => {
      if (bodyReceived < 0) {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf("\r\n\r\n");
        if (end === -1) return;
        expect(buffered.subarray(0, end).toString("latin1")).toMatch(/^HTTP\/1\.1 200/);
        bodyReceived = buffered.length - end - 4;
      } else {
        bodyReceived += chunk.length;
      }
      if (bodyReceived >= readBytes) reset();
    });
    socket.on("error", reject);
  });
}

/** The session balance once the gateway has settled the call (it stops changing). */
async function settledBalance(): Promise<number> {
  let previous = -1;
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const balance = (await t.ctx.db.prisma.paymentSession.findFirstOrThrow()).balance!;
    if (balance === previous) return balance;
    previous = balance;
  }
  throw new Error("the session balance kept changing");
}

describe("per_kb and a client that resets mid-body", () => {
  it("charges what the client read when it resets after most of a large body", async () => {
    const token = await openSession();
    const bytes = 16 * 1024 * 1024;
    const received = await readThenReset(token, bytes, 12 * 1024 * 1024);
    expect(received).toBeGreaterThanOrEqual(12 * 1024 * 1024);
    const charged = deposit - (await settledBalance());
    // At least what it read (less the one 64 KB chunk whose write may not have completed), at most the whole body.
    expect(charged).toBeGreaterThanOrEqual(perKbCost(received - 64 * 1024, 1));
    expect(charged).toBeLessThanOrEqual(perKbCost(bytes, 1));
  });

  it("refunds only the part the socket never took when the client stops reading and resets", async () => {
    const token = await openSession();
    // Larger than loopback's socket buffers (4 MB sent + up to 32 MB received on Linux): some of it
    // is never handed over.
    const bytes = 48 * 1024 * 1024;
    await readThenReset(token, bytes, 0);
    const charged = deposit - (await settledBalance());
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(perKbCost(bytes, 1));
  });
});
