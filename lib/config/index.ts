// The one place that reads process.env. Every variable is declared once here with its default;
// everything else receives a Config. `.env.example` lists the same variables with comments.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { deriveKey } from "@/lib/crypto/secret-box.ts";

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], { message: "must be true or false" })
  .transform((v) => ["true", "1", "yes", "on"].includes(v));

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });

/** `a.b.c.d/n` or `x::y/n` (or a bare address): the shape of one WEBHOOK_ALLOWED_TARGETS entry. */
function isCidr(text: string): boolean {
  const [address, prefix, extra] = text.split("/");
  const family = isIP(address ?? "");
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
const cidrList = z
  .string()
  .transform((v) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every(isCidr), { message: "must be comma-separated CIDRs such as 127.0.0.0/8,::1/128" });

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().min(1).optional(),
  PORT: port.default(3000),
  GATEWAY_PORT: port.default(8402),
  DATA_DIR: z.string().min(1).default(".data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  SITE_URL: httpUrl.optional(),
  GATEWAY_URL_TEMPLATE: z
    .string()
    .refine((v) => v.includes("{slug}"), "must contain {slug}")
    .optional(),
  APP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  HUB_ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  DEV_FEATURES: booleanFlag.optional(),
  LIGHTNING_DEV_NODE: booleanFlag.optional(),
  SEED_DEMO: booleanFlag.optional(),
  HOSTED_EXAMPLES: z
    .string()
    .regex(/^(none|[a-z-]+(,[a-z-]+)*)$/, "must be a comma-separated list of example slugs (routes), or none")
    .optional(),
  SECRET_ROTATION_GRACE_HOURS: positiveInt.default(24),
  CREDIT_TTL_DAYS: positiveInt.default(30),
  INVOICE_EXPIRY_SECONDS: positiveInt.default(600),
  HEALTH_INTERVAL_SECONDS: positiveInt.default(300),
  TRUSTED_PROXIES: z.string().default(""),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  GITHUB_ID: z.string().min(1).optional(),
  GITHUB_SECRET: z.string().min(1).optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional(),
  EMAIL_FROM: z.string().min(3).default("L402 Hub <no-reply@localhost>"),
  ORIGIN_ALLOW_PRIVATE: booleanFlag.optional(),
  WEBHOOK_ALLOWED_TARGETS: cidrList.default([]),
  WEBHOOK_CONCURRENCY: positiveInt.default(32),
  WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: positiveInt.default(4),
  NODE_CAPACITY_CHECK_SECONDS: positiveInt.default(300),
  WALLET_ALLOWED_TARGETS: cidrList.default([]),
  PLATFORM_WALLET_TYPE: z.enum(["dev", "lnd", "nwc", "lnbits", "phoenixd"]).optional(),
  PLATFORM_WALLET_CREDENTIALS: z
    .string()
    .transform((text, ctx) => {
      try {
        const value: unknown = JSON.parse(text);
        if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: "custom", message: "must be a JSON object: the wallet's fields as PUT /api/tenants/:tenantId/wallet takes them, without type" });
      return z.NEVER;
    })
    .optional(),
  FREE_TRY_ISSUER: z.string().min(1).optional(),
  FREE_TRY_JWKS_URL: httpUrl.optional(),
  FREE_TRY_AUDIENCE: z.string().min(1).optional(),
  GATEWAY_CHALLENGES_PER_MINUTE: positiveInt.default(60),
  GATEWAY_STREAMS_PER_SESSION: positiveInt.default(5),
  GATEWAY_FREE_STREAMS_PER_IP: positiveInt.default(20),
  LISTING_REVIEW_BUDGET_SATS: z.coerce.number().int().min(0).max(100_000).default(100),
  LISTING_DENY_LIST: z.string().default(""),
  LISTING_SUBMISSIONS_PER_HOUR: positiveInt.default(10),
});

export type RawEnv = z.input<typeof envSchema>;

export type Config = {
  nodeEnv: "development" | "production" | "test";
  isProduction: boolean;
  /** Interface the web app and the gateway bind to: loopback unless NODE_ENV=production. */
  host: string;
  /**
   * Development features: the dev Lightning node and its pay API (/api/dev/*), the dev mailbox,
   * private origins by default. On outside production while `host` is loopback, or with
   * DEV_FEATURES=true; never in production.
   */
  devFeatures: boolean;
  port: number;
  gatewayPort: number;
  dataDir: string;
  /** PostgreSQL URL; absent means embedded PGlite under dataDir. */
  databaseUrl: string | null;
  /** Redis URL; absent means the in-memory store. */
  redisUrl: string | null;
  siteUrl: string;
  /** `{api_url}` of the spec. */
  apiUrl: string;
  gatewayUrlTemplate: string;
  appSecret: string;
  hubAdminToken: string | null;
  lightningDevNode: boolean;
  seedDemo: boolean;
  /** Example APIs the one-process mode starts and seeds (examples/, docs/examples.md); [] for none. */
  hostedExamples: string[];
  secretRotationGraceHours: number;
  creditTtlDays: number;
  invoiceExpirySeconds: number;
  healthIntervalSeconds: number;
  trustedProxies: string[];
  logLevel: "debug" | "info" | "warn" | "error";
  /** Auth.js signing/encryption secret; derived from appSecret unless AUTH_SECRET is set. */
  authSecret: string;
  /** GitHub OAuth app; sign-in with GitHub is offered only when both are set. */
  github: { clientId: string; clientSecret: string } | null;
  /** SMTP server for sign-in e-mails (nodemailer URL), or null. */
  smtpUrl: string | null;
  /** Sender of sign-in e-mails. */
  emailFrom: string;
  /**
   * With development features and without SMTP_URL, sign-in e-mails are logged and kept for
   * /dev/mailbox instead of sent; e-mail sign-in is offered when this or smtpUrl is set.
   */
  devMailbox: boolean;
  /**
   * Whether "Test connection" may call an origin on a private or reserved address (localhost
   * origins in development). Defaults to devFeatures.
   */
  originAllowPrivate: boolean;
  /** CIDRs webhooks may reach although they are private/reserved (self-hosting and tests only). */
  webhookAllowedTargets: string[];
  /** Deliveries in flight per worker process. */
  webhookConcurrency: number;
  /** Deliveries in flight per subscription, so one slow receiver cannot take every slot. */
  webhookConcurrencyPerSubscription: number;
  /** Interval of the node capacity check (node.capacity_changed). */
  nodeCapacityCheckSeconds: number;
  /** CIDRs wallet connections may reach although they are private/reserved (a self-hosted node on the LAN or localhost; tests). */
  walletAllowedTargets: string[];
  /**
   * The platform's own wallet, which issues the billing invoices (PLATFORM_WALLET_TYPE and
   * _CREDENTIALS, checked against the wallet schemas when billing opens it); null: the dev node
   * when it is on, else no billing invoices.
   */
  platformWallet: { type: "dev" | "lnd" | "nwc" | "lnbits" | "phoenixd"; credentials: Record<string, unknown> } | null;
  /** External identity provider whose JWTs buy a free try (besides our own issuer), or null. */
  freeTryProvider: { issuer: string; jwksUrl: string; audience: string } | null;
  /** 402 challenges (each a new invoice on the provider's wallet) one IP may get from one tenant per minute. */
  gatewayChallengesPerMinute: number;
  /** Streams one time_pass session may hold open at once, across gateway instances. */
  gatewayStreamsPerSession: number;
  /** Streams one client IP (an IPv6 client: its /64) may hold open at once on one tenant's free streaming endpoints. */
  gatewayFreeStreamsPerIp: number;
  /** Sats one external-listing review may spend paying the listed gateway's invoices (0: never pays; lib/listings). */
  listingReviewBudgetSats: number;
  /** Lowercased terms a listing's texts may not contain (LISTING_DENY_LIST, comma separated; the review rejects on a match). */
  listingDenyList: string[];
  /** External-listing submissions one client IP (an IPv6 client: its /64) may make per hour. */
  listingSubmissionsPerHour: number;
};

/** Whether binding to `host` keeps a server reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  if (bare === "localhost" || bare === "::1") return true;
  const v4 = bare.startsWith("::ffff:") ? bare.slice("::ffff:".length) : bare;
  return isIP(v4) === 4 && v4.startsWith("127.");
}

/** Thrown at startup; its message has one line per invalid variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * Reads a persisted secret under DATA_DIR, creating it on first use. Embedded installs get a
 * stable APP_SECRET and HUB_ADMIN_TOKEN without any setup; production must set them.
 */
function persistedSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(32).toString("hex");
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: "wx" });
  return value;
}

/** Validates the environment and returns the typed configuration, or throws ConfigError. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? "environment");
        const value = cleaned[name];
        return `${name}: ${issue.message}${value === undefined ? "" : ` (got ${JSON.stringify(value)})`}`;
      }),
    );
  }
  const e = parsed.data;
  const isProduction = e.NODE_ENV === "production";
  const problems: string[] = [];
  if (isProduction && !e.APP_SECRET) problems.push("APP_SECRET: required when NODE_ENV=production (at least 32 characters)");
  if (isProduction && !e.SITE_URL) problems.push("SITE_URL: required when NODE_ENV=production (the public https address)");
  // Development features hand out sign-in links (dev mailbox) and let anyone pay invoices and sign
  // in as the dev wallet (/api/dev/*): on by default only where no one else can connect.
  const host = e.HOST ?? (isProduction ? "0.0.0.0" : "127.0.0.1");
  const devFeatures = !isProduction && (e.DEV_FEATURES ?? isLoopbackHost(host));
  if (isProduction && e.DEV_FEATURES)
    problems.push("DEV_FEATURES: development features (dev Lightning node, /api/dev/*, dev mailbox) cannot be on when NODE_ENV=production; unset it");
  if (isProduction && e.LIGHTNING_DEV_NODE) {
    problems.push(
      "LIGHTNING_DEV_NODE: the dev Lightning node (anyone may pay its invoices through /api/dev/lightning/pay) cannot run when NODE_ENV=production; connect real wallets and unset it",
    );
  } else if (e.LIGHTNING_DEV_NODE && !devFeatures) {
    problems.push(
      `LIGHTNING_DEV_NODE: the dev Lightning node is a development feature, off because HOST=${host} is not a loopback address; set DEV_FEATURES=true to turn development features on`,
    );
  }
  if (Boolean(e.GITHUB_ID) !== Boolean(e.GITHUB_SECRET)) problems.push("GITHUB_ID, GITHUB_SECRET: set both or neither");
  const freeTrySet = [e.FREE_TRY_ISSUER, e.FREE_TRY_JWKS_URL, e.FREE_TRY_AUDIENCE].filter(Boolean).length;
  if (freeTrySet !== 0 && freeTrySet !== 3) problems.push("FREE_TRY_ISSUER, FREE_TRY_JWKS_URL, FREE_TRY_AUDIENCE: set all three or none");
  if (e.PLATFORM_WALLET_CREDENTIALS && !e.PLATFORM_WALLET_TYPE)
    problems.push("PLATFORM_WALLET_TYPE: required with PLATFORM_WALLET_CREDENTIALS (dev, lnd, nwc, lnbits or phoenixd)");
  if (e.PLATFORM_WALLET_TYPE && e.PLATFORM_WALLET_TYPE !== "dev" && !e.PLATFORM_WALLET_CREDENTIALS)
    problems.push(`PLATFORM_WALLET_CREDENTIALS: required for PLATFORM_WALLET_TYPE=${e.PLATFORM_WALLET_TYPE} (a JSON object of the wallet's fields)`);
  if (problems.length) throw new ConfigError(problems);

  const dataDir = path.resolve(e.DATA_DIR);
  const appSecret = e.APP_SECRET ?? persistedSecret(dataDir, "app-secret");
  const siteUrl = (e.SITE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    nodeEnv: e.NODE_ENV,
    isProduction,
    host,
    devFeatures,
    port: e.PORT,
    gatewayPort: e.GATEWAY_PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL ?? null,
    redisUrl: e.REDIS_URL ?? null,
    siteUrl,
    apiUrl: `${siteUrl}/api`,
    gatewayUrlTemplate: (e.GATEWAY_URL_TEMPLATE ?? "http://localhost:{GATEWAY_PORT}/gw/{slug}").replaceAll("{GATEWAY_PORT}", String(e.GATEWAY_PORT)),
    appSecret,
    hubAdminToken: e.HUB_ADMIN_TOKEN ?? (isProduction ? null : persistedSecret(dataDir, "admin-token")),
    lightningDevNode: devFeatures && (e.LIGHTNING_DEV_NODE ?? true),
    seedDemo: e.SEED_DEMO ?? !e.DATABASE_URL,
    hostedExamples: e.HOSTED_EXAMPLES === "none" ? [] : (e.HOSTED_EXAMPLES?.split(",") ?? ["routes"]),
    secretRotationGraceHours: e.SECRET_ROTATION_GRACE_HOURS,
    creditTtlDays: e.CREDIT_TTL_DAYS,
    invoiceExpirySeconds: e.INVOICE_EXPIRY_SECONDS,
    healthIntervalSeconds: e.HEALTH_INTERVAL_SECONDS,
    trustedProxies: e.TRUSTED_PROXIES.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    logLevel: e.LOG_LEVEL,
    authSecret: e.AUTH_SECRET ?? deriveKey(appSecret, "auth-secret").toString("hex"),
    github: e.GITHUB_ID && e.GITHUB_SECRET ? { clientId: e.GITHUB_ID, clientSecret: e.GITHUB_SECRET } : null,
    smtpUrl: e.SMTP_URL ?? null,
    emailFrom: e.EMAIL_FROM,
    devMailbox: devFeatures && !e.SMTP_URL,
    originAllowPrivate: e.ORIGIN_ALLOW_PRIVATE ?? devFeatures,
    webhookAllowedTargets: e.WEBHOOK_ALLOWED_TARGETS,
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
    webhookConcurrencyPerSubscription: e.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION,
    nodeCapacityCheckSeconds: e.NODE_CAPACITY_CHECK_SECONDS,
    walletAllowedTargets: e.WALLET_ALLOWED_TARGETS,
    platformWallet: e.PLATFORM_WALLET_TYPE ? { type: e.PLATFORM_WALLET_TYPE, credentials: e.PLATFORM_WALLET_CREDENTIALS ?? {} } : null,
    freeTryProvider:
      e.FREE_TRY_ISSUER && e.FREE_TRY_JWKS_URL && e.FREE_TRY_AUDIENCE
        ? { issuer: e.FREE_TRY_ISSUER, jwksUrl: e.FREE_TRY_JWKS_URL, audience: e.FREE_TRY_AUDIENCE }
        : null,
    gatewayChallengesPerMinute: e.GATEWAY_CHALLENGES_PER_MINUTE,
    gatewayStreamsPerSession: e.GATEWAY_STREAMS_PER_SESSION,
    gatewayFreeStreamsPerIp: e.GATEWAY_FREE_STREAMS_PER_IP,
    listingReviewBudgetSats: e.LISTING_REVIEW_BUDGET_SATS,
    listingDenyList: e.LISTING_DENY_LIST.split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
    listingSubmissionsPerHour: e.LISTING_SUBMISSIONS_PER_HOUR,
  };
}

/** The gateway base address of a tenant (`{gateway_url}` in the spec). */
export function gatewayUrlFor(config: Pick<Config, "gatewayUrlTemplate">, slug: string): string {
  return config.gatewayUrlTemplate.replaceAll("{slug}", slug).replace(/\/+$/, "");
}

/**
 * The host suffix for subdomain routing (`.gw.example.com` for `https://{slug}.gw.example.com`),
 * or null when the template uses the path form only.
 */
export function gatewayHostSuffix(config: Pick<Config, "gatewayUrlTemplate">): string | null {
  const match = /^https?:\/\/\{slug\}(\.[^/:]+)/.exec(config.gatewayUrlTemplate);
  return match ? match[1].toLowerCase() : null;
}

let cached: Config | undefined;

/** Process-wide configuration, read once (Next route handlers and CLIs use this). */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}
