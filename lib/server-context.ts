// The process-wide services a request handler needs (config, database, store, dev node, live
// wallet backends).
// server.ts builds them once and registers them; Next's route handlers, bundled separately but
// running in the same process, read the same instances through globalThis. A process that did
// not register (e.g. `next start` alone) builds them lazily from the environment.
import { getConfig, type Config } from "./config/index.ts";
import { getDatabase, type Database } from "./db/client.ts";
import { DevLightningNode } from "./lightning/dev-node.ts";
import { walletTargetPolicy } from "./lightning/wallet-network.ts";
import { getStore, type KeyValueStore } from "./store/index.ts";
import { WalletBackendCache } from "./wallets/wallet-backend-cache.ts";

export type ServerContext = {
  config: Config;
  db: Database;
  store: KeyValueStore;
  /** The dev Lightning node, or null when LIGHTNING_DEV_NODE is off. */
  devNode: DevLightningNode | null;
  /** Live wallet backends per tenant, reused across requests (the settlement route polls them). */
  wallets: WalletBackendCache;
};

const globalKey = Symbol.for("l402-hub.server-context");
type GlobalWithContext = typeof globalThis & { [globalKey]?: Promise<ServerContext> };

/** Builds a context from parts (server.ts and tests). */
export function buildServerContext(parts: { config: Config; db: Database; store: KeyValueStore }): ServerContext {
  const devNode = parts.config.lightningDevNode ? new DevLightningNode({ prisma: parts.db.prisma, appSecret: parts.config.appSecret }) : null;
  return {
    ...parts,
    devNode,
    wallets: new WalletBackendCache({ appSecret: parts.config.appSecret, devNode, targetPolicy: walletTargetPolicy(parts.config) }),
  };
}

/** Makes `context` the one every handler in this process uses. */
export function registerServerContext(context: ServerContext): void {
  (globalThis as GlobalWithContext)[globalKey] = Promise.resolve(context);
}

export function getServerContext(): Promise<ServerContext> {
  const g = globalThis as GlobalWithContext;
  if (!g[globalKey]) {
    const pending = (async () => {
      const config = getConfig();
      const db = await getDatabase(config);
      return buildServerContext({ config, db, store: getStore({ redisUrl: config.redisUrl }) });
    })();
    g[globalKey] = pending;
    // A failed start (database down on the first request) must not stick: the next call retries.
    pending.catch(() => {
      if (g[globalKey] === pending) delete g[globalKey];
    });
  }
  return g[globalKey];
}
