// Endpoints of one tenant created at the same moment (double submits, parallel API clients): the
// listing and search triggers must queue them, never deadlock (PostgreSQL decides; PGlite has one
// connection and runs them in turn).
import { describe, expect, it } from "vitest";
import { createTenant } from "@/lib/tenants/create-tenant.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const t = useTestContext();

describe("concurrent endpoint writes", () => {
  it("creates, updates and deletes many endpoints of one tenant at once without a deadlock", async () => {
    const { prisma } = t().db;
    const { tenantId } = await createTenant(prisma, t().config.appSecret, { slug: "busy", name: "Busy", ownerEmail: "busy@example.com" });
    await prisma.wallet.create({ data: { tenantId, type: "dev", credentialsEnc: "sealed", nodePubkey: "02" + "ab".repeat(32) } });
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        prisma.endpoint.create({ data: { tenantId, method: "GET", path: `/v1/e${i}`, pricingModel: "per_request", priceSats: 1 } }),
      ),
    );
    expect((await prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).directoryListed).toBe(true);
    await Promise.all(
      created.map((e, i) =>
        i % 2 ? prisma.endpoint.update({ where: { id: e.id }, data: { isActive: false } }) : prisma.endpoint.delete({ where: { id: e.id } }),
      ),
    );
    expect(await prisma.endpoint.count({ where: { tenantId } })).toBe(6);
    expect((await prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).directoryListed).toBe(false);
  });
});
