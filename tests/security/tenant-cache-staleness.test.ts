// Issue 23, finding 12 (part): a tenant load that started before an invalidation must not store its
// result after it, or a suspension (or a price change) is ignored for the cache's 60 s TTL.
// Deterministic: the real database answers, and the test holds that answer back until it has
// changed the tenant and invalidated the cache.
import { describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/db/client.ts";
import { TenantCache } from "@/lib/gateway/tenant-cache.ts";
import { tenantFactory } from "@/prisma/factories.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const ctx = useTestContext();

/** The real client, whose tenant lookups return only once `release()` is called (for the lookups made while held). */
function heldPrisma(): { prisma: PrismaClient; hold(): void; release(): void; lookups(): number } {
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => {};
  let lookups = 0;
  const real = ctx().db.prisma;
  const prisma = {
    tenant: {
      findUnique: async (args: Parameters<PrismaClient["tenant"]["findUnique"]>[0]) => {
        lookups += 1;
        const held = gate;
        const row = await real.tenant.findUnique(args);
        await held;
        return row;
      },
    },
  } as unknown as PrismaClient;
  return {
    prisma,
    hold: () => void (gate = new Promise((resolve) => (open = resolve))),
    release: () => open(),
    lookups: () => lookups,
  };
}

describe("tenant cache and invalidation", () => {
  it("does not keep a load that raced an invalidation", async () => {
    const { tenantId, slug } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret);
    const held = heldPrisma();
    const cache = new TenantCache({ prisma: held.prisma, store: ctx().store, appSecret: ctx().config.appSecret });

    held.hold();
    const inFlight = cache.get(slug); // reads "active", answer held back
    await new Promise((r) => setTimeout(r, 50));
    await ctx().db.prisma.tenant.update({ where: { id: tenantId }, data: { status: "suspended" } });
    cache.invalidate(tenantId);
    held.release();
    expect((await inFlight)?.status).toBe("active"); // the request that started before may see the old state

    // Every later request sees the change, not the stale result of the load that raced it.
    expect((await cache.get(slug))?.status).toBe("suspended");
    expect(held.lookups()).toBe(2);
  });

  it("keeps a load that no invalidation raced (one lookup per TTL)", async () => {
    const { slug } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret);
    const held = heldPrisma();
    const cache = new TenantCache({ prisma: held.prisma, store: ctx().store, appSecret: ctx().config.appSecret });
    await Promise.all([cache.get(slug), cache.get(slug)]);
    await cache.get(slug);
    expect(held.lookups()).toBe(1);
  });

  it("lets a new load started after an invalidation share with later requests, whatever the old one does", async () => {
    const { tenantId, slug } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret);
    const held = heldPrisma();
    const cache = new TenantCache({ prisma: held.prisma, store: ctx().store, appSecret: ctx().config.appSecret });
    held.hold();
    const old = cache.get(slug);
    await new Promise((r) => setTimeout(r, 50));
    cache.invalidate(tenantId);
    const fresh = cache.get(slug); // a second lookup (the first no longer counts)
    held.release();
    await Promise.all([old, fresh]);
    await cache.get(slug); // answered by the fresh load's entry
    expect(held.lookups()).toBe(2);
  });
});
