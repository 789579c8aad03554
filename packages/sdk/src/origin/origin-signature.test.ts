import { describe, expect, it } from "vitest";
import { canonicalOriginPayload, canonicalOriginPayloadV2, signOriginPayload, verifyGatewayRequest } from "./origin-signature.ts";

const secrets = { gatewaySecret: "gws_test", hmacSecret: "hmac_test" };
const now = 1_700_000_000_000;

function signed(overrides: Record<string, string> = {}, body = '{"a":1}', method = "POST", path = "/v1/x") {
  const timestamp = String(now - 1000);
  const nonce = "8a7f1e7e-1b2c-4d3e-9f00-0123456789ab";
  const signature = signOriginPayload(secrets.hmacSecret, canonicalOriginPayload({ method, path, timestamp, nonce, body }));
  return {
    method,
    path,
    rawBody: body,
    now,
    secrets: [secrets],
    headers: {
      "x-gateway-secret": secrets.gatewaySecret,
      "x-gateway-signature": signature,
      "x-gateway-timestamp": timestamp,
      "x-gateway-nonce": nonce,
      ...overrides,
    },
  };
}

describe("origin signature", () => {
  it("builds the canonical payload with an empty body for GET and HEAD", () => {
    expect(canonicalOriginPayload({ method: "get", path: "/v1/x", timestamp: "1", nonce: "n", body: "ignored" })).toBe("GET\n/v1/x\n1\nn\n");
    expect(canonicalOriginPayload({ method: "POST", path: "/v1/x", timestamp: "1", nonce: "n", body: "{}" })).toBe("POST\n/v1/x\n1\nn\n{}");
  });

  it("matches the published test vector (docs/origin-verification.md)", () => {
    const payload = canonicalOriginPayload({
      method: "POST",
      path: "/v1/x",
      timestamp: "1700000000000",
      nonce: "8a7f1e7e-1b2c-4d3e-9f00-0123456789ab",
      body: '{"a":1}',
    });
    expect(signOriginPayload("hmac_test", payload)).toBe("5ed76d972659cfdb08e9a23824f473a0eb67599c0727a0f3cb29e2f274cec8c5");
    const get = canonicalOriginPayload({ method: "GET", path: "/v1/x", timestamp: "1700000000000", nonce: "8a7f1e7e-1b2c-4d3e-9f00-0123456789ab", body: "" });
    expect(signOriginPayload("hmac_test", get)).toBe("cedb39f3c5606895300249c96c859f2a5fbe047d7becaaccdc48b3ec1d3fefdb");
  });

  it("matches the published v2 test vectors, which cover the query (docs/origin-verification.md)", () => {
    const nonce = "8a7f1e7e-1b2c-4d3e-9f00-0123456789ab";
    const post = canonicalOriginPayloadV2({ method: "POST", path: "/v1/x", query: "?a=1&b=%20x", timestamp: "1700000000000", nonce, body: '{"a":1}' });
    expect(post).toBe('v2\nPOST\n/v1/x\na=1&b=%20x\n1700000000000\n8a7f1e7e-1b2c-4d3e-9f00-0123456789ab\n{"a":1}');
    expect(signOriginPayload("hmac_test", post)).toBe("4f41dca55469f7ba1e29e5cad1f1f8b132b517ae5e2e30b9df0d9bbbec8caa50");
    const get = canonicalOriginPayloadV2({ method: "GET", path: "/v1/x", query: "", timestamp: "1700000000000", nonce, body: "ignored" });
    expect(get).toBe("v2\nGET\n/v1/x\n\n1700000000000\n8a7f1e7e-1b2c-4d3e-9f00-0123456789ab\n");
    expect(signOriginPayload("hmac_test", get)).toBe("f218d6bfdb48db810567e599cb5d073eb825928746ba0d62a9b202aa2dc8ea9b");
  });

  it("checks v2 when the request carries it and the query is given, v1 otherwise", async () => {
    const base = signed({}, '{"a":1}', "POST", "/v1/x");
    const timestamp = base.headers["x-gateway-timestamp"];
    const nonce = base.headers["x-gateway-nonce"];
    const v2 = signOriginPayload(
      secrets.hmacSecret,
      canonicalOriginPayloadV2({ method: "POST", path: "/v1/x", query: "q=1", timestamp, nonce, body: '{"a":1}' }),
    );
    const withV2 = { ...base, headers: { ...base.headers, "x-gateway-signature-v2": v2 } };
    expect(await verifyGatewayRequest({ ...withV2, query: "q=1" })).toEqual({ ok: true });
    expect(await verifyGatewayRequest({ ...withV2, query: "q=2" })).toEqual({ ok: false, reason: "signature_mismatch" });
    // No query given: a verifier that cannot check v2 still checks v1.
    expect(await verifyGatewayRequest(withV2)).toEqual({ ok: true });
    // A v2 header that does not verify is not rescued by a valid v1.
    expect(await verifyGatewayRequest({ ...withV2, query: "q=1", headers: { ...withV2.headers, "x-gateway-signature-v2": "0".repeat(64) } })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    expect(await verifyGatewayRequest({ ...base, query: "q=1", requireSignatureV2: true })).toEqual({ ok: false, reason: "missing_headers" });
  });

  it("accepts a genuine request and a previous secret pair during rotation", async () => {
    expect(await verifyGatewayRequest(signed())).toEqual({ ok: true });
    const rotated = { ...signed(), secrets: [{ gatewaySecret: "new", hmacSecret: "new" }, secrets] };
    expect(await verifyGatewayRequest(rotated)).toEqual({ ok: true });
  });

  it.each([
    ["missing_headers", { ...signed(), headers: { ...signed().headers, "x-gateway-nonce": undefined as unknown as string } }],
    ["invalid_timestamp", signed({ "x-gateway-timestamp": "soon" })],
    ["timestamp_out_of_window", signed({ "x-gateway-timestamp": String(now - 31_000) })],
    ["timestamp_out_of_window", signed({ "x-gateway-timestamp": String(now + 5_001) })],
    ["secret_mismatch", signed({ "x-gateway-secret": "wrong" })],
    ["signature_mismatch", signed({ "x-gateway-signature": "0".repeat(64) })],
    ["signature_mismatch", { ...signed(), rawBody: '{"a":2}' }],
  ])("rejects with %s", async (reason, request) => {
    expect(await verifyGatewayRequest(request)).toEqual({ ok: false, reason });
  });

  it("rejects a replayed nonce", async () => {
    const seen = new Set<string>();
    const rememberNonce = (n: string) => (seen.has(n) ? false : (seen.add(n), true));
    expect(await verifyGatewayRequest({ ...signed(), rememberNonce })).toEqual({ ok: true });
    expect(await verifyGatewayRequest({ ...signed(), rememberNonce })).toEqual({ ok: false, reason: "replayed_nonce" });
  });
});
