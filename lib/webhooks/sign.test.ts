// Signing: secrets in the Standard Webhooks format, and both signatures checked by verifiers
// written here from the specs with WebCrypto (independent of the node:crypto code under test).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, serializeEnvelope, signDelivery } from "./sign.ts";

/** Standard Webhooks spec verifier: key = base64-decode(secret minus "whsec_"), v1 = base64 HMAC-SHA256 of id.ts.body. */
async function standardWebhooksVerify(secret: string, headers: Record<string, string>, body: string, nowSeconds: number): Promise<boolean> {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const keyBytes = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  const expected = btoa(String.fromCharCode(...mac));
  return signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    return version === "v1" && signature === expected;
  });
}

/** Spec 6.2 verifier: hex HMAC-SHA256 of `${ms}.${body}` keyed with the secret string exactly as given. */
async function specVerify(secret: string, headers: Record<string, string>, body: string): Promise<boolean> {
  const keyBytes = new TextEncoder().encode(secret);
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${headers["x-webhook-timestamp"]}.${body}`)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("") === headers["x-webhook-signature"];
}

const VECTOR_HEX = "9a62eb6161d661478a88f5718f180a3a75811a7c950dc51f16656bac1d5f27f8";
const VECTOR_B64 = "OHBQOJh/RyAk1F4HTHuOYvxokKC7QzRGd6FI/ALOlYI=";

describe("webhook secrets", () => {
  it("are whsec_ + base64 of 32 random bytes, all different", () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    }
  });
});

describe("signDelivery", () => {
  it("produces both signatures that independent spec verifiers accept, for any body", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uuid(), fc.string({ unit: "grapheme" }), fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }), async (id, text, ts) => {
        const secret = generateWebhookSecret();
        const body = serializeEnvelope({ id, event: "invoice.settled", timestamp: new Date(ts).toISOString(), data: { text } });
        const headers = signDelivery({ secret, id, event: "invoice.settled", body, timestampMs: ts });
        expect(headers["x-webhook-timestamp"]).toBe(String(ts));
        expect(headers["webhook-timestamp"]).toBe(String(Math.floor(ts / 1000)));
        expect(headers["x-webhook-id"]).toBe(id);
        expect(headers["webhook-id"]).toBe(id);
        expect(headers["x-webhook-event"]).toBe("invoice.settled");
        expect(await standardWebhooksVerify(secret, headers, body, Math.floor(ts / 1000))).toBe(true);
        expect(await specVerify(secret, headers, body)).toBe(true);
        // Tampering with one byte of the body breaks both.
        expect(await standardWebhooksVerify(secret, headers, `${body} `, Math.floor(ts / 1000))).toBe(false);
        expect(await specVerify(secret, headers, `${body} `)).toBe(false);
      }),
      { numRuns: 50 },
    );
  });

  it("matches a fixed vector", () => {
    // Secret = whsec_ + base64 of bytes 0x01..0x20 (docs/webhooks.md's test vector). Expected values
    // computed with the openssl CLI; X-Webhook-Signature is keyed with the secret string itself:
    //   printf '%s' '1700000000123.{"a":1}' | openssl dgst -sha256 -mac HMAC -macopt key:whsec_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=
    //   printf '%s' 'msg_1.1700000000.{"a":1}' | openssl dgst -sha256 -binary -mac HMAC -macopt hexkey:0102…20 | base64
    const secret = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1)).toString("base64")}`;
    expect(secret).toBe("whsec_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=");
    const headers = signDelivery({ secret, id: "msg_1", event: "invoice.settled", body: '{"a":1}', timestampMs: 1_700_000_000_123 });
    expect(headers["x-webhook-signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers["x-webhook-signature"]).toBe(VECTOR_HEX);
    expect(headers["webhook-signature"]).toBe(`v1,${VECTOR_B64}`);
  });
});

describe("the spec 6.2 recipe with nothing but node:crypto", () => {
  it("is what a receiver following the spec computes: createHmac('sha256', secret) over `${timestamp}.${body}`", async () => {
    const { createHmac } = await import("node:crypto");
    const secret = generateWebhookSecret();
    const body = '{"id":"x","event":"session.created","timestamp":"2026-11-26T00:00:00.000Z","data":{}}';
    const headers = signDelivery({ secret, id: "x", event: "session.created", body, timestampMs: 1_764_115_200_000 });
    expect(headers["x-webhook-signature"]).toBe(createHmac("sha256", secret).update(`${headers["x-webhook-timestamp"]}.${body}`).digest("hex"));
  });
});
