// Connects a workspace's receiving wallet: checks its addresses against the wallet address rules,
// proves it works by creating a test invoice, then stores it (credentials sealed) and tells the
// gateways, which start issuing invoices from it.
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { describeWallet } from "@/lib/lightning/credentials.ts";
import { walletBackendFor, walletBackendOptionsFor, WalletError, type DevLightningNode, type TargetPolicy } from "@/lib/lightning/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { assertWalletTargets } from "./check-wallet-targets.ts";
import type { WalletConnect } from "./schemas.ts";

export type ConnectWalletOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  appSecret: string;
  devNode: DevLightningNode | null;
  /** The wallet address rules (walletTargetPolicy(config)): checked before the probe and at its every connection. */
  targetPolicy: TargetPolicy;
  tenantId: string;
  wallet: WalletConnect;
  now?: Date;
};

/** The test invoice: the smallest amount, short-lived, never meant to be paid. */
const TEST_INVOICE = { amountSats: 1, description: "Wallet connection test", expirySeconds: 60 } as const;

function walletProblem(message: string, kind?: string): AppError {
  return new AppError("validation_failed", message, { fields: [{ field: "type", message }], ...(kind ? { walletError: kind } : {}) });
}

/**
 * Builds the backend, creates a test invoice and reads the node key; a wallet that cannot invoice is
 * refused (422, with the wallet's error kind). The backend is closed afterwards.
 */
async function probeWallet(options: ConnectWalletOptions): Promise<{ nodePubkey: string | null }> {
  let backend;
  try {
    backend = walletBackendFor(walletBackendOptionsFor(options.wallet, { devNode: options.devNode, targetPolicy: options.targetPolicy }));
    await backend.createInvoice(TEST_INVOICE);
    return { nodePubkey: await backend.getNodePubkey() };
  } catch (err) {
    if (err instanceof WalletError) throw walletProblem(`The wallet could not create a test invoice: ${err.message}`, err.kind);
    throw err;
  } finally {
    await backend?.close?.().catch(() => {});
  }
}

/** Replaces any previous wallet of the workspace; returns the stored row. */
export async function connectWallet(options: ConnectWalletOptions) {
  const { prisma, store, appSecret, tenantId, wallet, now = new Date() } = options;
  await assertWalletTargets(wallet, options.targetPolicy);
  const { nodePubkey } = await probeWallet(options);
  const { type, ...credentials } = wallet;
  const columns = {
    type,
    credentialsEnc: sealSecret(appSecret, JSON.stringify(credentials)),
    nodePubkey,
    connectedAt: now,
    lastInvoiceAt: now,
    lastError: null,
    capacityStatus: null,
    capacityReason: null,
    capacityCheckedAt: null,
  };
  const row = await prisma.wallet.upsert({ where: { tenantId }, create: { tenantId, ...columns }, update: columns });
  await publishConfigChanged({ store, tenantId });
  // A new connection starts unchecked: the capacity monitor reports on its next pass.
  return { ...row, capacity: null, ...describeWallet(wallet) };
}
