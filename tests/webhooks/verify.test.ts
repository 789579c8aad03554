// The verifier SDK (spec 6.2): every failure code, the replay window both ways, rotation with two
// secrets, and the helpers for Express / node:http (raw body) and Next.js route handlers.
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import {
  webhookMiddleware,
  type VerifiedWebhookRequest,
  verifyNextWebhook,
  verifyWebhook,
  WEBHOOK_VERIFY_CODES,
  type WebhookVerifyCode,
} from "@l402-hub/sdk/webhooks";
import { generateWebhookSecret, serializeEnvelope, signDelivery } from "@/lib/webhooks/sign.ts";

const secret = generateWebhookSecret();
const now = Date.parse("2026-11-21T12:00:00.000Z");
const body = serializeEnvelope({
  id: "2f1c9a0e-4d7b-4c55-9a53-0c2d1f0e9b11",
  event: "invoice.settled",
  timestamp: "2026-11-21T11:59:59.000Z",
  data: { paymentHash: "ab".repeat(32), amountSats: 21 },
});
/** Headers of a genuine attempt at `ts`, with some replaced (or removed when set to undefined). */
const signed = (overrides: Record<string, string | undefined> = {}, ts = now, key = secret): Record<string, string> => {
  const headers = signDelivery({ secret: key, id: "2f1c9a0e-4d7b-4c55-9a53-0c2d1f0e9b11", event: "invoice.settled", body, timestampMs: ts });
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return headers;
};

describe("verifyWebhook", () => {
  it("accepts a genuine delivery and returns the envelope", () => {
    expect(verifyWebhook({ secret, headers: signed(), rawBody: body, now })).toEqual({ ok: true, event: JSON.parse(body) });
    expect(verifyWebhook({ secret, headers: new Headers(signed()), rawBody: Buffer.from(body), now }).ok).toBe(true);
    // Node may hand repeated headers as arrays; mixed-case keys are fine too.
    const h = signed();
    expect(
      verifyWebhook({
        secret,
        headers: { "X-Webhook-Signature": [h["x-webhook-signature"]], "X-WEBHOOK-TIMESTAMP": h["x-webhook-timestamp"] },
        rawBody: body,
        now,
      }).ok,
    ).toBe(true);
  });

  const failures: [WebhookVerifyCode, Parameters<typeof verifyWebhook>[0]][] = [
    ["missing_secret", { secret: "", headers: signed(), rawBody: body, now }],
    ["missing_secret", { secret: undefined, headers: signed(), rawBody: body, now }],
    ["missing_signature", { secret, headers: signed({ "x-webhook-signature": undefined }), rawBody: body, now }],
    ["missing_timestamp", { secret, headers: signed({ "x-webhook-timestamp": undefined }), rawBody: body, now }],
    ["invalid_timestamp", { secret, headers: signed({ "x-webhook-timestamp": "2026-11-21T12:00:00Z" }), rawBody: body, now }],
    ["invalid_timestamp", { secret, headers: signed({ "x-webhook-timestamp": "-5" }), rawBody: body, now }],
    ["timestamp_out_of_tolerance", { secret, headers: signed({}, now - 300_001), rawBody: body, now }],
    ["timestamp_out_of_tolerance", { secret, headers: signed({}, now + 300_001), rawBody: body, now }],
    // Seconds instead of milliseconds read as 1970: out of tolerance, not silently accepted.
    ["timestamp_out_of_tolerance", { secret, headers: signed({ "x-webhook-timestamp": String(Math.floor(now / 1000)) }), rawBody: body, now }],
    ["invalid_signature_format", { secret, headers: signed({ "x-webhook-signature": "v1,abc" }), rawBody: body, now }],
    ["invalid_signature_format", { secret, headers: signed({ "x-webhook-signature": "ab".repeat(31) }), rawBody: body, now }],
    ["signature_mismatch", { secret, headers: signed(), rawBody: `${body}\n`, now }],
    ["signature_mismatch", { secret, headers: signed(), rawBody: JSON.stringify(JSON.parse(body), null, 2), now }],
    ["signature_mismatch", { secret: generateWebhookSecret(), headers: signed(), rawBody: body, now }],
    ["signature_mismatch", { secret, headers: signed({ "x-webhook-timestamp": String(now - 1) }), rawBody: body, now }],
  ];
  it.each(failures)("%s", (code, options) => {
    expect(verifyWebhook(options)).toEqual({ ok: false, code });
  });

  it("invalid_payload_json: correctly signed bytes that are not a JSON envelope", () => {
    for (const raw of ["not json", "[1,2]", '{"id":"x"}', "null"]) {
      const headers = signDelivery({ secret, id: "x", event: "invoice.settled", body: raw, timestampMs: now });
      expect(verifyWebhook({ secret, headers, rawBody: raw, now })).toEqual({ ok: false, code: "invalid_payload_json" });
    }
  });

  it("covers exactly the 8 codes of spec 6.2", () => {
    expect(new Set(failures.map(([code]) => code)).size + 1).toBe(WEBHOOK_VERIFY_CODES.length);
    expect([...WEBHOOK_VERIFY_CODES].sort()).toEqual([
      "invalid_payload_json",
      "invalid_signature_format",
      "invalid_timestamp",
      "missing_secret",
      "missing_signature",
      "missing_timestamp",
      "signature_mismatch",
      "timestamp_out_of_tolerance",
    ]);
  });

  it("honours a custom tolerance and accepts either of two secrets during a rotation", () => {
    expect(verifyWebhook({ secret, headers: signed({}, now - 60_000), rawBody: body, now, toleranceMs: 30_000 })).toEqual({
      ok: false,
      code: "timestamp_out_of_tolerance",
    });
    expect(verifyWebhook({ secret, headers: signed({}, now - 300_000), rawBody: body, now }).ok).toBe(true);
    const next = generateWebhookSecret();
    expect(verifyWebhook({ secret: [next, secret], headers: signed(), rawBody: body, now }).ok).toBe(true);
    expect(verifyWebhook({ secret: [next, secret], headers: signed({}, now, next), rawBody: body, now }).ok).toBe(true);
  });
});

describe("webhookMiddleware (Express and node:http)", () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
  async function listen(handler: http.RequestListener): Promise<string> {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }
  const post = (url: string, headers: Record<string, string>, payload = body) => fetch(url, { method: "POST", headers, body: payload });
  const live = () => signed({}, Date.now());

  it("verifies in Express when mounted before express.json(), and with express.raw()", async () => {
    const app = express();
    app.post("/hook", webhookMiddleware({ secret }), (req, res) => {
      res.json({ got: (req as unknown as VerifiedWebhookRequest).webhook?.event });
    });
    const url = await listen(app);
    const ok = await post(url, live());
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ got: "invoice.settled" });
    const bad = await post(url, { ...live(), "x-webhook-signature": "0".repeat(64) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "signature_mismatch" });
    const stale = await post(url, signed({}, Date.now() - 600_000));
    expect(await stale.json()).toEqual({ error: "timestamp_out_of_tolerance" });

    const rawApp = express();
    rawApp.post("/hook", express.raw({ type: "application/json" }), webhookMiddleware({ secret }), (_req, res) => res.status(204).end());
    expect((await post(await listen(rawApp), live())).status).toBe(204);
  });

  it("refuses to verify a body express.json() already re-parsed (the signed bytes are gone)", async () => {
    const app = express();
    app.post("/hook", express.json(), webhookMiddleware({ secret }), (_req, res) => res.status(204).end());
    app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => res.status(500).json({ misconfigured: err.message }));
    const res = await post(await listen(app), live());
    expect(res.status).toBe(500);
    expect((await res.json()).misconfigured).toMatch(/raw body/);
  });

  it("works on plain node:http and refuses oversized bodies", async () => {
    const verify = webhookMiddleware({ secret });
    const url = await listen((req, res) =>
      verify(req, res, (err) => {
        res.statusCode = err ? 500 : 200;
        res.end(err ? "" : (req as VerifiedWebhookRequest).rawBody?.toString());
      }),
    );
    const ok = await post(url, live());
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe(body);
    const missing = await post(url, { "content-type": "application/json" });
    expect(await missing.json()).toEqual({ error: "missing_signature" });
    const huge = await post(url, live(), "x".repeat(1_000_001));
    expect(huge.status).toBe(413);
  });
});

describe("verifyNextWebhook (Next.js route handlers)", () => {
  it("reads request.text() and answers 400 {error: code} on failure", async () => {
    const request = (headers: Record<string, string>, payload = body) => new Request("http://127.0.0.1/api/hooks", { method: "POST", headers, body: payload });
    const ok = await verifyNextWebhook(request(signed()), secret, { now });
    expect(ok.ok && ok.event.data).toEqual({ paymentHash: "ab".repeat(32), amountSats: 21 });
    const bad = await verifyNextWebhook(request(signed({ "x-webhook-timestamp": "soon" })), secret, { now });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.code).toBe("invalid_timestamp");
      expect(bad.response.status).toBe(400);
      expect(await bad.response.json()).toEqual({ error: "invalid_timestamp" });
    }
    const noSecret = await verifyNextWebhook(request(signed()), undefined, { now });
    expect(!noSecret.ok && noSecret.code).toBe("missing_secret");
  });
});
