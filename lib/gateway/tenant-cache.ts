// Tenant configuration served from memory on the hot path. Entries are dropped when a provider
// changes something (a "config-changed" message through the store's pub/sub reaches every gateway
// instance within milliseconds) and refreshed after a TTL as a safety net.
import type { PrismaClient } from "../db/client.ts";
import { readOriginSecrets, type OriginSecrets } from "../tenants/secrets.ts";
import { configChangedChannel } from "../tenants/config-events.ts";
import type { KeyValueStore } from "../store/types.ts";
import type { PricingModel } from "../pricing/quote.ts";
import { compileRoute, sortRoutes, type CompiledRoute } from "./route-match.ts";

export type GatewayEndpoint = {
  id: string;
  method: string;
  path: string;
  title: string;
  pricingModel: PricingModel | null;
  priceSats: number | null;
  tokenBudget: number | null;
  durationMinutes: number | null;
  unitCostSats: number | null;
  freeTryEnabled: boolean;
  cacheTtlSeconds: number | null;
  streaming: boolean;
  maxStreamSeconds: number | null;
  idleTimeoutSeconds: number | null;
  rateLimitPerMinute: number | null;
  /** Cookies cross between client and origin (filtered: lib/gateway/cookie-policy.ts); otherwise stripped. */
  forwardCookies: boolean;
  isActive: boolean;
};

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

type Entry = { value: GatewayTenant | null; loadedAt: number };

export type TenantCacheOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  appSecret: string;
  /** Safety-net refresh interval; invalidation messages normally arrive first. */
  ttlMs?: number;
  /** How long an unknown slug is remembered (protects the database from random slugs). */
  negativeTtlMs?: number;
};

export class TenantCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<GatewayTenant | null>>();
  private unsubscribe: (() => Promise<void>) | null = null;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;

  constructor(private readonly options: TenantCacheOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 5_000;
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

  /** Drops one tenant (and every negative entry, since a new slug may now exist), or everything. */
  invalidate(tenantId?: string): void {
    for (const [slug, entry] of this.entries) {
      if (!tenantId || entry.value === null || entry.value.id === tenantId) this.entries.delete(slug);
    }
    this.loading.clear();
  }

  async get(slug: string): Promise<GatewayTenant | null> {
    const entry = this.entries.get(slug);
    const now = Date.now();
    if (entry && now - entry.loadedAt < (entry.value ? this.ttlMs : this.negativeTtlMs)) return entry.value;
    let pending = this.loading.get(slug);
    if (!pending) {
      pending = this.load(slug).finally(() => this.loading.delete(slug));
      this.loading.set(slug, pending);
    }
    return pending;
  }

  private async load(slug: string): Promise<GatewayTenant | null> {
    const row = await this.options.prisma.tenant.findUnique({
      where: { slug },
      include: { endpoints: true, wallet: { select: { type: true, credentialsEnc: true } } },
    });
    const value: GatewayTenant | null = row
      ? {
          id: row.id,
          slug: row.slug,
          name: row.name,
          status: row.status,
          originUrl: row.originUrl,
          wallet: row.wallet,
          secrets: readOriginSecrets(this.options.appSecret, row),
          routes: sortRoutes(
            row.endpoints.map((e) =>
              compileRoute({
                method: e.method,
                path: e.path,
                value: {
                  id: e.id,
                  method: e.method,
                  path: e.path,
                  title: e.title,
                  pricingModel: e.pricingModel,
                  priceSats: e.priceSats,
                  tokenBudget: e.tokenBudget,
                  durationMinutes: e.durationMinutes,
                  unitCostSats: e.unitCostSats,
                  freeTryEnabled: e.freeTryEnabled,
                  cacheTtlSeconds: e.cacheTtlSeconds,
                  streaming: e.streaming,
                  maxStreamSeconds: e.maxStreamSeconds,
                  idleTimeoutSeconds: e.idleTimeoutSeconds,
                  rateLimitPerMinute: e.rateLimitPerMinute,
                  forwardCookies: e.forwardCookies,
                  isActive: e.isActive,
                },
              }),
            ),
          ),
        }
      : null;
    this.entries.set(slug, { value, loadedAt: Date.now() });
    return value;
  }
}
