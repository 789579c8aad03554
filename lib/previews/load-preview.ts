// The API page's free preview (docs/api-pages.md, docs/decisions.md "API page previews"): the candle
// chart and the verdict card of an API the hub itself hosts, read by the platform straight from the
// tenant's origin with the gateway's signed headers, as the health monitor does, so no visitor pays
// and no payment is faked. Only the hub's own example tenants are previewed (a stranger's paid data
// is never given away), only the endpoints findPreviewPaths recognizes, with fixed parameters, and
// every answer is shared by all visitors of a process for PREVIEW_TTL_MS: a page polling it costs
// the origin at most one call per endpoint per TTL, however many people watch.
import type { Dispatcher } from "undici";
import type { PrismaClient } from "@/lib/db/client.ts";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { AppError } from "@/lib/errors/index.ts";
import { newRequestId } from "@/lib/logging/request-id.ts";
import { exampleOwnerEmail } from "@/lib/hosted-examples/catalogue.ts";
import { CallAbort } from "@/lib/origin/deadlines.ts";
import { callOrigin } from "@/lib/origin/origin-call.ts";
import { originDispatcher } from "@/lib/origin/origin-policy.ts";
import { readOriginSecrets, tenantSecretColumnsSelect } from "@/lib/tenants/secrets.ts";
import type { Config } from "@/lib/config/index.ts";
import {
  findPreviewPaths,
  parseCandles,
  parseLivePrice,
  parseVerdict,
  type ChartCandle,
  type LivePrice,
  type VerdictCard,
} from "@/lib/try-it/market-preview.ts";

/** How long one origin answer serves every visitor. */
export const PREVIEW_TTL_MS = 10_000;
/** The chart's query: the last three days of hourly candles. */
export const CHART_QUERY = "?timeframe=1h&limit=72";
const VERDICT_QUERY = "?view=full";
const ORIGIN_TIMEOUT_MS = 5_000;
/** Larger answers are refused rather than parsed (72 candles are about 8 KB). */
const MAX_BODY_BYTES = 512 * 1024;

export type ChartPreview = {
  kind: "chart";
  exchange: string | null;
  timeframe: string | null;
  candles: ChartCandle[];
  live: LivePrice | null;
  fetchedAt: string;
};
export type VerdictPreview = { kind: "verdict"; verdict: VerdictCard; fetchedAt: string };
export type PreviewKind = "chart" | "verdict";

export type LoadPreviewOptions = {
  prisma: PrismaClient;
  config: Pick<Config, "appSecret" | "hostedExamples" | "originAllowPrivate"> & Parameters<typeof getDirectoryEntry>[0]["config"];
  slug: string;
  kind: PreviewKind;
  /** Tests pass their own; the default is one shared agent under the origin policy. */
  dispatcher?: Dispatcher;
  now?: () => number;
};

type Cached = { at: number; answer: Promise<ChartPreview | VerdictPreview> };
const cache = new Map<string, Cached>();
let sharedDispatcher: Dispatcher | null = null;

/** Forgets every cached answer (tests). */
export function clearPreviewCache(): void {
  cache.clear();
}

/** The preview of one listed, hub-hosted API: 404 when it has none, 502/504 when its origin fails. */
export function loadPreview(options: LoadPreviewOptions): Promise<ChartPreview | VerdictPreview> {
  const now = options.now ?? Date.now;
  const key = `${options.slug.toLowerCase()}:${options.kind}`;
  const hit = cache.get(key);
  if (hit && now() - hit.at < PREVIEW_TTL_MS) return hit.answer;
  const answer = fetchPreview(options, now);
  cache.set(key, { at: now(), answer });
  // A failure is not kept: the next visitor asks again.
  answer.catch(() => {
    if (cache.get(key)?.answer === answer) cache.delete(key);
  });
  return answer;
}

async function fetchPreview(options: LoadPreviewOptions, now: () => number): Promise<ChartPreview | VerdictPreview> {
  const { prisma, config, slug, kind } = options;
  const none = new AppError("not_found", `No ${kind} preview for "${slug}"`);
  const wanted = slug.toLowerCase();
  if (!config.hostedExamples.includes(wanted)) throw none;
  const entry = await getDirectoryEntry({ prisma, config, slug: wanted });
  if (!entry || entry.isExternal) throw none;
  const paths = findPreviewPaths(entry.endpoints);
  const tenant = await prisma.tenant.findFirst({
    where: { slug: wanted, status: "active", memberships: { some: { role: "owner", user: { email: exampleOwnerEmail(wanted) } } } },
    select: { originUrl: true, ...tenantSecretColumnsSelect },
  });
  if (!tenant?.originUrl) throw none;
  const secrets = readOriginSecrets(config.appSecret, tenant);
  const call = (path: string, search: string) => getJson({ ...options, originUrl: tenant.originUrl!, secrets, path, search });
  const fetchedAt = new Date(now()).toISOString();

  if (kind === "verdict") {
    if (!paths.verdict) throw none;
    const verdict = parseVerdict(await call(paths.verdict, VERDICT_QUERY), 3);
    if (!verdict) throw new AppError("bad_gateway", "The API's verdict answer has no state, bias and risk");
    return { kind, verdict, fetchedAt };
  }
  if (!paths.candles) throw none;
  const [history, snapshot] = await Promise.all([
    call(paths.candles, CHART_QUERY),
    // The chart still draws the closed candles when the live price fails.
    paths.snapshot ? call(paths.snapshot, "").catch(() => null) : Promise.resolve(null),
  ]);
  const body = history as { exchange?: unknown; timeframe?: unknown };
  return {
    kind,
    exchange: typeof body.exchange === "string" ? body.exchange : null,
    timeframe: typeof body.timeframe === "string" ? body.timeframe : null,
    candles: parseCandles(history),
    live: parseLivePrice(snapshot, now()),
    fetchedAt,
  };
}

async function getJson(
  options: LoadPreviewOptions & { originUrl: string; secrets: ReturnType<typeof readOriginSecrets>; path: string; search: string },
): Promise<unknown> {
  sharedDispatcher ??= originDispatcher(options.config, { connections: 4, keepAliveTimeoutMs: 10_000 });
  const response = await callOrigin({
    dispatcher: options.dispatcher ?? sharedDispatcher,
    originUrl: options.originUrl,
    method: "GET",
    path: options.path,
    search: options.search,
    clientHeaders: { accept: "application/json", "user-agent": "l402-hub-page-preview/1" },
    body: null,
    requestId: newRequestId(),
    clientIp: "",
    forwardedHost: "",
    forwardedProto: "https",
    secrets: options.secrets,
    timeoutMs: ORIGIN_TIMEOUT_MS,
    signal: new CallAbort(),
  });
  if (response.kind !== "response") throw new AppError(response.kind === "timeout" ? "gateway_timeout" : "bad_gateway", response.message);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        response.body.destroy();
        throw new AppError("bad_gateway", `The API's answer to ${options.path} is larger than ${MAX_BODY_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("bad_gateway", `The API's answer to ${options.path} broke off`);
  }
  if (response.statusCode !== 200) throw new AppError("bad_gateway", `The API answered ${options.path} with status ${response.statusCode}`);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new AppError("bad_gateway", `The API's answer to ${options.path} is not JSON`);
  }
}
