// The dashboard's "Test connection": one signed probe (the health monitor's request, with
// `X-Hub-Probe: 1`) from the server to the workspace's saved origin, reporting status and latency.
// The target is checked with the SSRF rules (lib/origin/ssrf.ts) first (private and reserved
// addresses are refused unless ORIGIN_ALLOW_PRIVATE), and the connection itself goes through the
// pinned dispatcher, so a DNS answer that changes after the check cannot reach a blocked address.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { CallAbort } from "@/lib/origin/deadlines.ts";
import { callOrigin } from "@/lib/origin/origin-call.ts";
import { probeRequest } from "./monitor.ts";
import { checkTargetUrl, createPinnedDispatcher, systemResolver, type HostResolver } from "@/lib/origin/ssrf.ts";
import { originTargetPolicy } from "@/lib/origin/origin-policy.ts";
import { readOriginSecrets, tenantSecretColumnsSelect } from "@/lib/tenants/secrets.ts";

export type TestOriginConnectionOptions = {
  prisma: PrismaClient;
  appSecret: string;
  tenantId: string;
  /** ORIGIN_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  resolver?: HostResolver;
  timeoutMs?: number;
};

export type OriginTestResult = {
  /** Reachable: an answer below 500 (the health monitor's rule). */
  ok: boolean;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  /** What was probed: the first active endpoint, or the origin's root. */
  method: string;
  path: string;
  checkedAt: Date;
};

/** Probes the saved origin; 422 naming `originUrl` when there is none or it is refused. */
export async function testOriginConnection(options: TestOriginConnectionOptions): Promise<OriginTestResult> {
  const { prisma, appSecret, tenantId, allowPrivate, resolver = systemResolver, timeoutMs = 10_000 } = options;
  const tenant = await prisma.tenant.findUnique({
    where: { id: tenantId },
    select: {
      originUrl: true,
      ...tenantSecretColumnsSelect,
      endpoints: { where: { isActive: true }, orderBy: { createdAt: "asc" }, take: 1, select: { method: true, path: true, exampleRequest: true } },
    },
  });
  if (!tenant) throw new AppError("not_found", "Workspace not found");
  const refuse = (message: string, rule: string) =>
    new AppError("validation_failed", `Invalid request: originUrl: ${message}`, { fields: [{ field: "originUrl", message, rule }] });
  if (!tenant.originUrl) throw refuse("set an origin URL before testing it", "missing");
  const policy = originTargetPolicy({ originAllowPrivate: allowPrivate }, resolver);
  const problem = await checkTargetUrl(tenant.originUrl, policy, { requireHttps: false });
  if (problem) throw refuse(problem.message, problem.rule);

  const endpoint = tenant.endpoints[0];
  const method = endpoint ? endpoint.method.toUpperCase() : "GET";
  const request = probeRequest({ endpointId: "", method, path: endpoint?.path ?? "/", exampleRequest: endpoint?.exampleRequest ?? null });
  const dispatcher = createPinnedDispatcher({ ...policy, connectTimeoutMs: Math.min(timeoutMs, 5_000), connectionsPerOrigin: 1 });
  const checkedAt = new Date();
  const started = performance.now();
  try {
    const response = await callOrigin({
      dispatcher,
      originUrl: tenant.originUrl,
      method,
      path: request.path,
      search: request.search,
      clientHeaders: { ...request.headers, "user-agent": "l402-hub-origin-test/1" },
      body: request.body,
      requestId: randomUUID(),
      clientIp: "",
      forwardedHost: "",
      forwardedProto: "https",
      secrets: readOriginSecrets(appSecret, tenant),
      timeoutMs,
      signal: new CallAbort(),
      probe: true,
    });
    const latencyMs = Math.round(performance.now() - started);
    const target = { method, path: `${request.path}${request.search}`, checkedAt };
    if (response.kind !== "response") return { ok: false, statusCode: null, latencyMs: null, error: response.message, ...target };
    response.body.on("error", () => {});
    response.body.destroy();
    const ok = response.statusCode < 500;
    return { ok, statusCode: response.statusCode, latencyMs, error: ok ? null : `origin answered ${response.statusCode}`, ...target };
  } finally {
    await dispatcher.close().catch(() => {});
  }
}
