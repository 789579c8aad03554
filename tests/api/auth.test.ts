// withWorkspace: workspace API keys and signed-in members, scoped to :tenantId.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { DELETE as revokeKey } from "@/app/api/tenants/[tenantId]/api-keys/[id]/route.ts";
import { GET as getTenant, PATCH as patchTenant } from "@/app/api/tenants/[tenantId]/route.ts";
import { GET as getSecrets } from "@/app/api/tenants/[tenantId]/secrets/route.ts";
import { getSignedInUserId } from "@/lib/auth/next-auth.ts";
import { hashToken } from "@/lib/crypto/secret-box.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

// The session lookup is next-auth's; here it is replaced so the wrapper's membership rules are tested.
vi.mock("@/lib/auth/next-auth.ts", () => ({ getSignedInUserId: vi.fn(async () => null) }));
const signedInAs = (userId: string | null) => vi.mocked(getSignedInUserId).mockResolvedValue(userId);

const api = useApiContext();
const SESSION_COOKIE = { cookie: "authjs.session-token=opaque-session-token" };

describe("withWorkspace with API keys", () => {
  it("answers 401 without any credential", async () => {
    const { tenantId } = await seedTenant(api.test());
    const res = await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    expect(getSignedInUserId).not.toHaveBeenCalled();
  });

  it("answers 401 for an unknown key and 404 for another workspace's key", async () => {
    const acme = await seedTenant(api.test(), "acme");
    const other = await seedTenant(api.test(), "other", "other@example.com");
    const params = { tenantId: acme.tenantId };
    expect((await call(getTenant, { method: "GET", path: `/tenants/${acme.tenantId}`, params, token: "hub_sk_unknown" })).status).toBe(401);
    const foreign = await call(getTenant, { method: "GET", path: `/tenants/${acme.tenantId}`, params, token: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
    // A non-existent workspace id looks exactly the same.
    const missing = await call(getTenant, { method: "GET", path: "/tenants/nope", params: { tenantId: "nope" }, token: other.apiKey });
    expect(missing).toMatchObject({ status: 404, body: foreign.body });
  });

  it("stops accepting a revoked key immediately", async () => {
    const { tenantId, apiKey } = await seedTenant(api.test());
    const keyRow = await api.test().db.prisma.apiKey.findUniqueOrThrow({ where: { keyHash: hashToken(apiKey) } });
    const path = `/tenants/${tenantId}`;
    expect((await call(getTenant, { method: "GET", path, params: { tenantId }, token: apiKey })).status).toBe(200);
    const revoked = await call(revokeKey, { method: "DELETE", path: `${path}/api-keys/${keyRow.id}`, params: { tenantId, id: keyRow.id }, token: apiKey });
    expect(revoked.status).toBe(204);
    const after = await call(getTenant, { method: "GET", path, params: { tenantId }, token: apiKey });
    expect(after.status).toBe(401);
  });

  it("records lastUsedAt at most once a minute", async () => {
    const { tenantId, apiKey } = await seedTenant(api.test());
    const { prisma } = api.test().db;
    const where = { keyHash: hashToken(apiKey) };
    expect((await prisma.apiKey.findUniqueOrThrow({ where })).lastUsedAt).toBeNull();
    await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, token: apiKey });
    const first = (await prisma.apiKey.findUniqueOrThrow({ where })).lastUsedAt;
    expect(first).toBeInstanceOf(Date);
    await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, token: apiKey });
    expect((await prisma.apiKey.findUniqueOrThrow({ where })).lastUsedAt).toEqual(first);
    await prisma.apiKey.update({ where, data: { lastUsedAt: new Date(Date.now() - 61_000) } });
    await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, token: apiKey });
    expect((await prisma.apiKey.findUniqueOrThrow({ where })).lastUsedAt!.getTime()).toBeGreaterThan(Date.now() - 5_000);
  });
});

describe("withWorkspace with a signed-in session", () => {
  beforeEach(() => {
    vi.mocked(getSignedInUserId).mockReset();
  });

  async function owner() {
    const t = api.test();
    const created = await seedTenant(t);
    const user = await t.db.prisma.user.findUniqueOrThrow({ where: { email: "owner@example.com" } });
    return { ...created, userId: user.id };
  }

  it("lets a member in and keeps non-members out with 404", async () => {
    const { tenantId, userId } = await owner();
    signedInAs(userId);
    const ok = await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, headers: SESSION_COOKIE });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(tenantId);

    const stranger = await api.test().db.prisma.user.create({ data: { email: "stranger@example.com" } });
    signedInAs(stranger.id);
    const denied = await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, headers: SESSION_COOKIE });
    expect(denied.status).toBe(404);
  });

  it("answers 401 when the cookie holds no valid session", async () => {
    const { tenantId } = await owner();
    signedInAs(null);
    const res = await call(getTenant, { method: "GET", path: `/tenants/${tenantId}`, params: { tenantId }, headers: SESSION_COOKIE });
    expect(res.status).toBe(401);
  });

  it("keeps owner-only routes from plain members (403)", async () => {
    const { tenantId } = await owner();
    const { prisma } = api.test().db;
    const member = await prisma.user.create({ data: { email: "member@example.com" } });
    await prisma.membership.create({ data: { tenantId, userId: member.id, role: "member" } });
    signedInAs(member.id);
    const res = await call(getSecrets, { method: "GET", path: `/tenants/${tenantId}/secrets`, params: { tenantId }, headers: SESSION_COOKIE });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("forbidden");
  });

  it("refuses cross-site writes made with the cookie", async () => {
    const { tenantId, userId } = await owner();
    signedInAs(userId);
    const path = `/tenants/${tenantId}`;
    const evil = await call(patchTenant, {
      method: "PATCH",
      path,
      params: { tenantId },
      body: { name: "pwned" },
      headers: { ...SESSION_COOKIE, origin: "https://evil.example" },
    });
    expect(evil.status).toBe(403);
    const same = await call(patchTenant, {
      method: "PATCH",
      path,
      params: { tenantId },
      body: { name: "Renamed" },
      headers: { ...SESSION_COOKIE, origin: "http://127.0.0.1:3000" },
    });
    expect(same.status).toBe(200);
    expect(same.body.name).toBe("Renamed");
  });
});
