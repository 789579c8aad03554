// Deliveries end to end: real events from their sources, fanned out and POSTed to a real HTTPS
// receiver on loopback (self-signed certificate), verified with the SDK and an independent Standard
// Webhooks verifier; the retry schedule (the database's clock: tests move rows); redirects, timeouts, Retry-After;
// DNS rebinding refused at connect time; one hanging receiver not delaying another.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { recordInvoiceSettled } from "@/lib/payments/record-settlement.ts";
import { claimProof } from "@/lib/payments/redeem-proof.ts";
import { verifyWebhook, type WebhookEnvelope } from "@l402-hub/sdk/webhooks";
import { createWebhook } from "@/lib/webhooks/create-webhook.ts";
import { DELIVERY_TIMEOUT_MS, WebhookSender, type WebhookSenderOptions } from "@/lib/webhooks/deliver.ts";
import { dispatchOutbox } from "@/lib/webhooks/dispatch-outbox.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import { eventDataSchemas, eventExamples } from "@/lib/events/catalogue.ts";
import { retryDelivery } from "@/lib/webhooks/retry-delivery.ts";
import { sendTestDelivery, TEST_PAYMENT_HASH } from "@/lib/webhooks/send-test-delivery.ts";
import type { HostResolver, TargetPolicy } from "@/lib/origin/ssrf.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { platformJobs } from "@/lib/jobs/schedule.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { testConfig, useTestContext } from "@/tests/helpers/context.ts";
import { selfSignedCertificate, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from "./https-receiver.ts";

let receiver: HttpsReceiver;
const senders: WebhookSender[] = [];
const ctx = useTestContext();
beforeEach(async () => {
  receiver = await startHttpsReceiver();
});
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await receiver.close();
});

const prisma = () => ctx().db.prisma;
const loopbackDns: HostResolver = async () => [{ address: "127.0.0.1", family: 4 }];
const loopbackPolicy: TargetPolicy = { resolver: loopbackDns, allowedTargets: ["127.0.0.0/8"] };

/** How far after its recording a delivery's next attempt is due (both stamped by the database's now()). */
async function retryDelayOf(id?: string): Promise<number | null> {
  const row = id ? await prisma().webhookDelivery.findUniqueOrThrow({ where: { id } }) : await prisma().webhookDelivery.findFirstOrThrow();
  return row.nextAttemptAt ? row.nextAttemptAt.getTime() - row.updatedAt.getTime() : null;
}

/** Brings a delivery's next attempt `ms` closer: the schedule runs on the database's clock, so tests move rows. */
async function moveDue(ms: number): Promise<void> {
  await ctx().db.sql.query(`UPDATE "WebhookDelivery" SET "nextAttemptAt" = "nextAttemptAt" - $1 * interval '1 millisecond'`, [ms]);
}

/** A settable clock starting at a fixed instant (what the sender signs with). */
function testClock(start = Date.parse("2026-11-21T12:00:00.000Z")) {
  let t = start;
  return { now: () => new Date(t), set: (ms: number) => (t = ms), advance: (ms: number) => (t += ms), ms: () => t };
}

function sender(options: Partial<WebhookSenderOptions> = {}) {
  const s = new WebhookSender({ prisma: prisma(), appSecret: ctx().config.appSecret, policy: loopbackPolicy, ca: selfSignedCertificate().cert, ...options });
  senders.push(s);
  return s;
}

/** Dispatches the outbox, then pumps until nothing more is started, waiting for every attempt. */
async function deliverAll(s: WebhookSender) {
  await dispatchOutbox({ prisma: prisma() });
  while ((await s.pump()) > 0) await s.drain();
  await s.drain();
}

async function subscribe(tenantId: string, events: string[] = ["*"], url = receiver.url(), policy = loopbackPolicy) {
  return createWebhook({ prisma: prisma(), appSecret: ctx().config.appSecret, policy, tenantId, input: { url, events } });
}

function parse(req: ReceivedRequest): WebhookEnvelope {
  return JSON.parse(req.rawBody.toString("utf8")) as WebhookEnvelope;
}

/** Standard Webhooks verification written from the spec with WebCrypto (independent of our code). */
async function standardWebhooksVerify(secret: string, req: ReceivedRequest): Promise<boolean> {
  const keyBytes = Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signed = new Uint8Array([...new TextEncoder().encode(`${req.headers["webhook-id"]}.${req.headers["webhook-timestamp"]}.`), ...req.rawBody]);
  const expected = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.sign("HMAC", key, signed))));
  return String(req.headers["webhook-signature"])
    .split(" ")
    .some((entry) => entry === `v1,${expected}`);
}

describe("delivery to a real HTTPS receiver", () => {
  it("delivers invoice.settled written by the gateway's proof claim and by the wallet poll, verifiable by both schemes", async () => {
    const devNode = new DevLightningNode({ prisma: prisma(), appSecret: ctx().config.appSecret });
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    await devWalletFactory(prisma(), ctx().config.appSecret, tenantId, devNode.nodePubkey);
    const endpoint = await endpointFactory(prisma(), tenantId, { pricingModel: "per_request", priceSats: 7 });
    const sub = await subscribe(tenantId, ["invoice.settled"]);
    const invoices = [];
    for (let i = 0; i < 2; i += 1) {
      const created = await devNode.createInvoice({ amountSats: 7, description: "t", expirySeconds: 600 });
      await prisma().invoice.create({
        data: {
          tenantId,
          endpointId: endpoint.id,
          paymentHash: created.paymentHash,
          paymentRequest: created.paymentRequest,
          amountSats: 7,
          purpose: "per_request",
          expiresAt: created.expiresAt,
        },
      });
      invoices.push(created);
    }
    // Source 1: the gateway's first valid proof (one SQL statement with the outbox insert).
    expect(
      await claimProof({ prisma: prisma(), paymentHash: invoices[0].paymentHash, tenantId, endpointId: endpoint.id, requestId: "r1", leaseMs: 60_000 }),
    ).toBe("claimed");
    // Source 2: the worker's settlement poll (one transaction with the outbox insert).
    expect(await recordInvoiceSettled({ prisma: prisma(), paymentHash: invoices[1].paymentHash, settledAt: new Date() })).toBe(true);

    await deliverAll(sender());
    expect(receiver.received).toHaveLength(2);
    const bodies = receiver.received.map(parse);
    expect(bodies.map((b) => b.data.paymentHash).sort()).toEqual(invoices.map((i) => i.paymentHash).sort());
    expect(bodies.map((b) => b.data.source).sort()).toEqual(["proof", "wallet"]);
    for (const req of receiver.received) {
      const body = parse(req);
      expect(req.method).toBe("POST");
      expect(req.url).toBe("/hook");
      expect(req.headers["content-type"]).toBe("application/json");
      expect(req.headers["user-agent"]).toBe("l402-hub-webhooks/1");
      expect(Object.keys(body)).toEqual(["id", "event", "timestamp", "data"]);
      expect(body.event).toBe("invoice.settled");
      expect(eventDataSchemas["invoice.settled"].parse(body.data)).toEqual(body.data);
      expect(req.headers["x-webhook-id"]).toBe(body.id);
      expect(req.headers["webhook-id"]).toBe(body.id);
      expect(req.headers["x-webhook-event"]).toBe("invoice.settled");
      expect(Number(req.headers["x-webhook-timestamp"])).toBeGreaterThan(Date.now() - 60_000);
      expect(req.headers["webhook-timestamp"]).toBe(String(Math.floor(Number(req.headers["x-webhook-timestamp"]) / 1000)));
      const verified = verifyWebhook({ secret: sub.secret, headers: req.headers, rawBody: req.rawBody });
      expect(verified).toEqual({ ok: true, event: body });
      expect(await standardWebhooksVerify(sub.secret, req)).toBe(true);
      expect(verifyWebhook({ secret: sub.secret, headers: req.headers, rawBody: JSON.stringify(body, null, 1) })).toEqual({
        ok: false,
        code: "signature_mismatch",
      });
    }
    const rows = await prisma().webhookDelivery.findMany({ orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => r.id).sort()).toEqual(bodies.map((b) => b.id).sort());
    for (const row of rows) {
      expect(row).toMatchObject({
        status: "succeeded",
        attempts: 1,
        responseStatus: 200,
        lastError: null,
        nextAttemptAt: null,
        lockedUntil: null,
        responseSnippet: "ok",
      });
      expect(row.deliveredAt).toBeInstanceOf(Date);
      expect(row.lastAttemptAt).toBeInstanceOf(Date);
      expect(row.requestSnippet).toBe(receiver.received.find((r) => r.headers["x-webhook-id"] === row.id)!.rawBody.toString("utf8"));
    }
  });

  it("fans out to matching active subscriptions of the event's tenant only, once even if re-dispatched", async () => {
    const a = (await tenantFactory(prisma(), ctx().config.appSecret)).tenantId;
    const b = (await tenantFactory(prisma(), ctx().config.appSecret)).tenantId;
    const named = await subscribe(a, ["invoice.settled"]);
    const star = await subscribe(a, ["*"]);
    await subscribe(a, ["session.created"]);
    const inactive = await subscribe(a, ["*"]);
    await prisma().webhookSubscription.update({ where: { id: inactive.id }, data: { isActive: false } });
    await subscribe(b, ["*"]);
    const eventId = await enqueueEvent(prisma(), { tenantId: a, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    expect(await dispatchOutbox({ prisma: prisma() })).toEqual({ events: 1, deliveries: 2 });
    expect(await dispatchOutbox({ prisma: prisma() })).toEqual({ events: 0, deliveries: 0 });
    // A crash between insert and mark cannot happen (one statement), but a re-dispatch is harmless anyway.
    await prisma().outboxEvent.update({ where: { id: eventId! }, data: { dispatchedAt: null } });
    expect(await dispatchOutbox({ prisma: prisma() })).toEqual({ events: 1, deliveries: 0 });
    const deliveries = await prisma().webhookDelivery.findMany({ select: { subscriptionId: true, tenantId: true } });
    expect(deliveries.map((d) => d.subscriptionId).sort()).toEqual([named.id, star.id].sort());
    expect(deliveries.every((d) => d.tenantId === a)).toBe(true);
  });

  it("writes an event only while an active subscription of its tenant receives its type", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    const settled = () => enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    expect(await settled()).toBeNull();
    const other = await subscribe(tenantId, ["session.created"]);
    expect(await settled()).toBeNull();
    // Another tenant's subscription to everything does not count.
    await subscribe((await tenantFactory(prisma(), ctx().config.appSecret)).tenantId, ["*"]);
    expect(await settled()).toBeNull();
    const named = await subscribe(tenantId, ["invoice.settled"]);
    const first = await settled();
    expect(first).toEqual(expect.any(String));
    await prisma().webhookSubscription.update({ where: { id: named.id }, data: { isActive: false } });
    expect(await settled()).toBeNull();
    await prisma().webhookSubscription.update({ where: { id: other.id }, data: { events: ["*"] } });
    const second = await settled();
    expect(second).toEqual(expect.any(String));
    expect((await prisma().outboxEvent.findMany()).map((e) => e.id).sort()).toEqual([first, second].sort());
    expect(await dispatchOutbox({ prisma: prisma() })).toEqual({ events: 2, deliveries: 2 });
  });

  it("refuses malformed event data at the producer (the producer's transaction rolls back)", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    await expect(
      prisma().$transaction(async (tx) => {
        await tx.tenant.update({ where: { id: tenantId }, data: { description: "changed" } });
        await enqueueEvent(tx, { tenantId, type: "node.capacity_changed", data: { ...eventExamples["node.capacity_changed"], reason: null } });
      }),
    ).rejects.toThrow(/node.capacity_changed event data at reason/);
    expect((await prisma().tenant.findUniqueOrThrow({ where: { id: tenantId } })).description).toBe("");
    expect(await prisma().outboxEvent.count()).toBe(0);
  });

  it("retries after 10 s, 1 min and 5 min with the same id, then fails; a manual retry re-queues it", async () => {
    const clock = testClock();
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    const sub = await subscribe(tenantId);
    receiver.answer(() => ({ status: 500, body: "boom" }));
    await enqueueEvent(prisma(), { tenantId, type: "session.created", data: eventExamples["session.created"] });
    const s = sender({ now: clock.now });
    const t0 = clock.ms();
    await deliverAll(s);
    const row = () => prisma().webhookDelivery.findFirstOrThrow();
    expect(await row()).toMatchObject({
      status: "pending",
      attempts: 1,
      responseStatus: 500,
      lastError: "http_status: receiver answered 500",
      responseSnippet: "boom",
    });
    expect(await retryDelayOf()).toBe(10_000);

    const schedule = [10_000, 60_000, 300_000];
    let due = t0;
    for (const [i, delay] of schedule.entries()) {
      due += delay;
      expect(await s.pump(), `attempt ${i + 2} must wait`).toBe(0);
      await moveDue(delay);
      clock.set(due);
      expect(await s.pump()).toBe(1);
      await s.drain();
      expect((await row()).attempts).toBe(i + 2);
      if (i < 2) expect(await retryDelayOf()).toBe(schedule[i + 1]);
    }
    expect(await row()).toMatchObject({ status: "failed", attempts: 4, nextAttemptAt: null, responseStatus: 500 });
    await moveDue(3600_000);
    expect(await s.pump()).toBe(0);

    expect(receiver.received).toHaveLength(4);
    const ids = new Set(receiver.received.map((r) => r.headers["x-webhook-id"]));
    expect(ids.size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.rawBody.toString())).size).toBe(1);
    // Each attempt is signed at its own (clock) time: ms timestamps exactly the schedule.
    expect(receiver.received.map((r) => Number(r.headers["x-webhook-timestamp"]) - t0)).toEqual([0, 10_000, 70_000, 370_000]);
    for (const req of receiver.received) {
      expect(verifyWebhook({ secret: sub.secret, headers: req.headers, rawBody: req.rawBody, now: Number(req.headers["x-webhook-timestamp"]) }).ok).toBe(true);
    }

    receiver.answer(() => ({ status: 204 }));
    const failed = await row();
    const queued = await retryDelivery({ prisma: prisma(), tenantId, deliveryId: failed.id });
    expect(queued.status).toBe("pending");
    expect(await s.pump()).toBe(1);
    await s.drain();
    expect(await row()).toMatchObject({ status: "succeeded", attempts: 5, responseStatus: 204, lastError: null });
    expect(receiver.received.at(-1)!.headers["x-webhook-id"]).toBe(failed.id);
  });

  it("honours a longer Retry-After on 429", async () => {
    const clock = testClock();
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    await subscribe(tenantId);
    receiver.answer(() => ({ status: 429, headers: { "retry-after": "120" } }));
    await enqueueEvent(prisma(), { tenantId, type: "session.expired", data: eventExamples["session.expired"] });
    await deliverAll(sender({ now: clock.now }));
    const row = await prisma().webhookDelivery.findFirstOrThrow();
    expect(row).toMatchObject({ status: "pending", attempts: 1, responseStatus: 429 });
    expect(await retryDelayOf(row.id)).toBe(120_000);
  });

  it("does not follow redirects: a 3xx is a failed attempt", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    await subscribe(tenantId);
    receiver.answer((req) => (req.url === "/hook" ? { status: 307, headers: { location: receiver.url("/elsewhere") } } : { status: 200 }));
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    await deliverAll(sender());
    expect(receiver.received.map((r) => r.url)).toEqual(["/hook"]);
    const row = await prisma().webhookDelivery.findFirstOrThrow();
    expect(row).toMatchObject({ status: "pending", attempts: 1, responseStatus: 307 });
    expect(row.lastError).toMatch(/^redirect: receiver answered 307 to https:\/\/127\.0\.0\.1:\d+\/elsewhere; redirects are not followed$/);
  });

  it("gives up on a receiver that does not answer within the timeout (10 s by default)", async () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    await subscribe(tenantId);
    receiver.answer(() => "hang");
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    const started = Date.now();
    await deliverAll(sender({ timeoutMs: 400 }));
    expect(Date.now() - started).toBeLessThan(5_000);
    const row = await prisma().webhookDelivery.findFirstOrThrow();
    expect(row).toMatchObject({ status: "pending", attempts: 1, responseStatus: null });
    expect(row.lastError).toBe("timeout: no complete response within 400 ms");
  });

  it("rejects a receiver whose certificate is not trusted (TLS is verified)", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    await subscribe(tenantId);
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    await deliverAll(sender({ ca: undefined }));
    expect(receiver.received).toHaveLength(0);
    const row = await prisma().webhookDelivery.findFirstOrThrow();
    expect(row.status).toBe("pending");
    expect(row.lastError).toMatch(/certificate/i);
  });

  it("keeps bounded snippets and sends the test event through the same pipeline", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    const sub = await subscribe(tenantId, ["session.created"]);
    receiver.answer(() => ({ status: 200, body: "x".repeat(50_000) }));
    await sendTestDelivery({ prisma: prisma(), tenantId, webhookId: sub.id });
    await deliverAll(sender());
    expect(receiver.received).toHaveLength(1);
    const body = parse(receiver.received[0]);
    expect(body.event).toBe("invoice.settled");
    expect(body.data).toMatchObject({ paymentHash: TEST_PAYMENT_HASH, amountSats: 1 });
    expect(verifyWebhook({ secret: sub.secret, headers: receiver.received[0].headers, rawBody: receiver.received[0].rawBody }).ok).toBe(true);
    const row = await prisma().webhookDelivery.findFirstOrThrow();
    expect(row.status).toBe("succeeded");
    expect(row.responseSnippet).toBe("x".repeat(2048));
  });
});

describe("SSRF at connect time", () => {
  it("refuses a DNS answer that changes to loopback after the save-time check (rebinding)", async () => {
    let lookups = 0;
    const rebinding: HostResolver = async (host) => {
      lookups += 1;
      if (host !== "rebind.test") throw Object.assign(new Error("nx"), { code: "ENOTFOUND" });
      return lookups === 1 ? [{ address: "93.184.215.14", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
    };
    const strict: TargetPolicy = { resolver: rebinding, allowedTargets: [] };
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    // Save-time: the first answer is public, so the subscription is accepted.
    await subscribe(tenantId, ["*"], `https://rebind.test:${receiver.port}/hook`, strict);
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    await deliverAll(sender({ policy: strict }));
    expect(lookups).toBe(2);
    expect(receiver.received).toHaveLength(0);
    const row = await prisma().webhookDelivery.findFirstOrThrow();
    expect(row.status).toBe("pending");
    expect(row.lastError).toBe("blocked_address: rebind.test resolves to 127.0.0.1, a loopback address (127.0.0.0/8)");
  });

  it("refuses a stored IP-literal target in a blocked range, and any host with one blocked answer", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    const mixed: HostResolver = async () => [
      { address: "93.184.215.14", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ];
    const strict: TargetPolicy = { resolver: mixed, allowedTargets: [] };
    // Written directly, as if the allow-list had changed since the subscription was saved.
    for (const url of [receiver.url(), `https://[::ffff:127.0.0.1]:${receiver.port}/hook`, `https://hooks.test:${receiver.port}/hook`]) {
      await prisma().webhookSubscription.create({
        data: { tenantId, url, events: ["*"], secretEnc: (await subscribe(tenantId, ["session.created"], "https://93.184.215.14/x", strict)).secretEnc },
      });
    }
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    await deliverAll(sender({ policy: strict }));
    expect(receiver.received).toHaveLength(0);
    const rows = await prisma().webhookDelivery.findMany();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.lastError).toMatch(/^blocked_address: .*loopback/);
  });

  it("reaches an allowed range through a name resolved by the pinned lookup (control)", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    await subscribe(tenantId, ["*"], `https://hooks.test:${receiver.port}/hook`);
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    await deliverAll(sender());
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].headers.host).toBe(`hooks.test:${receiver.port}`);
  });
});

describe("the worker's webhook job", () => {
  it("fans out and sends with the configured SSRF policy and verified TLS", async () => {
    const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
    // Saved under the test allow-list; each run below sends with its own configuration's policy.
    const sub = await subscribe(tenantId);
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    const run = async (overrides: Record<string, string>) => {
      const job = platformJobs({
        prisma: prisma(),
        store: ctx().store,
        devNode: null,
        log: createLogger("silent"),
        config: testConfig({ APP_SECRET: "test-app-secret-0123456789abcdef0123456789", ...overrides }),
      }).find((j) => j.name === "webhook-deliveries")!;
      expect(job.singleton).toBe(false);
      await job.run();
      // Closing waits for the attempt in flight and stops the sender from pumping again, so a
      // later run (with another configuration) is the only one that can claim the delivery.
      await job.close!();
      return prisma().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: sub.id } });
    };
    // Default configuration: loopback is blocked at connect time.
    expect((await run({})).lastError).toMatch(/^blocked_address: 127\.0\.0\.1 is a loopback address/);
    await prisma().webhookDelivery.updateMany({ data: { nextAttemptAt: new Date(0) } });
    // Allowed by WEBHOOK_ALLOWED_TARGETS: the connection is made, and the self-signed certificate is refused.
    const second = await run({ WEBHOOK_ALLOWED_TARGETS: "127.0.0.0/8" });
    expect(second.attempts).toBe(2);
    expect(second.lastError).toMatch(/certificate/i);
    expect(receiver.received).toHaveLength(0);
  });
});

describe("isolation between receivers", () => {
  it("does not let a hanging path hold up another subscription on the same host", async () => {
    receiver.answer((req) => (req.url === "/slow" ? "hang" : { status: 200 }));
    const a = (await tenantFactory(prisma(), ctx().config.appSecret)).tenantId;
    const b = (await tenantFactory(prisma(), ctx().config.appSecret)).tenantId;
    await subscribe(a, ["*"], receiver.url("/slow"));
    const fast = await subscribe(b, ["*"], receiver.url("/fast"));
    for (let i = 0; i < 12; i += 1) {
      await enqueueEvent(prisma(), { tenantId: a, type: "invoice.settled", data: eventExamples["invoice.settled"] });
      await enqueueEvent(prisma(), { tenantId: b, type: "invoice.settled", data: eventExamples["invoice.settled"] });
    }
    await dispatchOutbox({ prisma: prisma() });
    const s = sender({ maxInFlight: 8, perSubscription: 4, timeoutMs: 8_000 });
    const started = Date.now();
    while ((await prisma().webhookDelivery.count({ where: { subscriptionId: fast.id, status: "succeeded" } })) < 12) {
      await s.pump();
      await new Promise((r) => setTimeout(r, 20));
      expect(Date.now() - started).toBeLessThan(6_000);
    }
    expect(receiver.received.filter((r) => r.url === "/slow").length).toBeLessThanOrEqual(4);
    await s.close({ abandon: true });
  });

  it("keeps delivering to a healthy receiver while another one hangs", async () => {
    const hanging = await startHttpsReceiver();
    hanging.answer(() => "hang");
    try {
      const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
      const slow = await subscribe(tenantId, ["*"], hanging.url());
      const fast = await subscribe(tenantId, ["*"]);
      for (let i = 0; i < 20; i += 1)
        await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: { ...eventExamples["invoice.settled"], amountSats: i + 1 } });
      await dispatchOutbox({ prisma: prisma() });
      const s = sender({ maxInFlight: 6, perSubscription: 2, timeoutMs: 8_000 });
      const started = Date.now();
      // The hanging subscription can hold at most 2 slots; the healthy one drains through the others.
      while ((await prisma().webhookDelivery.count({ where: { subscriptionId: fast.id, status: "succeeded" } })) < 20) {
        await s.pump();
        await new Promise((r) => setTimeout(r, 20));
        expect(Date.now() - started).toBeLessThan(6_000);
      }
      expect(receiver.received).toHaveLength(20);
      expect(hanging.received.length).toBeLessThanOrEqual(2);
      expect(await prisma().webhookDelivery.count({ where: { subscriptionId: slow.id, status: "delivering" } })).toBeLessThanOrEqual(2);
    } finally {
      await hanging.close();
    }
  });
});
