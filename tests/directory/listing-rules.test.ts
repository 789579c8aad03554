// Who appears in the public directory: active, listed, has a wallet, has an active endpoint.
// Each rule is checked through every reader (list, detail, tags, sitemap slugs), because the rule
// is written twice (Prisma filter and SQL fragment) in lib/directory/listing-rule.ts.
import { describe, expect, it } from "vitest";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { listDirectory } from "@/lib/directory/list-directory.ts";
import { listDirectorySlugs } from "@/lib/directory/list-directory-slugs.ts";
import { listDirectoryTags } from "@/lib/directory/list-tags.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { createApi } from "./fixtures.ts";

const ctx = useTestContext();

async function visibleEverywhere(slug: string): Promise<boolean[]> {
  const { prisma } = ctx().db;
  const list = await listDirectory({ prisma, config: ctx().config, page: 1, limit: 50, sort: "relevance" });
  const detail = await getDirectoryEntry({ prisma, config: ctx().config, slug });
  const tags = await listDirectoryTags({ prisma });
  const slugs = await listDirectorySlugs({ prisma });
  return [list.entries.some((e) => e.slug === slug), detail !== null, tags.some((t) => t.tag === `tag-${slug}`), slugs.some((s) => s.slug === slug)];
}

describe("directory listing rules", () => {
  it("lists an active, listed tenant with a wallet and an active endpoint", async () => {
    await createApi(ctx().db.prisma, ctx().config.appSecret, { slug: "shown", tags: ["tag-shown"] });
    expect(await visibleEverywhere("shown")).toEqual([true, true, true, true]);
  });

  it.each([
    ["unlisted", { listed: false }],
    ["suspended", { status: "suspended" as const }],
    ["inactive", { status: "inactive" as const }],
    ["without a wallet", { wallet: false }],
    ["without endpoints", { endpoints: [] }],
    ["with only inactive endpoints", { endpoints: [{ path: "/v1/off", isActive: false, pricingModel: "per_request" as const, priceSats: 5 }] }],
  ])("hides a tenant %s", async (_label, overrides) => {
    await createApi(ctx().db.prisma, ctx().config.appSecret, { slug: "shown", tags: ["tag-shown"] });
    await createApi(ctx().db.prisma, ctx().config.appSecret, { slug: "hidden", tags: ["tag-hidden"], ...overrides });
    expect(await visibleEverywhere("hidden")).toEqual([false, false, false, false]);
    const list = await listDirectory({ prisma: ctx().db.prisma, config: ctx().config, page: 1, limit: 50, sort: "relevance" });
    expect(list.total).toBe(1);
    expect(list.entries.map((e) => e.slug)).toEqual(["shown"]);
  });

  it("hides a tenant again when it is suspended after being listed", async () => {
    const id = await createApi(ctx().db.prisma, ctx().config.appSecret, { slug: "later", tags: ["tag-later"] });
    expect(await visibleEverywhere("later")).toEqual([true, true, true, true]);
    await ctx().db.prisma.tenant.update({ where: { id }, data: { status: "suspended" } });
    expect(await visibleEverywhere("later")).toEqual([false, false, false, false]);
  });
});
