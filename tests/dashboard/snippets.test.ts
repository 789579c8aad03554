// The Origin page's verification snippets: the environment block carries exactly the secrets
// (and the previous pair only during a rotation), and the Python snippet really verifies what the
// gateway signs (run with python3 against headers from lib/origin/origin-call.ts).
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { verificationSnippets } from "@/app/dashboard/[slug]/origin/snippets.ts";
import { originHeaders } from "@/lib/origin/origin-call.ts";

const current = { gatewaySecret: "gws_current", hmacSecret: "hmac_current" };
const previous = { gatewaySecret: "gws_old", hmacSecret: "hmac_old", validUntil: "2026-11-22T10:00:00.000Z" };

function signedHeaders(hmacSecret: string, method: string, path: string, body: string) {
  return originHeaders({
    originUrl: "http://origin.test",
    method,
    path,
    search: "",
    clientHeaders: {},
    body: body ? Buffer.from(body) : null,
    requestId: "r",
    clientIp: "",
    forwardedHost: "",
    forwardedProto: "https",
    secrets: { gatewaySecret: "unused", hmacSecret },
  });
}

/** Runs the Python snippet's from_gateway on one request; true/false as Python says. */
function pythonVerifies(
  code: string,
  env: Record<string, string>,
  request: { method: string; path: string; headers: Record<string, unknown>; body: string },
): boolean {
  const harness = `${code}

import json, sys
req = json.loads(sys.stdin.read())
print("yes" if from_gateway(req["method"], req["path"], req["headers"], req["body"].encode("utf-8")) else "no")
`;
  const run = spawnSync("python3", ["-c", harness], { input: JSON.stringify(request), env: { ...process.env, ...env }, encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout.trim() === "yes";
}

describe("verificationSnippets", () => {
  it("puts the current secrets in the environment block, and the previous pair only while it lasts", () => {
    const plain = verificationSnippets(current);
    expect(plain.env).toBe("GATEWAY_SECRET=gws_current\nHMAC_SECRET=hmac_current");
    expect(plain.express).not.toContain("PREVIOUS_");
    const rotating = verificationSnippets({ ...current, previous });
    expect(rotating.env).toContain("PREVIOUS_HMAC_SECRET=hmac_old");
    expect(rotating.env).toContain("valid until 2026-11-22T10:00:00.000Z");
    for (const code of [rotating.express, rotating.next]) expect(code).toContain("process.env.PREVIOUS_HMAC_SECRET");
    expect(rotating.express).toContain("gatewayGuard({ secrets })");
    expect(rotating.next).toContain("withGatewayGuard(");
  });

  it("gives Python code that accepts the gateway's signature (current and previous) and refuses tampering", () => {
    const { python } = verificationSnippets({ ...current, previous });
    const env = { HMAC_SECRET: current.hmacSecret, PREVIOUS_HMAC_SECRET: previous.hmacSecret };
    const post = { method: "POST", path: "/v1/quote", body: '{"a":1}' };
    expect(pythonVerifies(python, env, { ...post, headers: signedHeaders(current.hmacSecret, "POST", post.path, post.body) })).toBe(true);
    expect(pythonVerifies(python, env, { ...post, headers: signedHeaders(previous.hmacSecret, "POST", post.path, post.body) })).toBe(true);
    expect(pythonVerifies(python, env, { ...post, body: '{"a":2}', headers: signedHeaders(current.hmacSecret, "POST", post.path, post.body) })).toBe(false);
    expect(pythonVerifies(python, env, { ...post, headers: signedHeaders("someone-else", "POST", post.path, post.body) })).toBe(false);
    const get = { method: "GET", path: "/v1/quote", body: "" };
    expect(pythonVerifies(python, env, { ...get, headers: signedHeaders(current.hmacSecret, "GET", get.path, "") })).toBe(true);
  });
});
