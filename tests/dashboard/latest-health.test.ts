// The endpoint list's health column: the newest probe per endpoint, scoped to the workspace.
import { describe, expect, it } from "vitest";
import { latestHealthByEndpoint } from "@/lib/endpoints/latest-health.ts";
import { createTenant } from "@/lib/tenants/create-tenant.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const t = useTestContext();

describe("latestHealthByEndpoint", () => {
  it("returns each endpoint's newest probe, nothing for unprobed endpoints, and never another workspace's", async () => {
    const { prisma } = t().db;
    const a = await createTenant(prisma, t().config.appSecret, { slug: "alpha", name: "Alpha", ownerEmail: "a@example.com" });
    const b = await createTenant(prisma, t().config.appSecret, { slug: "beta", name: "Beta", ownerEmail: "b@example.com" });
    const [up, down, never] = await Promise.all(
      ["/up", "/down", "/never"].map((path) => prisma.endpoint.create({ data: { tenantId: a.tenantId, method: "GET", path } })),
    );
    const other = await prisma.endpoint.create({ data: { tenantId: b.tenantId, method: "GET", path: "/up" } });
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 10, minute));
    await prisma.healthSample.createMany({
      data: [
        { tenantId: a.tenantId, endpointId: up.id, ok: false, statusCode: 502, latencyMs: 30, error: "bad gateway", checkedAt: at(0) },
        { tenantId: a.tenantId, endpointId: up.id, ok: true, statusCode: 200, latencyMs: 42, checkedAt: at(5) },
        { tenantId: a.tenantId, endpointId: down.id, ok: true, statusCode: 200, latencyMs: 10, checkedAt: at(0) },
        { tenantId: a.tenantId, endpointId: down.id, ok: false, statusCode: null, latencyMs: null, error: "timeout", checkedAt: at(5) },
        { tenantId: b.tenantId, endpointId: other.id, ok: true, statusCode: 200, latencyMs: 1, checkedAt: at(9) },
      ],
    });
    const latest = await latestHealthByEndpoint({ prisma, tenantId: a.tenantId, endpointIds: [up.id, down.id, never.id, other.id] });
    expect([...latest.keys()].sort()).toEqual([up.id, down.id].sort());
    expect(latest.get(up.id)).toEqual({ ok: true, statusCode: 200, latencyMs: 42, error: null, checkedAt: at(5) });
    expect(latest.get(down.id)).toEqual({ ok: false, statusCode: null, latencyMs: null, error: "timeout", checkedAt: at(5) });
    expect(await latestHealthByEndpoint({ prisma, tenantId: a.tenantId, endpointIds: [] })).toEqual(new Map());
  });
});
