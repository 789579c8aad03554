// GET|PATCH /api/tenants/:tenantId
import { beforeEach, describe, expect, it } from "vitest";
import { GET, PATCH } from "@/app/api/tenants/[tenantId]/route.ts";
import { configChangedChannel } from "@/lib/tenants/config-events.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;
beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});
const patch = (body: unknown) => call(PATCH, { method: "PATCH", path: `/tenants/${tenantId}`, params: { tenantId }, token: key, body });

describe("/api/tenants/:tenantId", () => {
  it("returns the profile with its gateway address and no secrets", async () => {
    const res = await call(GET, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, token: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tenantId, slug: "acme", name: "acme API", status: "active", listed: true, trialStartedAt: null });
    expect(res.body.gatewayUrl).toContain("acme");
    expect(JSON.stringify(res.body)).not.toMatch(/secret|Enc/i);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("updates name, description, tags, originUrl and listed, and tells the gateways", async () => {
    const messages: string[] = [];
    const unsubscribe = await api.test().store.subscribe(configChangedChannel, (m) => messages.push(m));
    try {
      const res = await patch({ name: "Acme Maps", description: "Routes", tags: ["Maps", "EU"], originUrl: "https://origin.example.com/api", listed: false });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        name: "Acme Maps",
        description: "Routes",
        tags: ["maps", "eu"],
        originUrl: "https://origin.example.com/api",
        listed: false,
      });
      await expect.poll(() => messages).toContainEqual(JSON.stringify({ tenantId }));
    } finally {
      await unsubscribe();
    }
    const cleared = await patch({ originUrl: null });
    expect(cleared.body).toMatchObject({ originUrl: null, name: "Acme Maps" });
  });

  it("refuses invalid values and fields that cannot change, naming each", async () => {
    const res = await patch({ originUrl: "ftp://origin.example.com", name: "", slug: "renamed" });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(["name", "originUrl", "slug"]);
    const row = await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } });
    expect(row).toMatchObject({ slug: "acme", name: "acme API", originUrl: null });
  });
});
