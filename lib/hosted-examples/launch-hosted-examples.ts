// Starts the example APIs of the one-process mode and seeds their tenants, the way a provider
// would: a workspace with the dev node as its wallet, the origin started with the workspace's
// origin secrets, and the endpoints imported from the origin's own OpenAPI document. Each origin is
// its own child process, so an optimization that computes for seconds never stalls the gateway.
//
// Idempotent: a later start finds the tenant, starts the origin again (on a new port: the tenant's
// originUrl follows it) and imports only the operations that are new (`existing=skip`).
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { importOpenApi, openApiImportSchema } from "@/lib/endpoints/import-openapi.ts";
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { configChangedChannel, publishConfigChanged, type ConfigChangedMessage } from "@/lib/tenants/config-events.ts";
import { getOriginSecrets } from "@/lib/tenants/get-origin-secrets.ts";
import type { OriginSecrets } from "@/lib/tenants/secrets.ts";
import type { SecretPair } from "@l402-hub/sdk/origin";
import { devWalletFactory, tenantFactory } from "@/prisma/factories.ts";
import { exampleOwnerEmail, hostedExamples, type HostedExample } from "./catalogue.ts";

export interface LaunchOptions {
  prisma: PrismaClient;
  store: KeyValueStore;
  config: Config;
  devNode: DevLightningNode;
  log: Logger;
  /** The repository root (where `examples/` is). */
  root: string;
  /** Where the origins keep their data (prepared road graph...); config.dataDir by default. */
  dataDir?: string;
}

/** Children being stopped on purpose (their exit is not an error). */
const stopping = new WeakSet<ChildProcess>();
/** Every origin this process forked that has not exited, started or still starting. */
const forked = new Set<ChildProcess>();

/** Stops every example origin this process started (SIGTERM, SIGKILL after 5 s), starting ones included. */
export async function stopHostedExamples(): Promise<void> {
  await Promise.all(
    [...forked].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          stopping.add(child);
          child.kill("SIGTERM");
          setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
        }),
    ),
  );
}

export interface RunningExample {
  slug: string;
  originUrl: string;
  child: ChildProcess;
}

/** Who owns an example's workspace: nobody can sign in as this address. */
function exampleOwner(example: HostedExample): string {
  return exampleOwnerEmail(example.slug);
}

/**
 * The tenant of an example, created with the dev wallet when it does not exist yet. A workspace of
 * that slug owned by anyone else is never taken over (the slugs are reserved, but an install may
 * predate that): the example is not started.
 */
async function ensureTenant(options: LaunchOptions, example: HostedExample): Promise<string> {
  const { prisma, config, devNode } = options;
  const existing = await prisma.tenant.findUnique({
    where: { slug: example.slug },
    select: { id: true, memberships: { where: { role: "owner" }, select: { user: { select: { email: true } } } } },
  });
  if (existing) {
    if (existing.memberships.some((m) => m.user.email === exampleOwner(example))) return existing.id;
    throw new Error(`a workspace "${example.slug}" that the hub did not create exists; the example is not started (HOSTED_EXAMPLES)`);
  }
  const { tenantId } = await tenantFactory(prisma, config.appSecret, {
    slug: example.slug,
    name: example.name,
    description: example.description,
    tags: example.tags,
    ownerEmail: exampleOwner(example),
  });
  await devWalletFactory(prisma, config.appSecret, tenantId, devNode.nodePubkey);
  // The install's own API: never billed the platform fee (lib/billing).
  await prisma.tenant.update({ where: { id: tenantId }, data: { billingExempt: true } });
  return tenantId;
}

/** The pairs an origin accepts: the current one, and the previous one during its grace period. */
function secretPairs(secrets: OriginSecrets): SecretPair[] {
  const pairs: SecretPair[] = [{ gatewaySecret: secrets.gatewaySecret, hmacSecret: secrets.hmacSecret }];
  if (secrets.previous) pairs.push({ gatewaySecret: secrets.previous.gatewaySecret, hmacSecret: secrets.previous.hmacSecret });
  return pairs;
}

/**
 * Keeps a running origin's secrets equal to the tenant's: after a rotation (a config change of the
 * tenant) and when the previous pair's grace period ends. Returns the unsubscribe.
 */
async function followSecretRotations(options: LaunchOptions, tenantId: string, child: ChildProcess, initial: OriginSecrets) {
  let graceTimer: NodeJS.Timeout | undefined;
  const scheduleGraceEnd = (secrets: OriginSecrets) => {
    clearTimeout(graceTimer);
    if (secrets.previous) graceTimer = setTimeout(() => void resend(), Math.max(0, secrets.previous.validUntil.getTime() - Date.now()) + 1_000).unref();
  };
  const resend = async () => {
    try {
      const secrets = await getOriginSecrets({ prisma: options.prisma, appSecret: options.config.appSecret, tenantId });
      if (child.connected) child.send({ type: "secrets", secrets: secretPairs(secrets) });
      scheduleGraceEnd(secrets);
    } catch (err) {
      options.log.error("could not hand the rotated origin secrets to a hosted example", { tenantId, error: err });
    }
  };
  scheduleGraceEnd(initial);
  const unsubscribe = await options.store.subscribe(configChangedChannel, (message) => {
    if ((JSON.parse(message) as ConfigChangedMessage).tenantId === tenantId) void resend();
  });
  return async () => {
    clearTimeout(graceTimer);
    await unsubscribe();
  };
}

/** Forks the origin with the tenant's secrets and waits for the port it reports. */
function startOrigin(options: LaunchOptions, example: HostedExample, secrets: OriginSecrets) {
  const previous = secrets.previous
    ? { ORIGIN_PREVIOUS_GATEWAY_SECRET: secrets.previous.gatewaySecret, ORIGIN_PREVIOUS_HMAC_SECRET: secrets.previous.hmacSecret }
    : {};
  // The hub's values of the variables the example documents (`MARKET_*`: a trailing * is a prefix), nothing else.
  const wanted = (name: string) => (example.passEnv ?? []).some((p) => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p));
  const passed = Object.fromEntries(Object.entries(process.env).filter(([name, value]) => value !== undefined && wanted(name)));
  const child = fork(path.join(options.root, example.entry), [], {
    execArgv: ["--import", "tsx"],
    cwd: options.root,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: {
      PATH: process.env.PATH,
      NODE_ENV: process.env.NODE_ENV,
      DATA_DIR: options.dataDir ?? options.config.dataDir,
      ORIGIN_HOST: "127.0.0.1",
      ORIGIN_PORT: "0",
      ORIGIN_GATEWAY_SECRET: secrets.gatewaySecret,
      ORIGIN_HMAC_SECRET: secrets.hmacSecret,
      ...previous,
      ...passed,
    },
  });
  forked.add(child);
  child.once("exit", () => forked.delete(child));
  const port = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${example.entry} did not start within ${example.startTimeoutMs / 1000} s`));
    }, example.startTimeoutMs);
    child.on("message", (message: { type?: string; port?: number }) => {
      if (message?.type !== "listening" || typeof message.port !== "number") return;
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${example.entry} exited (${signal ?? `code ${code}`}) before listening`));
    });
  });
  return { child, port };
}

async function launchOne(options: LaunchOptions, example: HostedExample): Promise<RunningExample> {
  const { prisma, config } = options;
  const tenantId = await ensureTenant(options, example);
  const secrets = await getOriginSecrets({ prisma, appSecret: config.appSecret, tenantId });
  const { child, port } = startOrigin(options, example, secrets);
  try {
    return await seedFromOrigin(options, example, tenantId, child, secrets, await port);
  } catch (err) {
    // Nothing may keep running on the tenant's secrets once the launch failed.
    stopping.add(child);
    child.kill("SIGKILL");
    throw err;
  }
}

/** Points the tenant at the started origin and imports its endpoints from the origin's OpenAPI document. */
async function seedFromOrigin(
  options: LaunchOptions,
  example: HostedExample,
  tenantId: string,
  child: ChildProcess,
  secrets: OriginSecrets,
  port: number,
): Promise<RunningExample> {
  const { prisma, store } = options;
  const originUrl = `http://127.0.0.1:${port}`;
  const unfollow = await followSecretRotations(options, tenantId, child, secrets);
  child.once("exit", () => void unfollow());
  await prisma.tenant.update({ where: { id: tenantId }, data: { originUrl } });
  await publishConfigChanged({ store, tenantId });
  const response = await fetch(`${originUrl}${example.openApiPath}`, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`${example.slug}: ${example.openApiPath} answered ${response.status}`);
  const document = openApiImportSchema.parse(await response.json());
  const { created } = await importOpenApi({ prisma, store, tenantId, document, skipExisting: true });
  options.log.info("hosted example ready", { slug: example.slug, origin: originUrl, endpointsCreated: created.length });
  child.once("exit", (code, signal) => {
    if (!stopping.has(child)) options.log.error("hosted example origin exited; its API answers 502 until the next start", { slug: example.slug, code, signal });
  });
  return { slug: example.slug, originUrl, child };
}

/**
 * Starts every example `config.hostedExamples` names, each independently: one that fails to start
 * is logged and left out, the others still run. Resolves when all have started or failed.
 */
export async function launchHostedExamples(options: LaunchOptions): Promise<{ running: RunningExample[]; stop(): Promise<void> }> {
  const wanted = options.config.hostedExamples;
  for (const slug of wanted) {
    if (!hostedExamples.some((e) => e.slug === slug)) {
      options.log.error("unknown hosted example in HOSTED_EXAMPLES", { slug, known: hostedExamples.map((e) => e.slug) });
    }
  }
  const results = await Promise.allSettled(hostedExamples.filter((e) => wanted.includes(e.slug)).map((e) => launchOne(options, e)));
  const running: RunningExample[] = [];
  for (const result of results) {
    if (result.status === "fulfilled") running.push(result.value);
    else options.log.error("hosted example failed to start", { error: result.reason });
  }
  return { running, stop: stopHostedExamples };
}
