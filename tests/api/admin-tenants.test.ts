// POST /api/admin/tenants: operator-only workspace creation.
import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/admin/tenants/route.ts";
import { hashToken } from "@/lib/crypto/secret-box.ts";
import { registerServerContext } from "@/lib/server-context.ts";
import { ADMIN_TOKEN, call, useApiContext } from "./helpers.ts";

const api = useApiContext();
const create = (body: unknown, token: string | null = ADMIN_TOKEN) => call(POST, { method: "POST", path: "/admin/tenants", token: token ?? undefined, body });
const valid = { slug: "acme-maps", name: "Acme Maps", ownerEmail: "Owner@Example.com", description: "Routing", tags: ["Maps", " routing ", "maps"] };

describe("POST /api/admin/tenants", () => {
  it("creates the tenant, its owner and a first API key (201)", async () => {
    const res = await create(valid);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ tenantId: expect.any(String), slug: "acme-maps", apiKey: expect.stringMatching(/^hub_sk_/) });
    const { prisma } = api.test().db;
    const tenant = await prisma.tenant.findUniqueOrThrow({
      where: { id: res.body.tenantId },
      include: { memberships: { include: { user: true } }, apiKeys: true },
    });
    expect(tenant.tags).toEqual(["maps", "routing"]);
    expect(tenant.memberships).toMatchObject([{ role: "owner", user: { email: "owner@example.com" } }]);
    expect(tenant.apiKeys).toMatchObject([{ keyHash: hashToken(res.body.apiKey) }]);
  });

  it("refuses a missing or wrong admin token (401) and hides the route without one configured (404)", async () => {
    expect((await create(valid, null)).status).toBe(401);
    const wrong = await create(valid, "not-the-admin-token-at-all");
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("unauthorized");

    const server = api.server();
    registerServerContext({ ...server, config: { ...server.config, hubAdminToken: null } });
    try {
      const hidden = await create(valid);
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe("not_found");
    } finally {
      registerServerContext(server);
    }
    expect(await api.test().db.prisma.tenant.count()).toBe(0);
  });

  it("stores the trial length: 30 days by default, or the operator's trialDays (0 = none); refuses a bad one naming it", async () => {
    const { prisma } = api.test().db;
    const plain = await create(valid);
    const none = await create({ ...valid, slug: "no-trial", trialDays: 0 });
    const long = await create({ ...valid, slug: "long-trial", trialDays: 90 });
    const days = async (res: { body: { tenantId: string } }) => (await prisma.tenant.findUniqueOrThrow({ where: { id: res.body.tenantId } })).trialDays;
    expect([await days(plain), await days(none), await days(long)]).toEqual([30, 0, 90]);
    for (const trialDays of [-1, 1.5, "30"]) {
      const bad = await create({ ...valid, slug: "bad-trial", trialDays });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.body)).toContain("trialDays");
    }
  });

  it("answers 409 for a taken slug", async () => {
    expect((await create(valid)).status).toBe(201);
    const dup = await create({ ...valid, ownerEmail: "other@example.com" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("conflict");
    expect(await api.test().db.prisma.tenant.count()).toBe(1);
  });

  it.each([
    ["too short", "ab"],
    ["uppercase", "Acme"],
    ["leading hyphen", "-acme"],
    ["trailing hyphen", "acme-"],
    ["underscore", "ac_me"],
    ["reserved", "admin"],
    ["reserved gw", "gw"],
    ["too long", "a".repeat(64)],
  ])("refuses an invalid slug (%s) with 422 naming slug", async (_label, slug) => {
    const res = await create({ ...valid, slug });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("validation_failed");
    expect(new Set(res.body.error.details.fields.map((f: { field: string }) => f.field))).toEqual(new Set(["slug"]));
    expect(await api.test().db.prisma.tenant.count()).toBe(0);
  });

  it("validates e-mail, tags and unknown fields, naming each", async () => {
    const res = await create({ ...valid, ownerEmail: "nope", tags: Array.from({ length: 11 }, (_, i) => `t${i}`), plan: "gold" });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(["ownerEmail", "plan", "tags"]);
    const long = await create({ ...valid, tags: ["x".repeat(33)] });
    expect(long.body.error.details.fields[0].field).toBe("tags.0");
  });

  it("answers 400 invalid_json for a malformed body", async () => {
    const res = await create("{not json");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: "invalid_json", message: expect.any(String) } });
  });
});
