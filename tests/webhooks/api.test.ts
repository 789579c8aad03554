// /api/tenants/:tenantId/webhooks (spec 4.5): the route handlers called as Next 16 calls them, on a
// real database. Secrets only at creation and rotation, tenant scoping, validation naming the rule.
import { beforeEach, describe, expect, it } from "vitest";
import { GET as listDeliveriesRoute } from "@/app/api/tenants/[tenantId]/webhooks/[id]/deliveries/route.ts";
import { POST as rotateRoute } from "@/app/api/tenants/[tenantId]/webhooks/[id]/rotate-secret/route.ts";
import { DELETE as deleteRoute, PATCH as patchRoute } from "@/app/api/tenants/[tenantId]/webhooks/[id]/route.ts";
import { POST as testRoute } from "@/app/api/tenants/[tenantId]/webhooks/[id]/test/route.ts";
import { POST as retryRoute } from "@/app/api/tenants/[tenantId]/webhooks/deliveries/[deliveryId]/retry/route.ts";
import { GET as listRoute, POST as createRoute } from "@/app/api/tenants/[tenantId]/webhooks/route.ts";
import { openSecret } from "@/lib/crypto/secret-box.ts";
import { dispatchOutbox } from "@/lib/webhooks/dispatch-outbox.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import { eventExamples } from "@/lib/events/catalogue.ts";
import { TEST_PAYMENT_HASH } from "@/lib/webhooks/send-test-delivery.ts";
import { call, seedTenant, useApiContext } from "@/tests/api/helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;
let other: { tenantId: string; apiKey: string };
beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
  other = await seedTenant(api.test(), "other", "other@example.com");
});

const PUBLIC_URL = "https://93.184.215.14/hooks/l402";
const base = () => `/tenants/${tenantId}/webhooks`;
const create = (body: unknown, as = { tenantId, key }) =>
  call(createRoute, { method: "POST", path: `/tenants/${as.tenantId}/webhooks`, params: { tenantId: as.tenantId }, token: as.key, body });
const prisma = () => api.test().db.prisma;

describe("webhook management API", () => {
  it("creates a subscription (201) whose secret appears only in the creation response", async () => {
    const res = await create({ url: PUBLIC_URL, events: ["invoice.settled", "node.capacity_changed", "invoice.settled"] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      url: PUBLIC_URL,
      events: ["invoice.settled", "node.capacity_changed"],
      isActive: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const row = await prisma().webhookSubscription.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.secretEnc).not.toContain(res.body.secret);
    expect(openSecret(api.test().config.appSecret, row.secretEnc)).toBe(res.body.secret);

    const listed = await call(listRoute, { method: "GET", path: base(), params: { tenantId }, token: key });
    expect(listed.status).toBe(200);
    expect(listed.body.webhooks).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(res.body.secret);
    expect(listed.body.webhooks[0]).not.toHaveProperty("secret");
    expect(listed.body.webhooks[0]).not.toHaveProperty("secretEnc");
  });

  it("normalises ['*', ...] to ['*']", async () => {
    const res = await create({ url: PUBLIC_URL, events: ["invoice.settled", "*"] });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(["*"]);
  });

  it.each([
    [{ url: "http://93.184.215.14/hook", events: ["*"] }, "url", "https_required"],
    [{ url: "https://localhost/hook", events: ["*"] }, "url", "blocked_address"],
    [{ url: "https://2130706433/hook", events: ["*"] }, "url", "blocked_address"],
    [{ url: "https://[::ffff:10.0.0.1]/hook", events: ["*"] }, "url", "blocked_address"],
    [{ url: "https://169.254.169.254/latest", events: ["*"] }, "url", "blocked_address"],
    [{ url: "https://user:pw@93.184.215.14/hook", events: ["*"] }, "url", "credentials_not_allowed"],
    [{ url: "nonsense", events: ["*"] }, "url", "invalid_url"],
  ])("refuses %o with 422 naming %s and rule %s", async (body, field, rule) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("validation_failed");
    expect(res.body.error.message).toContain(`rule ${rule}`);
    expect(res.body.error.details.fields).toEqual([{ field, message: expect.any(String), rule }]);
    expect(await prisma().webhookSubscription.count()).toBe(0);
  });

  it.each([
    [{ url: PUBLIC_URL, events: [] }, "events"],
    [{ url: PUBLIC_URL, events: ["invoice.paid"] }, "events.0"],
    [{ url: PUBLIC_URL }, "events"],
    [{ events: ["*"] }, "url"],
    [{ url: PUBLIC_URL, events: ["*"], secret: "mine" }, "secret"],
  ])("refuses %o with 422 naming %s", async (body, field) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it("answers 401 without a credential and 404 to another workspace's key, touching nothing", async () => {
    const mine = (await create({ url: PUBLIC_URL, events: ["*"] })).body;
    expect((await call(listRoute, { method: "GET", path: base(), params: { tenantId } })).status).toBe(401);
    expect((await call(createRoute, { method: "POST", path: base(), params: { tenantId }, body: { url: PUBLIC_URL, events: ["*"] } })).status).toBe(401);
    // The other workspace's key on our tenant path.
    expect((await call(listRoute, { method: "GET", path: base(), params: { tenantId }, token: other.apiKey })).status).toBe(404);
    // Our subscription id under the other workspace's path, with its own (valid) key.
    const asOther = { tenantId: other.tenantId, id: mine.id };
    const otherPath = `/tenants/${other.tenantId}/webhooks/${mine.id}`;
    expect((await call(patchRoute, { method: "PATCH", path: otherPath, params: asOther, token: other.apiKey, body: { isActive: false } })).status).toBe(404);
    expect((await call(deleteRoute, { method: "DELETE", path: otherPath, params: asOther, token: other.apiKey })).status).toBe(404);
    expect((await call(rotateRoute, { method: "POST", path: `${otherPath}/rotate-secret`, params: asOther, token: other.apiKey })).status).toBe(404);
    expect((await call(testRoute, { method: "POST", path: `${otherPath}/test`, params: asOther, token: other.apiKey })).status).toBe(404);
    expect((await call(listDeliveriesRoute, { method: "GET", path: `${otherPath}/deliveries`, params: asOther, token: other.apiKey })).status).toBe(404);
    const row = await prisma().webhookSubscription.findUniqueOrThrow({ where: { id: mine.id } });
    expect(row.isActive).toBe(true);
    expect(openSecret(api.test().config.appSecret, row.secretEnc)).toBe(mine.secret);
    expect(await prisma().webhookDelivery.count()).toBe(0);
    // And the other workspace's list does not show ours.
    const theirs = await call(listRoute, {
      method: "GET",
      path: `/tenants/${other.tenantId}/webhooks`,
      params: { tenantId: other.tenantId },
      token: other.apiKey,
    });
    expect(theirs.body.webhooks).toEqual([]);
  });

  it("updates url, events and isActive without ever rotating the secret", async () => {
    const created = (await create({ url: PUBLIC_URL, events: ["invoice.settled"] })).body;
    const path = `${base()}/${created.id}`;
    const params = { tenantId, id: created.id };
    const res = await call(patchRoute, {
      method: "PATCH",
      path,
      params,
      token: key,
      body: { url: "https://93.184.215.15/v2", events: ["session.created", "session.expired"], isActive: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, url: "https://93.184.215.15/v2", events: ["session.created", "session.expired"], isActive: false });
    expect(res.body).not.toHaveProperty("secret");
    const row = await prisma().webhookSubscription.findUniqueOrThrow({ where: { id: created.id } });
    expect(openSecret(api.test().config.appSecret, row.secretEnc)).toBe(created.secret);

    const bad = await call(patchRoute, { method: "PATCH", path, params, token: key, body: { url: "https://10.1.2.3/x" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields[0]).toMatchObject({ field: "url", rule: "blocked_address" });
    expect((await call(patchRoute, { method: "PATCH", path, params, token: key, body: {} })).status).toBe(422);
    expect((await call(patchRoute, { method: "PATCH", path, params, token: key, body: { secret: "x" } })).status).toBe(422);
    expect((await call(patchRoute, { method: "PATCH", path, params, token: key, body: { events: [] } })).status).toBe(422);
    expect((await prisma().webhookSubscription.findUniqueOrThrow({ where: { id: created.id } })).url).toBe("https://93.184.215.15/v2");
  });

  it("deletes (204) and then answers 404", async () => {
    const created = (await create({ url: PUBLIC_URL, events: ["*"] })).body;
    const opts = { method: "DELETE", path: `${base()}/${created.id}`, params: { tenantId, id: created.id }, token: key };
    expect((await call(deleteRoute, opts)).status).toBe(204);
    expect((await call(deleteRoute, opts)).status).toBe(404);
    expect(await prisma().webhookSubscription.count()).toBe(0);
  });

  it("rotates the secret only on the explicit route, returning it once", async () => {
    const created = (await create({ url: PUBLIC_URL, events: ["*"] })).body;
    const res = await call(rotateRoute, { method: "POST", path: `${base()}/${created.id}/rotate-secret`, params: { tenantId, id: created.id }, token: key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id, secret: expect.stringMatching(/^whsec_/) });
    expect(res.body.secret).not.toBe(created.secret);
    const row = await prisma().webhookSubscription.findUniqueOrThrow({ where: { id: created.id } });
    expect(openSecret(api.test().config.appSecret, row.secretEnc)).toBe(res.body.secret);
  });

  it("lists deliveries newest first with limit default 50, max 100, and 400 naming limit otherwise", async () => {
    const created = (await create({ url: PUBLIC_URL, events: ["invoice.settled"] })).body;
    for (let i = 0; i < 55; i += 1) {
      await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: { ...eventExamples["invoice.settled"], amountSats: i + 1 } });
      await dispatchOutbox({ prisma: prisma(), now: () => new Date(Date.UTC(2026, 10, 21, 12, 0, i)) });
    }
    const path = `${base()}/${created.id}/deliveries`;
    const params = { tenantId, id: created.id };
    const all = await call(listDeliveriesRoute, { method: "GET", path, params, token: key });
    expect(all.status).toBe(200);
    expect(all.body.deliveries).toHaveLength(50);
    expect(all.body.deliveries[0]).toEqual({
      id: expect.any(String),
      subscriptionId: created.id,
      eventId: expect.any(String),
      event: "invoice.settled",
      status: "pending",
      attempts: 0,
      responseStatus: null,
      lastError: null,
      nextAttemptAt: expect.any(String),
      lastAttemptAt: null,
      deliveredAt: null,
      createdAt: "2026-11-21T12:00:54.000Z",
      updatedAt: expect.any(String),
      requestSnippet: null,
      responseSnippet: null,
    });
    expect(all.body.deliveries[0]).not.toHaveProperty("tenantId");
    expect(all.body.deliveries[0]).not.toHaveProperty("lockedUntil");
    const two = await call(listDeliveriesRoute, { method: "GET", path: `${path}?limit=2`, params, token: key });
    expect(two.body.deliveries.map((d: { createdAt: string }) => d.createdAt)).toEqual(["2026-11-21T12:00:54.000Z", "2026-11-21T12:00:53.000Z"]);
    expect((await call(listDeliveriesRoute, { method: "GET", path: `${path}?limit=100`, params, token: key })).body.deliveries).toHaveLength(55);
    for (const bad of ["0", "101", "abc", "1.5", "-1"]) {
      const res = await call(listDeliveriesRoute, { method: "GET", path: `${path}?limit=${bad}`, params, token: key });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe("limit");
      expect(res.body.error.message).toContain("limit");
    }
  });

  it("retries only failed deliveries (202), 409 otherwise, 404 for another workspace", async () => {
    const created = (await create({ url: PUBLIC_URL, events: ["*"] })).body;
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    await dispatchOutbox({ prisma: prisma() });
    const delivery = await prisma().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: created.id } });
    const path = `${base()}/deliveries/${delivery.id}/retry`;
    const params = { tenantId, deliveryId: delivery.id };

    const pending = await call(retryRoute, { method: "POST", path, params, token: key });
    expect(pending.status).toBe(409);
    expect(pending.body.error.message).toContain("pending");

    await prisma().webhookDelivery.update({
      where: { id: delivery.id },
      data: { status: "failed", attempts: 4, nextAttemptAt: null, lastError: "http_status: receiver answered 500" },
    });
    expect(
      (
        await call(retryRoute, {
          method: "POST",
          path: `/tenants/${other.tenantId}/webhooks/deliveries/${delivery.id}/retry`,
          params: { tenantId: other.tenantId, deliveryId: delivery.id },
          token: other.apiKey,
        })
      ).status,
    ).toBe(404);
    expect((await prisma().webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).status).toBe("failed");

    const res = await call(retryRoute, { method: "POST", path, params, token: key });
    expect(res.status).toBe(202);
    expect(res.body.delivery).toMatchObject({ id: delivery.id, status: "pending", attempts: 4, lastError: "http_status: receiver answered 500" });
    expect(Date.parse(res.body.delivery.nextAttemptAt)).toBeLessThanOrEqual(Date.now());
    expect((await call(retryRoute, { method: "POST", path, params, token: key })).status).toBe(409);
  });

  it("queues a synthetic invoice.settled test delivery to that one subscription only (202)", async () => {
    const target = (await create({ url: PUBLIC_URL, events: ["session.created"] })).body;
    const bystander = (await create({ url: "https://93.184.215.16/other", events: ["*"] })).body;
    const res = await call(testRoute, { method: "POST", path: `${base()}/${target.id}/test`, params: { tenantId, id: target.id }, token: key });
    expect(res.status).toBe(202);
    expect(res.body.delivery).toMatchObject({ subscriptionId: target.id, event: "invoice.settled", status: "pending", attempts: 0 });
    const event = await prisma().outboxEvent.findUniqueOrThrow({ where: { id: res.body.delivery.eventId } });
    expect(event.data).toMatchObject({ paymentHash: TEST_PAYMENT_HASH, amountSats: 1, purpose: "per_request", endpointId: null, source: "proof" });
    expect(event.dispatchedAt).not.toBeNull();
    await dispatchOutbox({ prisma: prisma() });
    expect(await prisma().webhookDelivery.count({ where: { subscriptionId: bystander.id } })).toBe(0);

    await call(patchRoute, { method: "PATCH", path: `${base()}/${target.id}`, params: { tenantId, id: target.id }, token: key, body: { isActive: false } });
    expect((await call(testRoute, { method: "POST", path: `${base()}/${target.id}/test`, params: { tenantId, id: target.id }, token: key })).status).toBe(409);
  });
});
