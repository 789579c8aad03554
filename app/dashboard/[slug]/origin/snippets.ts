// Ready-to-paste origin verification for the Origin page: the secrets as environment variables
// and middleware for Express, Next.js (our SDK, @l402-hub/sdk/origin) and Python (standard
// library, same rules as docs/origin-verification.md). During a rotation grace period every
// snippet accepts the previous pair too.

export type SnippetSecrets = {
  gatewaySecret: string;
  hmacSecret: string;
  previous?: { gatewaySecret: string; hmacSecret: string; validUntil: string };
};

export type VerificationSnippets = { env: string; express: string; next: string; python: string };

/** The snippets for these secrets (pure). */
export function verificationSnippets(secrets: SnippetSecrets): VerificationSnippets {
  const previous = secrets.previous;
  const env = [
    `GATEWAY_SECRET=${secrets.gatewaySecret}`,
    `HMAC_SECRET=${secrets.hmacSecret}`,
    ...(previous
      ? [
          `# previous pair, valid until ${previous.validUntil}`,
          `PREVIOUS_GATEWAY_SECRET=${previous.gatewaySecret}`,
          `PREVIOUS_HMAC_SECRET=${previous.hmacSecret}`,
        ]
      : []),
  ].join("\n");
  const jsSecrets = [
    "const secrets = [",
    "  { gatewaySecret: process.env.GATEWAY_SECRET!, hmacSecret: process.env.HMAC_SECRET! },",
    ...(previous
      ? [
          "  // accepted until the grace period ends; remove afterwards",
          "  { gatewaySecret: process.env.PREVIOUS_GATEWAY_SECRET!, hmacSecret: process.env.PREVIOUS_HMAC_SECRET! },",
        ]
      : []),
    "];",
  ].join("\n");
  const express = `import express from "express";
import { gatewayGuard } from "@l402-hub/sdk/origin"; // npm install @l402-hub/sdk

${jsSecrets}

const app = express();
app.use(express.raw({ type: "*/*" })); // the signature covers the raw body
app.use(gatewayGuard({ secrets })); // 403 unless the request was signed by the gateway
app.get("/v1/hello", (req, res) => res.json({ hello: "world" }));
app.listen(8080);`;
  const next = `// app/api/origin/v1/hello/route.ts
import { withGatewayGuard } from "@l402-hub/sdk/origin"; // npm install @l402-hub/sdk

${jsSecrets}

export const GET = withGatewayGuard(async () => Response.json({ hello: "world" }), {
  secrets,
  basePath: "/api/origin", // the gateway signs /v1/hello
});`;
  const python = `import hashlib, hmac, os, time

SECRETS = [os.environ["HMAC_SECRET"]${previous ? ', os.environ["PREVIOUS_HMAC_SECRET"]' : ""}]
seen_nonces = set()  # use a shared store with a TTL when you run several instances

def from_gateway(method: str, path: str, headers, raw_body: bytes, window_ms: int = 30_000) -> bool:
    """True when the gateway signed this request (answer 403 otherwise)."""
    sig, ts, nonce = headers.get("x-gateway-signature"), headers.get("x-gateway-timestamp"), headers.get("x-gateway-nonce")
    if not (sig and ts and nonce) or not ts.isdigit():
        return False
    age = int(time.time() * 1000) - int(ts)
    if age < 0 or age > window_ms or nonce in seen_nonces:
        return False
    body = "" if method.upper() in ("GET", "HEAD") else raw_body.decode("utf-8")
    payload = "\\n".join([method.upper(), path, ts, nonce, body]).encode("utf-8")
    for secret in SECRETS:
        expected = hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()
        if hmac.compare_digest(expected, sig):
            seen_nonces.add(nonce)
            return True
    return False`;
  return { env, express, next, python };
}
