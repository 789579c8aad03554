// GET …/webhooks/:id/deliveries?before: the dashboard's "load more". Pages never overlap or skip
// (ties on createdAt broken by id), deliveries that arrive between pages do not shift older pages,
// and a cursor from another subscription or workspace is a 404.
import { beforeEach, describe, expect, it } from "vitest";
import { GET as listDeliveriesRoute } from "@/app/api/tenants/[tenantId]/webhooks/[id]/deliveries/route.ts";
import { POST as createRoute } from "@/app/api/tenants/[tenantId]/webhooks/route.ts";
import { dispatchOutbox } from "@/lib/webhooks/dispatch-outbox.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import { eventExamples } from "@/lib/events/catalogue.ts";
import { call, seedTenant, useApiContext } from "@/tests/api/helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;
beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});

const prisma = () => api.test().db.prisma;
const subscribe = async (as = { tenantId, key }) =>
  (
    await call(createRoute, {
      method: "POST",
      path: `/tenants/${as.tenantId}/webhooks`,
      params: { tenantId: as.tenantId },
      token: as.key,
      body: { url: "https://93.184.215.14/hooks", events: ["invoice.settled"] },
    })
  ).body as { id: string };

/** `count` events; every two share a second, so createdAt ties are common. */
async function deliver(count: number, firstSecond = 0) {
  for (let i = 0; i < count; i += 1) {
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: { ...eventExamples["invoice.settled"], amountSats: i + 1 } });
    await dispatchOutbox({ prisma: prisma(), now: () => new Date(Date.UTC(2026, 10, 21, 12, 0, firstSecond + Math.floor(i / 2))) });
  }
}

type Page = { deliveries: { id: string; createdAt: string }[]; nextCursor: string | null };
const page = async (webhookId: string, query: string, as = { tenantId, key }) =>
  call(listDeliveriesRoute, {
    method: "GET",
    path: `/tenants/${as.tenantId}/webhooks/${webhookId}/deliveries?${query}`,
    params: { tenantId: as.tenantId, id: webhookId },
    token: as.key,
  });

describe("deliveries pages", () => {
  it("walks every delivery exactly once, newest first, and ends with nextCursor null", async () => {
    const { id } = await subscribe();
    await deliver(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await page(id, `limit=3${cursor ? `&before=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      const body = res.body as Page;
      seen.push(...body.deliveries.map((d) => d.id));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    const all = (await page(id, "limit=100")).body as Page;
    expect(all.nextCursor).toBeNull();
    expect(seen).toEqual(all.deliveries.map((d) => d.id));
    const times = all.deliveries.map((d) => d.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("an exactly full last page still says there is nothing more", async () => {
    const { id } = await subscribe();
    await deliver(4);
    const first = (await page(id, "limit=2")).body as Page;
    expect(first.nextCursor).toBe(first.deliveries[1]!.id);
    const second = (await page(id, `limit=2&before=${first.nextCursor}`)).body as Page;
    expect(second.deliveries).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
  });

  it("new deliveries between pages do not shift the next page", async () => {
    const { id } = await subscribe();
    await deliver(4);
    const first = (await page(id, "limit=2")).body as Page;
    const expected = ((await page(id, "limit=100")).body as Page).deliveries.slice(2).map((d) => d.id);
    await deliver(3, 30);
    const second = (await page(id, `limit=10&before=${first.nextCursor}`)).body as Page;
    expect(second.deliveries.map((d) => d.id)).toEqual(expected);
  });

  it("refuses a cursor of another subscription or workspace (404) and a malformed one (400 naming before)", async () => {
    const mine = await subscribe();
    const sibling = await subscribe();
    await deliver(2);
    const siblingDelivery = await prisma().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: sibling.id } });
    expect((await page(mine.id, `before=${siblingDelivery.id}`)).status).toBe(404);

    const other = await seedTenant(api.test(), "other", "other@example.com");
    const theirs = await subscribe({ tenantId: other.tenantId, key: other.apiKey });
    const mineDelivery = await prisma().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: mine.id } });
    expect((await page(theirs.id, `before=${mineDelivery.id}`, { tenantId: other.tenantId, key: other.apiKey })).status).toBe(404);

    const bad = await page(mine.id, `before=${"x".repeat(65)}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe("before");
  });
});
