// DirectoryTagCount, kept by a trigger on Tenant, must always equal a recount over the listed
// tenants: after every kind of change (tags, opt-out, status, wallet, endpoints, deletion) and
// under concurrent changes sharing tags (PostgreSQL decides the races).
import { describe, expect, it } from "vitest";
import { listDirectoryTags } from "@/lib/directory/list-tags.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { createApi } from "./fixtures.ts";

const ctx = useTestContext();

/** The oracle: tags of listed tenants counted from scratch (the query the trigger replaced). */
async function recount() {
  const rows = await ctx().db.prisma.$queryRaw<{ tag: string; count: number }[]>`
    SELECT lower(tg) AS "tag", count(DISTINCT t."id")::int AS "count"
    FROM "Tenant" t CROSS JOIN LATERAL unnest(t."tags") AS tg
    WHERE t."directoryListed" AND btrim(tg) <> ''
    GROUP BY lower(tg) ORDER BY "count" DESC, "tag" ASC`;
  return rows.map((r) => ({ tag: r.tag, count: Number(r.count) }));
}

describe("directory tag counts", () => {
  it("follow tag edits, opt-out, suspension, wallet and endpoint changes and deletion", async () => {
    const { prisma } = ctx().db;
    const a = await createApi(prisma, ctx().config.appSecret, { slug: "a", tags: ["Maps", "maps", "geo", " "] });
    const b = await createApi(prisma, ctx().config.appSecret, { slug: "b", tags: ["geo", "Finance"] });
    const c = await createApi(prisma, ctx().config.appSecret, { slug: "c", tags: ["geo"], wallet: false });
    const expectCounts = async (expected: Record<string, number>) => {
      const counts = await listDirectoryTags({ prisma });
      expect(counts).toEqual(await recount());
      expect(Object.fromEntries(counts.map((t) => [t.tag, t.count]))).toEqual(expected);
    };
    await expectCounts({ maps: 1, geo: 2, finance: 1 });

    await prisma.tenant.update({ where: { id: a }, data: { tags: ["geo", "weather"] } });
    await expectCounts({ geo: 2, weather: 1, finance: 1 });
    await prisma.tenant.update({ where: { id: b }, data: { listed: false } });
    await expectCounts({ geo: 1, weather: 1 });
    await prisma.wallet.create({ data: { tenantId: c, type: "dev", credentialsEnc: "sealed", nodePubkey: "02" + "cd".repeat(32) } });
    await expectCounts({ geo: 2, weather: 1 });
    await prisma.tenant.update({ where: { id: a }, data: { status: "suspended" } });
    await expectCounts({ geo: 1 });
    await prisma.endpoint.updateMany({ where: { tenantId: c }, data: { isActive: false } });
    await expectCounts({});
    await prisma.endpoint.updateMany({ where: { tenantId: c }, data: { isActive: true } });
    await prisma.tenant.update({ where: { id: b }, data: { listed: true } });
    await expectCounts({ geo: 2, finance: 1 });
    await prisma.tenant.delete({ where: { id: b } });
    await expectCounts({ geo: 1 });
  });

  it("stay exact under concurrent edits of tenants sharing tags", async () => {
    const { prisma } = ctx().db;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await createApi(prisma, ctx().config.appSecret, { slug: `t${i}`, tags: ["shared", `own-${i % 3}`] }));
    const palette = ["shared", "alpha", "beta", "gamma", "own-0", "own-1"];
    await Promise.all(
      ids.flatMap((id, i) =>
        [0, 1, 2].map((round) =>
          prisma.tenant.update({
            where: { id },
            data: round === 2 && i % 4 === 0 ? { listed: false } : { tags: palette.filter((_, k) => (i + round + k) % 2 === 0) },
          }),
        ),
      ),
    );
    expect(await listDirectoryTags({ prisma })).toEqual(await recount());
  });
});
