// Workspaces from the dashboard: the live slug check, creation by a signed-in user (owner), the
// user's workspace list, members and invitations with the one-owner rule, and cross-workspace
// authorization: a member of workspace A can never read or change workspace B through any of
// these routes (nor with A's API key).
import { beforeEach, describe, expect, it, vi } from "vitest";
import { DELETE as deleteInvitation } from "@/app/api/tenants/[tenantId]/invitations/[invitationId]/route.ts";
import { DELETE as removeMemberRoute, PATCH as patchMember } from "@/app/api/tenants/[tenantId]/members/[userId]/route.ts";
import { GET as listMembersRoute, POST as inviteRoute } from "@/app/api/tenants/[tenantId]/members/route.ts";
import { POST as originTestRoute } from "@/app/api/tenants/[tenantId]/origin/test/route.ts";
import { GET as getTenantRoute, PATCH as patchTenantRoute } from "@/app/api/tenants/[tenantId]/route.ts";
import { GET as listTenantsRoute, POST as createTenantRoute } from "@/app/api/tenants/route.ts";
import { GET as slugRoute } from "@/app/api/tenants/slug-availability/route.ts";
import { getSignedInUserId } from "@/lib/auth/next-auth.ts";
import { acceptInvitations, changeMemberRole } from "@/lib/workspaces/members.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

// The session lookup is next-auth's (it needs a Next request); the routes' own rules are tested.
vi.mock("@/lib/auth/next-auth.ts", () => ({ getSignedInUserId: vi.fn(async () => null) }));
const signedInAs = (userId: string | null) => vi.mocked(getSignedInUserId).mockResolvedValue(userId);

const api = useApiContext();
const COOKIE = { cookie: "authjs.session-token=opaque" };

async function user(email: string) {
  return api.test().db.prisma.user.create({ data: { email } });
}

async function createAs(userId: string, body: unknown) {
  signedInAs(userId);
  return call(createTenantRoute, { method: "POST", path: "/tenants", body, headers: COOKIE });
}

beforeEach(() => vi.mocked(getSignedInUserId).mockReset());

describe("slug availability", () => {
  it("applies the API's format rules and sees taken slugs", async () => {
    const alice = await user("alice@example.com");
    await seedTenant(api.test(), "taken");
    signedInAs(alice.id);
    const check = async (slug: string) =>
      (await call(slugRoute, { method: "GET", path: `/tenants/slug-availability?slug=${encodeURIComponent(slug)}`, headers: COOKIE })).body;
    expect(await check("fresh-api")).toEqual({ slug: "fresh-api", available: true });
    expect(await check("taken")).toEqual({ slug: "taken", available: false, reason: "is already taken" });
    expect(await check("dashboard")).toMatchObject({ available: false, reason: "is reserved; choose another slug" });
    expect(await check("ab")).toMatchObject({ available: false, reason: "must be at least 3 characters" });
    expect(await check("-bad-")).toMatchObject({ available: false, reason: expect.stringContaining("lowercase letters") });
    expect(await check("Upper")).toMatchObject({ available: false });
  });

  it("needs a signed-in user", async () => {
    signedInAs(null);
    const res = await call(slugRoute, { method: "GET", path: "/tenants/slug-availability?slug=abc", headers: COOKIE });
    expect(res.status).toBe(401);
  });
});

describe("creating and listing workspaces", () => {
  it("makes the signed-in user the owner, several workspaces each, and no API key", async () => {
    const alice = await user("alice@example.com");
    const first = await createAs(alice.id, { slug: "alpha", name: "Alpha", description: "First", tags: ["Maps", "maps", "weather"] });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      slug: "alpha",
      name: "Alpha",
      description: "First",
      tags: ["maps", "weather"],
      gatewayUrl: expect.stringContaining("alpha"),
    });
    expect(first.body).not.toHaveProperty("gatewaySecretEnc");
    expect((await createAs(alice.id, { slug: "beta", name: "Beta" })).status).toBe(201);
    const { prisma } = api.test().db;
    expect(await prisma.membership.findMany({ where: { userId: alice.id }, select: { role: true } })).toEqual([{ role: "owner" }, { role: "owner" }]);
    expect(await prisma.apiKey.count()).toBe(0);
    const list = await call(listTenantsRoute, { method: "GET", path: "/tenants", headers: COOKIE });
    expect(list.body.workspaces.map((w: { slug: string; role: string }) => [w.slug, w.role])).toEqual([
      ["alpha", "owner"],
      ["beta", "owner"],
    ]);
  });

  it("names the field on a taken slug (409) and on invalid input (422)", async () => {
    const alice = await user("alice@example.com");
    await createAs(alice.id, { slug: "alpha", name: "Alpha" });
    const taken = await createAs(alice.id, { slug: "alpha", name: "Again" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.fields).toEqual([{ field: "slug", message: "is already taken" }]);
    const invalid = await createAs(alice.id, { slug: "No", name: "" });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(
      ["name", "slug", "slug"].slice(0, invalid.body.error.details.fields.length).sort(),
    );
  });

  it("refuses cross-site creation with the cookie", async () => {
    const alice = await user("alice@example.com");
    signedInAs(alice.id);
    const res = await call(createTenantRoute, {
      method: "POST",
      path: "/tenants",
      body: { slug: "alpha", name: "A" },
      headers: { ...COOKIE, origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
  });
});

describe("members and invitations", () => {
  async function workspace() {
    const owner = await user("owner@example.com");
    const created = await createAs(owner.id, { slug: "acme", name: "Acme" });
    return { owner, tenantId: created.body.id as string };
  }
  const params = (tenantId: string, extra: Record<string, string> = {}) => ({ tenantId, ...extra });

  it("adds an existing user at once and invites an unknown address until its first sign-in", async () => {
    const { owner, tenantId } = await workspace();
    const bob = await user("bob@example.com");
    signedInAs(owner.id);
    const added = await call(inviteRoute, {
      method: "POST",
      path: `/tenants/${tenantId}/members`,
      params: params(tenantId),
      body: { email: "BOB@example.com" },
      headers: COOKIE,
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ kind: "member", member: { userId: bob.id, role: "member", email: "bob@example.com" } });
    const again = await call(inviteRoute, {
      method: "POST",
      path: `/tenants/${tenantId}/members`,
      params: params(tenantId),
      body: { email: "bob@example.com" },
      headers: COOKIE,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details.fields[0].field).toBe("email");
    const invited = await call(inviteRoute, {
      method: "POST",
      path: `/tenants/${tenantId}/members`,
      params: params(tenantId),
      body: { email: "carol@example.com", role: "owner" },
      headers: COOKIE,
    });
    expect(invited.body).toMatchObject({ kind: "invitation", invitation: { email: "carol@example.com", role: "owner" } });
    const bad = await call(inviteRoute, {
      method: "POST",
      path: `/tenants/${tenantId}/members`,
      params: params(tenantId),
      body: { email: "nope" },
      headers: COOKIE,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields[0]).toMatchObject({ field: "email" });

    const list = await call(listMembersRoute, { method: "GET", path: `/tenants/${tenantId}/members`, params: params(tenantId), headers: COOKIE });
    expect(list.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ["owner@example.com", "owner"],
      ["bob@example.com", "member"],
    ]);
    expect(list.body.invitations.map((i: { email: string }) => i.email)).toEqual(["carol@example.com"]);

    // Carol signs in for the first time (Auth.js signIn event): the invitation becomes a membership.
    const carol = await user("carol@example.com");
    expect(await acceptInvitations({ prisma: api.test().db.prisma, userId: carol.id, email: "Carol@example.com" })).toBe(1);
    const after = await call(listMembersRoute, { method: "GET", path: `/tenants/${tenantId}/members`, params: params(tenantId), headers: COOKIE });
    expect(after.body.invitations).toEqual([]);
    expect(after.body.members.find((m: { userId: string }) => m.userId === carol.id).role).toBe("owner");
    expect(await acceptInvitations({ prisma: api.test().db.prisma, userId: carol.id, email: "carol@example.com" })).toBe(0);
  });

  it("lets only owners manage members, keeps one owner, and lets anyone leave", async () => {
    const { owner, tenantId } = await workspace();
    const bob = await user("bob@example.com");
    const dave = await user("dave@example.com");
    const { prisma } = api.test().db;
    await prisma.membership.createMany({
      data: [
        { tenantId, userId: bob.id, role: "member" },
        { tenantId, userId: dave.id, role: "member" },
      ],
    });

    signedInAs(bob.id);
    const path = (id: string) => `/tenants/${tenantId}/members/${id}`;
    expect(
      (
        await call(inviteRoute, {
          method: "POST",
          path: `/tenants/${tenantId}/members`,
          params: params(tenantId),
          body: { email: "x@example.com" },
          headers: COOKIE,
        })
      ).status,
    ).toBe(403);
    expect(
      (await call(patchMember, { method: "PATCH", path: path(bob.id), params: params(tenantId, { userId: bob.id }), body: { role: "owner" }, headers: COOKIE }))
        .status,
    ).toBe(403);
    expect(
      (await call(removeMemberRoute, { method: "DELETE", path: path(dave.id), params: params(tenantId, { userId: dave.id }), headers: COOKIE })).status,
    ).toBe(403);
    expect(await prisma.membership.count({ where: { tenantId } })).toBe(3);

    signedInAs(owner.id);
    const lastOwner = await call(patchMember, {
      method: "PATCH",
      path: path(owner.id),
      params: params(tenantId, { userId: owner.id }),
      body: { role: "member" },
      headers: COOKIE,
    });
    expect(lastOwner.status).toBe(409);
    expect(
      (await call(removeMemberRoute, { method: "DELETE", path: path(owner.id), params: params(tenantId, { userId: owner.id }), headers: COOKIE })).status,
    ).toBe(409);
    const promoted = await call(patchMember, {
      method: "PATCH",
      path: path(bob.id),
      params: params(tenantId, { userId: bob.id }),
      body: { role: "owner" },
      headers: COOKIE,
    });
    expect(promoted.body).toMatchObject({ userId: bob.id, role: "owner" });
    expect(
      (
        await call(patchMember, {
          method: "PATCH",
          path: path("nobody"),
          params: params(tenantId, { userId: "nobody" }),
          body: { role: "member" },
          headers: COOKIE,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(patchMember, {
          method: "PATCH",
          path: path(owner.id),
          params: params(tenantId, { userId: owner.id }),
          body: { role: "member" },
          headers: COOKIE,
        })
      ).status,
    ).toBe(200);

    signedInAs(dave.id);
    expect(
      (await call(removeMemberRoute, { method: "DELETE", path: path(dave.id), params: params(tenantId, { userId: dave.id }), headers: COOKIE })).status,
    ).toBe(204);
    signedInAs(bob.id);
    expect(
      (await call(removeMemberRoute, { method: "DELETE", path: path(owner.id), params: params(tenantId, { userId: owner.id }), headers: COOKIE })).status,
    ).toBe(204);
    expect(await prisma.membership.findMany({ where: { tenantId }, select: { userId: true, role: true } })).toEqual([{ userId: bob.id, role: "owner" }]);
  });

  it("never loses the last owner to two concurrent demotions", async () => {
    const { owner, tenantId } = await workspace();
    const bob = await user("bob@example.com");
    const { prisma } = api.test().db;
    await prisma.membership.create({ data: { tenantId, userId: bob.id, role: "owner" } });
    // Straight at the lib function: the row lock, not the route, is what is under test here.
    const demote = (userId: string) => changeMemberRole({ prisma, tenantId, userId, role: "member" });
    const results = await Promise.allSettled([demote(owner.id), demote(bob.id)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "conflict" } });
    expect(await prisma.membership.count({ where: { tenantId, role: "owner" } })).toBe(1);
  });

  it("withdraws invitations (owners)", async () => {
    const { owner, tenantId } = await workspace();
    signedInAs(owner.id);
    const invited = await call(inviteRoute, {
      method: "POST",
      path: `/tenants/${tenantId}/members`,
      params: params(tenantId),
      body: { email: "zed@example.com" },
      headers: COOKIE,
    });
    const id = invited.body.invitation.id;
    const res = await call(deleteInvitation, {
      method: "DELETE",
      path: `/tenants/${tenantId}/invitations/${id}`,
      params: params(tenantId, { invitationId: id }),
      headers: COOKIE,
    });
    expect(res.status).toBe(204);
    expect(await api.test().db.prisma.invitation.count()).toBe(0);
  });
});

describe("cross-workspace authorization", () => {
  it("keeps a member of A out of B on every route, and A's ids out of B's data", async () => {
    const alice = await user("alice@example.com");
    const bobOwner = await user("bob@example.com");
    const a = (await createAs(alice.id, { slug: "space-a", name: "A" })).body.id as string;
    const b = (await createAs(bobOwner.id, { slug: "space-b", name: "B", description: "B's" })).body.id as string;
    signedInAs(bobOwner.id);
    const bInvite = await call(inviteRoute, {
      method: "POST",
      path: `/tenants/${b}/members`,
      params: { tenantId: b },
      body: { email: "pending@example.com" },
      headers: COOKIE,
    });
    const bInvitationId = bInvite.body.invitation.id as string;

    // Alice, signed in, aims every route at B: the answer is always 404 (B's existence is not revealed).
    signedInAs(alice.id);
    const onB = [
      () => call(getTenantRoute, { method: "GET", path: `/tenants/${b}`, params: { tenantId: b }, headers: COOKIE }),
      () => call(patchTenantRoute, { method: "PATCH", path: `/tenants/${b}`, params: { tenantId: b }, body: { name: "pwned" }, headers: COOKIE }),
      () => call(listMembersRoute, { method: "GET", path: `/tenants/${b}/members`, params: { tenantId: b }, headers: COOKIE }),
      () =>
        call(inviteRoute, {
          method: "POST",
          path: `/tenants/${b}/members`,
          params: { tenantId: b },
          body: { email: "alice@example.com", role: "owner" },
          headers: COOKIE,
        }),
      () =>
        call(patchMember, {
          method: "PATCH",
          path: `/tenants/${b}/members/${alice.id}`,
          params: { tenantId: b, userId: alice.id },
          body: { role: "owner" },
          headers: COOKIE,
        }),
      () =>
        call(removeMemberRoute, {
          method: "DELETE",
          path: `/tenants/${b}/members/${bobOwner.id}`,
          params: { tenantId: b, userId: bobOwner.id },
          headers: COOKIE,
        }),
      () =>
        call(deleteInvitation, {
          method: "DELETE",
          path: `/tenants/${b}/invitations/${bInvitationId}`,
          params: { tenantId: b, invitationId: bInvitationId },
          headers: COOKIE,
        }),
      () => call(originTestRoute, { method: "POST", path: `/tenants/${b}/origin/test`, params: { tenantId: b }, headers: COOKIE }),
    ];
    for (const attempt of onB) {
      const res = await attempt();
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    // Through her own workspace's routes, B's member and invitation ids lead nowhere.
    expect(
      (
        await call(removeMemberRoute, {
          method: "DELETE",
          path: `/tenants/${a}/members/${bobOwner.id}`,
          params: { tenantId: a, userId: bobOwner.id },
          headers: COOKIE,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(patchMember, {
          method: "PATCH",
          path: `/tenants/${a}/members/${bobOwner.id}`,
          params: { tenantId: a, userId: bobOwner.id },
          body: { role: "member" },
          headers: COOKIE,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(deleteInvitation, {
          method: "DELETE",
          path: `/tenants/${a}/invitations/${bInvitationId}`,
          params: { tenantId: a, invitationId: bInvitationId },
          headers: COOKIE,
        })
      ).status,
    ).toBe(404);
    // Her workspace list shows A only.
    const list = await call(listTenantsRoute, { method: "GET", path: "/tenants", headers: COOKIE });
    expect(list.body.workspaces.map((w: { id: string }) => w.id)).toEqual([a]);

    // A's API key is no key for B either.
    const aKey = await seedTenant(api.test(), "space-c", "alice@example.com");
    const withKey = await call(listMembersRoute, { method: "GET", path: `/tenants/${b}/members`, params: { tenantId: b }, token: aKey.apiKey });
    expect(withKey.status).toBe(404);

    // B is untouched.
    const { prisma } = api.test().db;
    expect(await prisma.tenant.findUniqueOrThrow({ where: { id: b }, select: { name: true } })).toEqual({ name: "B" });
    expect(await prisma.membership.findMany({ where: { tenantId: b }, select: { userId: true, role: true } })).toEqual([
      { userId: bobOwner.id, role: "owner" },
    ]);
    expect(await prisma.invitation.count({ where: { tenantId: b } })).toBe(1);
  });
});
