// Tenant configuration served from memory on the hot path. Entries are dropped when a provider
// changes something (a "config-changed" message through the store's pub/sub reaches every gateway
// instance within milliseconds) and refreshed after a TTL as a safety net. A load that was running
// when an invalidation arrived is not kept (its answer may predate the change). Unknown slugs are
// remembered briefly and boundedly; the gateway limits lookups per IP (rate-limit.ts).
import type { Prisma, PrismaClient } from "@/lib/db/client.ts";
import { readOriginSecrets, type OriginSecrets } from "@/lib/tenants/secrets.ts";
import { configChangedChannel } from "@/lib/tenants/config-events.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { compileRoute, sortRoutes, type CompiledRoute } from "./route-match.ts";

/**
 * The stored endpoint fields the gateway serves by (matching, pricing, caching, streaming, limits,
 * cookies, state): a select on the Endpoint model, so their names and types are the schema's own
 * (prisma/schema.prisma) and the loader copies nothing by hand. Descriptions, parameters and
 * examples stay in the database: the gateway never reads them.
 */
export const gatewayEndpointSelect = {
  id: true,
  method: true,
  path: true,
  title: true,
  pricingModel: true,
  priceSats: true,
  tokenBudget: true,
  durationMinutes: true,
  unitCostSats: true,
  freeTryEnabled: true,
  cacheTtlSeconds: true,
  streaming: true,
  maxStreamSeconds: true,
  idleTimeoutSeconds: true,
  rateLimitPerMinute: true,
  /** Cookies cross between client and origin (filtered: lib/origin/cookie-policy.ts); otherwise stripped. */
  forwardCookies: true,
  isActive: true,
} as const satisfies Prisma.EndpointSelect;

/** An endpoint as the gateway holds it: the Endpoint row's type, narrowed to gatewayEndpointSelect. */
export type GatewayEndpoint = Prisma.EndpointGetPayload<{ select: typeof gatewayEndpointSelect }>;

export type GatewayTenant = {
  id: string;
  slug: string;
  name: string;
  status: "active" | "inactive" | "suspended";
  originUrl: string | null;
  wallet: { type: "dev" | "lnd" | "nwc" | "lnbits" | "phoenixd"; credentialsEnc: string } | null;
  secrets: OriginSecrets;
  routes: CompiledRoute<GatewayEndpoint>[];
};

type Entry = { value: GatewayTenant; loadedAt: number };

export type TenantCacheOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  appSecret: string;
  /** Safety-net refresh interval; invalidation messages normally arrive first. */
  ttlMs?: number;
  /** How long an unknown slug is remembered (protects the database from repeated unknown slugs). */
  negativeTtlMs?: number;
  /** How many unknown slugs are remembered at most (oldest forgotten first), so random ones cannot fill memory. */
  maxUnknownSlugs?: number;
};

export class TenantCache {
  private readonly entries = new Map<string, Entry>();
  /** Unknown slugs and when they were looked up, oldest first (insertion order). */
  private readonly unknown = new Map<string, number>();
  private readonly loading = new Map<string, Promise<GatewayTenant | null>>();
  /** Bumped by every invalidation: a load that started under an older generation does not store its result. */
  private generation = 0;
  private unsubscribe: (() => Promise<void>) | null = null;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxUnknownSlugs: number;

  constructor(private readonly options: TenantCacheOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 5_000;
    this.maxUnknownSlugs = options.maxUnknownSlugs ?? 10_000;
  }

  /** Entries held (tenants and remembered unknown slugs). */
  get size(): number {
    return this.entries.size + this.unknown.size;
  }

  /** Subscribes to config-change notifications. */
  async start(): Promise<void> {
    this.unsubscribe = await this.options.store.subscribe(configChangedChannel, (message) => {
      let tenantId: string | undefined;
      try {
        tenantId = (JSON.parse(message) as { tenantId?: string }).tenantId;
      } catch {
        tenantId = undefined;
      }
      this.invalidate(tenantId);
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Drops one tenant (and every unknown slug, since a new slug may now exist), or everything. */
  invalidate(tenantId?: string): void {
    this.generation += 1;
    for (const [slug, entry] of this.entries) {
      if (!tenantId || entry.value.id === tenantId) this.entries.delete(slug);
    }
    this.unknown.clear();
    this.loading.clear();
  }

  /**
   * True when get(slug) would ask the database about a slug that is not a known tenant: nothing
   * cached, not even expired, and no load in flight to join. The gateway limits these per IP; the
   * refresh of a known tenant after its TTL does not count.
   */
  lookupNeeded(slug: string): boolean {
    return !this.entries.has(slug) && !this.loading.has(slug) && this.cached(slug) === undefined;
  }

  /** What the cache knows without a lookup: the tenant, null for a remembered unknown slug, undefined when it would have to load. */
  private cached(slug: string): GatewayTenant | null | undefined {
    const now = Date.now();
    const entry = this.entries.get(slug);
    if (entry && now - entry.loadedAt < this.ttlMs) return entry.value;
    const unknownSince = this.unknown.get(slug);
    if (unknownSince !== undefined && now - unknownSince < this.negativeTtlMs) return null;
    return undefined;
  }

  async get(slug: string): Promise<GatewayTenant | null> {
    const known = this.cached(slug);
    if (known !== undefined) return known;
    let pending = this.loading.get(slug);
    if (!pending) {
      const started: Promise<GatewayTenant | null> = this.load(slug).finally(() => {
        // An invalidation may have replaced this load with a newer one meanwhile: leave that one.
        if (this.loading.get(slug) === started) this.loading.delete(slug);
      });
      pending = started;
      this.loading.set(slug, pending);
    }
    return pending;
  }

  private async load(slug: string): Promise<GatewayTenant | null> {
    const generation = this.generation;
    const row = await this.options.prisma.tenant.findUnique({
      where: { slug },
      include: { endpoints: { select: gatewayEndpointSelect }, wallet: { select: { type: true, credentialsEnc: true } } },
    });
    // A deleted workspace (lib/tenants/delete-tenant.ts) keeps its row, which reserves the slug, but
    // the gateway knows it no more than a slug that never existed: 404.
    const value: GatewayTenant | null =
      row && !row.deletedAt
        ? {
            id: row.id,
            slug: row.slug,
            name: row.name,
            status: row.status,
            originUrl: row.originUrl,
            wallet: row.wallet,
            secrets: readOriginSecrets(this.options.appSecret, row),
            routes: sortRoutes(row.endpoints.map((endpoint) => compileRoute({ method: endpoint.method, path: endpoint.path, value: endpoint }))),
          }
        : null;
    // Loaded before an invalidation: the answer may predate the change, so it serves only the
    // requests that were already waiting for it.
    if (generation !== this.generation) return value;
    if (value) {
      this.entries.set(slug, { value, loadedAt: Date.now() });
      this.unknown.delete(slug);
    } else {
      // A tenant deleted (or renamed) since: its slug is unknown now, and looking it up again counts.
      this.entries.delete(slug);
      this.rememberUnknown(slug);
    }
    return value;
  }

  private rememberUnknown(slug: string): void {
    this.unknown.delete(slug);
    this.unknown.set(slug, Date.now());
    for (const oldest of this.unknown.keys()) {
      if (this.unknown.size <= this.maxUnknownSlugs) break;
      this.unknown.delete(oldest);
    }
  }
}
