// A member could read the owner-only gateway secret (issue 23, finding 9): PATCH /api/tenants/:id
// took `originUrl` from any member, and "Test connection" then sent a signed probe carrying
// X-Gateway-Secret to the member's server. Where the gateway secret and signed requests go is the
// owners' decision: members get 403 naming the rule; owners and workspace API keys may change it.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as originTest } from "@/app/api/tenants/[tenantId]/origin/test/route.ts";
import { PATCH as patchTenant } from "@/app/api/tenants/[tenantId]/route.ts";
import { getSignedInUserId } from "@/lib/auth/next-auth.ts";
import { getOriginSecrets } from "@/lib/tenants/get-origin-secrets.ts";
import { json, startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";
import { call, seedTenant, useApiContext } from "@/tests/api/helpers.ts";

// The session lookup is next-auth's; the membership and role checks under test are ours.
vi.mock("@/lib/auth/next-auth.ts", () => ({ getSignedInUserId: vi.fn(async () => null) }));
const signedInAs = (userId: string) => vi.mocked(getSignedInUserId).mockResolvedValue(userId);
const SESSION = { cookie: "authjs.session-token=opaque", origin: "http://127.0.0.1:3000" };

const api = useApiContext();
let providerOrigin: TestOrigin;
let attacker: TestOrigin;
beforeEach(async () => {
  providerOrigin = await startTestOrigin();
  providerOrigin.route("/", json(200, { ok: true }));
  attacker = await startTestOrigin();
  attacker.route("/", json(200, { ok: true }));
});
afterEach(async () => {
  await Promise.all([providerOrigin.close(), attacker.close()]);
});

/** A workspace with a saved origin, its owner, and a plain member. */
async function workspaceWithMember() {
  const t = api.test();
  const { prisma } = t.db;
  const { tenantId, apiKey } = await seedTenant(t);
  await prisma.tenant.update({ where: { id: tenantId }, data: { originUrl: providerOrigin.url } });
  const owner = await prisma.user.findUniqueOrThrow({ where: { email: "owner@example.com" } });
  const member = await prisma.user.create({ data: { email: "member@example.com" } });
  await prisma.membership.create({ data: { tenantId, userId: member.id, role: "member" } });
  return { tenantId, apiKey, ownerId: owner.id, memberId: member.id };
}

describe("who may change where the gateway secret goes", () => {
  it("refuses a member's origin change with 403 naming the rule, and the secret stays with the provider", async () => {
    const { tenantId, memberId } = await workspaceWithMember();
    signedInAs(memberId);
    const path = `/tenants/${tenantId}`;
    const res = await call(patchTenant, { method: "PATCH", path, params: { tenantId }, body: { originUrl: attacker.url }, headers: SESSION });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("forbidden");
    expect(res.body.error.message).toMatch(/owners/i);
    expect(res.body.error.message).toMatch(/originUrl|origin/);
    expect((await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).originUrl).toBe(providerOrigin.url);
    // Clearing the origin (which stops the provider's traffic) is a change as well.
    const cleared = await call(patchTenant, { method: "PATCH", path, params: { tenantId }, body: { originUrl: null }, headers: SESSION });
    expect(cleared.status).toBe(403);
    // Nor can it be slipped in beside fields a member may change: nothing of the request is applied.
    const mixed = await call(patchTenant, {
      method: "PATCH",
      path,
      params: { tenantId },
      body: { name: "Renamed", originUrl: attacker.url },
      headers: SESSION,
    });
    expect(mixed.status).toBe(403);
    expect((await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).name).toBe("acme API");

    // "Test connection" (open to members) probes the saved origin only: the attacker sees nothing.
    const probe = await call(originTest, { method: "POST", path: `${path}/origin/test`, params: { tenantId }, headers: SESSION });
    expect(probe.status).toBe(200);
    expect(attacker.received).toHaveLength(0);
    const secrets = await getOriginSecrets({ prisma: api.test().db.prisma, appSecret: api.test().config.appSecret, tenantId });
    expect(providerOrigin.received.at(-1)?.headers["x-gateway-secret"]).toBe(secrets.gatewaySecret);
  });

  it("still lets a member edit the profile", async () => {
    const { tenantId, memberId } = await workspaceWithMember();
    signedInAs(memberId);
    const res = await call(patchTenant, {
      method: "PATCH",
      path: `/tenants/${tenantId}`,
      params: { tenantId },
      body: { name: "Renamed", description: "New words", tags: ["x"], listed: false },
      headers: SESSION,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Renamed", originUrl: providerOrigin.url });
  });

  it("lets an owner and a workspace API key change the origin", async () => {
    const { tenantId, apiKey, ownerId } = await workspaceWithMember();
    signedInAs(ownerId);
    const path = `/tenants/${tenantId}`;
    const byOwner = await call(patchTenant, { method: "PATCH", path, params: { tenantId }, body: { originUrl: `${providerOrigin.url}/v2` }, headers: SESSION });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.originUrl).toBe(`${providerOrigin.url}/v2`);
    const byKey = await call(patchTenant, { method: "PATCH", path, params: { tenantId }, body: { originUrl: providerOrigin.url }, token: apiKey });
    expect(byKey.status).toBe(200);
    expect(byKey.body.originUrl).toBe(providerOrigin.url);
  });
});
