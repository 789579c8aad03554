// Health probes of external listings against a real loopback HTTPS gateway that goes down and comes
// back, with an injected clock: unsigned probes marked X-Hub-Probe through the SSRF-pinned
// dispatcher, the quality they feed, suspension after LISTING_SUSPEND_AFTER_HOURS of failing rounds
// (and not one round earlier), recovery after LISTING_RECOVER_AFTER_HOURS of healthy ones, and
// each transition exactly once when two workers run the same round.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "undici";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { listingProbeTargets, probeListings, type ListingProbeOptions } from "@/lib/health/probe-listings.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { createPinnedDispatcher, type TargetPolicy } from "@/lib/origin/ssrf.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { selfSignedCertificate, startHttpsReceiver, type HttpsReceiver } from "@/tests/webhooks/https-receiver.ts";
import { createListing } from "./fixtures.ts";

const ctx = useTestContext();
const prisma = () => ctx().db.prisma;

// The gateway's name resolves to loopback, which only the allow-list (WEBHOOK_ALLOWED_TARGETS in
// production) lets the pinned dispatcher reach.
const loopbackPolicy: TargetPolicy = { resolver: async () => [{ address: "127.0.0.1", family: 4 }], allowedTargets: ["127.0.0.0/8"] };
let dispatcher: Agent;
beforeAll(() => {
  dispatcher = createPinnedDispatcher({ ...loopbackPolicy, ca: selfSignedCertificate().cert, connectionsPerOrigin: null, keepAliveTimeoutMs: 1 });
});
afterAll(async () => {
  await dispatcher?.close();
});

const start = new Date("2026-03-10T00:00:00Z");
let clock = start;
const at = (hours: number) => (clock = new Date(start.getTime() + hours * 3_600_000));

function round(options: Partial<ListingProbeOptions> = {}) {
  return probeListings({
    prisma: prisma(),
    dispatcher,
    log: createLogger("silent"),
    suspendAfterHours: 24,
    recoverAfterHours: 1,
    now: () => clock,
    timeoutMs: 2_000,
    ...options,
  });
}

const status = async (slug: string) => (await prisma().externalListing.findUniqueOrThrow({ where: { slug } })).status;

/** A listed gateway on loopback (https://localhost:<port>/base) with a priced endpoint answering 402. */
async function gatewayListing(slug: string): Promise<HttpsReceiver> {
  const gateway = await startHttpsReceiver();
  gateway.answer((req) =>
    req.url.startsWith("/base/v1/") ? { status: 402, headers: { "www-authenticate": 'L402 macaroon="m", invoice="i"' } } : { status: 404 },
  );
  await createListing(prisma(), {
    slug,
    gatewayUrl: `https://localhost:${gateway.port}/base`,
    endpoints: [
      { path: "/v1/quote/{symbol}", method: "GET", title: "Quote", pricingModel: "per_request", priceSats: 3 },
      { path: "/v1/ping", method: "POST", title: "Ping" },
    ],
  });
  return gateway;
}

describe("listing probes", () => {
  it("probes each declared endpoint unsigned, marked as a probe, relative to the gateway URL; the quality follows", async () => {
    const gateway = await gatewayListing("probed");
    try {
      at(0);
      const summary = await round();
      expect(summary).toMatchObject({ listings: 1, probed: 2, unhealthy: 0, suspended: [], recovered: [] });
      expect(gateway.received.map((r) => `${r.method} ${r.url}`).sort()).toEqual(["GET /base/v1/quote/probe", "POST /base/v1/ping"]);
      for (const request of gateway.received) {
        expect(request.headers["x-hub-probe"]).toBe("1");
        expect(Object.keys(request.headers).filter((h) => h.startsWith("x-gateway-") || h === "authorization")).toEqual([]);
      }
      const entry = await getDirectoryEntry({ prisma: prisma(), config: ctx().config, slug: "probed", now: clock });
      expect(entry?.quality).toMatchObject({ isHealthy: true, uptimePercentage: 100 });
      expect(entry?.quality.avgResponseTimeMs).not.toBeNull();
    } finally {
      await gateway.close();
    }
  });

  it("probes the base address when no endpoint is declared and skips items without a path", () => {
    expect(listingProbeTargets([])).toEqual([{ method: "GET", path: "/" }]);
    expect(listingProbeTargets([{ path: "v1/x" }, { title: "no path" }, "junk"])).toEqual([{ method: "GET", path: "/v1/x" }]);
  });

  it("suspends after 24 hours of failing rounds, not before, and approves again after an hour of healthy ones", async () => {
    let gateway = await gatewayListing("flaky");
    const port = gateway.port;
    await createListing(prisma(), { slug: "waiting", status: "pending", gatewayUrl: `https://localhost:${port}/other` });
    await createListing(prisma(), { slug: "refused", status: "rejected", gatewayUrl: `https://localhost:${port}/other` });
    try {
      at(0);
      await round();
      expect(await status("flaky")).toBe("approved");

      // The gateway goes down: the port refuses connections.
      await gateway.close();
      at(1);
      expect(await round()).toMatchObject({ unhealthy: 2, suspended: [] });
      const down = await getDirectoryEntry({ prisma: prisma(), config: ctx().config, slug: "flaky", now: clock });
      expect(down?.quality.isHealthy).toBe(false);
      for (const hours of [7, 13, 19, 24.9]) {
        at(hours);
        expect((await round()).suspended).toEqual([]);
        expect(await status("flaky")).toBe("approved");
      }
      at(25);
      expect((await round()).suspended).toEqual(["flaky"]);
      expect(await status("flaky")).toBe("suspended");
      // Suspended listings leave the directory but are still probed.
      expect(await getDirectoryEntry({ prisma: prisma(), config: ctx().config, slug: "flaky", now: clock })).toBeNull();
      at(26);
      expect(await round()).toMatchObject({ listings: 1, suspended: [], recovered: [] });

      // It comes back on the same port: healthy rounds for less than an hour change nothing.
      gateway = await startHttpsReceiver({ port });
      gateway.answer(() => ({ status: 402 }));
      at(27);
      expect((await round()).recovered).toEqual([]);
      // A failing round in between restarts the healthy run.
      gateway.answer(() => ({ status: 503 }));
      at(27.5);
      await round();
      gateway.answer(() => ({ status: 402 }));
      at(27.75);
      await round();
      at(28.5);
      expect((await round()).recovered).toEqual([]);
      expect(await status("flaky")).toBe("suspended");
      at(28.75);
      expect((await round()).recovered).toEqual(["flaky"]);
      expect(await status("flaky")).toBe("approved");
      expect(await getDirectoryEntry({ prisma: prisma(), config: ctx().config, slug: "flaky", now: clock })).not.toBeNull();
      // The other listings were never probed: every request went to the listed path.
      expect(gateway.received.every((r) => r.url.startsWith("/base/"))).toBe(true);
      expect([await status("waiting"), await status("refused")]).toEqual(["pending", "rejected"]);
    } finally {
      await gateway.close();
    }
  });

  it("leaves a listing suspended by someone else alone, even when its gateway is healthy", async () => {
    const gateway = await gatewayListing("held");
    try {
      await prisma().externalListing.update({ where: { slug: "held" }, data: { status: "suspended" } });
      at(0);
      expect(await round()).toMatchObject({ listings: 0, probed: 0 });
      at(5);
      await round();
      expect(await status("held")).toBe("suspended");
    } finally {
      await gateway.close();
    }
  });

  it("makes each transition once when two workers run the same round", async () => {
    const gateway = await gatewayListing("raced");
    const port = gateway.port;
    let back: HttpsReceiver | null = null;
    try {
      at(0);
      await round();
      await gateway.close();
      at(1);
      await round();
      at(25);
      const [a, b] = await Promise.all([round(), round()]);
      expect([...a.suspended, ...b.suspended]).toEqual(["raced"]);
      back = await startHttpsReceiver({ port });
      back.answer(() => ({ status: 200 }));
      at(26);
      await round();
      at(27);
      const [c, d] = await Promise.all([round(), round()]);
      expect([...c.recovered, ...d.recovered]).toEqual(["raced"]);
      expect(await status("raced")).toBe("approved");
    } finally {
      await back?.close();
    }
  });
});
