// /api/tenants/:tenantId/api-keys: create (key shown once), list (never the key), revoke.
import { beforeEach, describe, expect, it } from "vitest";
import { DELETE as revoke } from "@/app/api/tenants/[tenantId]/api-keys/[id]/route.ts";
import { GET as list, POST as create } from "@/app/api/tenants/[tenantId]/api-keys/route.ts";
import { GET as getTenant } from "@/app/api/tenants/[tenantId]/route.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;
beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});
const path = () => `/tenants/${tenantId}/api-keys`;

describe("workspace API keys", () => {
  it("creates a key that works, shown only in the creation response", async () => {
    const res = await call(create, { method: "POST", path: path(), params: { tenantId }, token: key, body: { name: "CI" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: "CI",
      prefix: res.body.key.slice(0, 11),
      key: expect.stringMatching(/^hub_sk_/),
      createdAt: expect.any(String),
    });
    expect((await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, token: res.body.key })).status).toBe(200);

    const listed = await call(list, { method: "GET", path: path(), params: { tenantId }, token: key });
    expect(listed.status).toBe(200);
    expect(listed.body.apiKeys.map((k: { name: string }) => k.name).sort()).toEqual(["CI", "Default key"]);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(res.body.key);
    expect(text).not.toContain(key);
    expect(text).not.toMatch(/keyHash|"key"/);
  });

  it("revokes a key (204): it stops working and the list shows revokedAt", async () => {
    const created = (await call(create, { method: "POST", path: path(), params: { tenantId }, token: key, body: { name: "temp" } })).body;
    const del = await call(revoke, { method: "DELETE", path: `${path()}/${created.id}`, params: { tenantId, id: created.id }, token: key });
    expect(del.status).toBe(204);
    expect((await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, token: created.key })).status).toBe(401);
    const listed = await call(list, { method: "GET", path: path(), params: { tenantId }, token: key });
    expect(listed.body.apiKeys.find((k: { id: string }) => k.id === created.id).revokedAt).toEqual(expect.any(String));
    // Idempotent.
    expect((await call(revoke, { method: "DELETE", path: `${path()}/${created.id}`, params: { tenantId, id: created.id }, token: key })).status).toBe(204);
  });

  it("cannot revoke another workspace's key (404) and validates the name", async () => {
    const other = await seedTenant(api.test(), "other", "other@example.com");
    const otherKey = await api.test().db.prisma.apiKey.findFirstOrThrow({ where: { tenantId: other.tenantId } });
    const res = await call(revoke, { method: "DELETE", path: `${path()}/${otherKey.id}`, params: { tenantId, id: otherKey.id }, token: key });
    expect(res.status).toBe(404);
    expect((await api.test().db.prisma.apiKey.findUniqueOrThrow({ where: { id: otherKey.id } })).revokedAt).toBeNull();

    const bad = await call(create, { method: "POST", path: path(), params: { tenantId }, token: key, body: { name: "  " } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields[0].field).toBe("name");
    expect(await api.test().db.prisma.apiKey.count({ where: { tenantId } })).toBe(1);
  });
});
