// The platform's job list, wired to real dependencies.
import { getConfig, type Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { HealthMonitor } from "@/lib/health/monitor.ts";
import { openPlatformWallet } from "@/lib/billing/platform-wallet.ts";
import { runBilling } from "@/lib/billing/run-billing.ts";
import type { WalletBackend } from "@/lib/lightning/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { expireSessions } from "@/lib/payments/expire-sessions.ts";
import { pollInvoiceSettlements, type SettlementCursor } from "@/lib/payments/record-settlement.ts";
import { trimRetainedData } from "./retention.ts";
import { originDispatcher } from "@/lib/origin/origin-policy.ts";
import { checkNodeCapacity } from "@/lib/webhooks/capacity-monitor.ts";
import { WebhookSender } from "@/lib/webhooks/deliver.ts";
import { dispatchOutbox } from "@/lib/webhooks/dispatch-outbox.ts";
import { targetPolicyFor } from "@/lib/origin/ssrf.ts";
import { walletTargetPolicy } from "@/lib/lightning/wallet-network.ts";
import { openWalletBackend } from "@/lib/wallets/open-wallet.ts";
import { WalletBackendCache } from "@/lib/wallets/wallet-backend-cache.ts";
import { listingReviewDispatcher, listingReviewPayer } from "@/lib/listings/review-dependencies.ts";
import { runListingReviews } from "@/lib/listings/run-listing-reviews.ts";
import type { Job } from "./worker.ts";

/** Every periodic job of the worker, wired to real dependencies (config defaults to the process's). */
export function platformJobs(deps: { prisma: PrismaClient; store: KeyValueStore; devNode: DevLightningNode | null; log: Logger; config?: Config }): Job[] {
  // The process configuration unless the caller passes one (server.ts reads the same environment).
  const config = () => deps.config ?? getConfig();
  let sender: WebhookSender | null = null;
  let health: HealthMonitor | null = null;
  // Each pass takes the next page of pending invoices, so a flood of them is walked through in
  // turn (kept per worker: whichever worker holds the lease continues its own round).
  let settlementCursor: SettlementCursor = null;
  // Live backends of the settlement passes, one per tenant, kept across passes: opening one per
  // tenant every 3 s meant a new relay WebSocket (NWC) or TLS session per tenant per pass.
  let settlementWallets: WalletBackendCache | null = null;
  // The platform's wallet for billing invoices, opened on the first pass and kept (undefined: not yet).
  let platformWallet: (WalletBackend & { close?(): Promise<void> }) | null | undefined;
  // The listing reviews' pinned dispatcher, made on the first pass and kept.
  let reviewDispatcher: ReturnType<typeof listingReviewDispatcher> | null = null;
  return [
    {
      name: "invoice-settlements",
      intervalMs: 3_000,
      singleton: true,
      run: async () => {
        const c = config();
        const wallets = (settlementWallets ??= new WalletBackendCache({ appSecret: c.appSecret, devNode: deps.devNode, targetPolicy: walletTargetPolicy(c) }));
        const pass = await pollInvoiceSettlements({
          prisma: deps.prisma,
          // Every backend type, from the cache: it closes them (replaced credentials, idle, close()).
          walletFor: async (tenantId) => {
            const wallet = await deps.prisma.wallet.findUnique({ where: { tenantId }, select: { type: true, credentialsEnc: true } });
            return wallet ? wallets.backendFor(tenantId, wallet) : null;
          },
          after: settlementCursor,
        });
        settlementCursor = pass.next;
        if (pass.recorded) deps.log.info("invoice settlements recorded", { count: pass.recorded });
      },
      close: async () => {
        const wallets = settlementWallets;
        settlementWallets = null;
        await wallets?.close();
      },
    },
    {
      // Not a singleton: every worker fans out (SKIP LOCKED on the outbox) and sends (SKIP LOCKED +
      // lease on deliveries). The sender keeps attempts in flight between ticks and pumps itself as
      // they finish, so the interval only bounds how soon new or newly due work is noticed.
      name: "webhook-deliveries",
      intervalMs: 1_000,
      singleton: false,
      run: async () => {
        const c = config();
        sender ??= new WebhookSender({
          prisma: deps.prisma,
          appSecret: c.appSecret,
          policy: targetPolicyFor(c),
          maxInFlight: c.webhookConcurrency,
          perSubscription: c.webhookConcurrencyPerSubscription,
          log: deps.log.child({ job: "webhook-deliveries" }),
        });
        const dispatched = await dispatchOutbox({ prisma: deps.prisma });
        if (dispatched.deliveries) deps.log.debug("webhook events dispatched", dispatched);
        await sender.pump();
      },
      // Shutdown lets the attempts in flight finish and be recorded (each is bounded by the
      // delivery timeout) instead of leaving them to the lease's expiry.
      close: async () => {
        await sender?.close();
        sender = null;
      },
    },
    {
      name: "node-capacity",
      intervalMs: config().nodeCapacityCheckSeconds * 1000,
      singleton: true,
      run: async () => {
        const opened: { close?(): Promise<void> }[] = [];
        try {
          const checked = await checkNodeCapacity({
            prisma: deps.prisma,
            log: deps.log,
            // Backends that report channels: the dev node (simulated) and LND (/v1/channels).
            walletFor: async (wallet) => {
              if (wallet.type === "dev") return deps.devNode && wallet.nodePubkey === deps.devNode.nodePubkey ? deps.devNode.wallet() : null;
              if (wallet.type !== "lnd") return null;
              const row = await deps.prisma.wallet.findUnique({ where: { tenantId: wallet.tenantId }, select: { type: true, credentialsEnc: true } });
              if (!row) return null;
              const backend = openWalletBackend({
                appSecret: config().appSecret,
                wallet: row,
                devNode: deps.devNode,
                targetPolicy: walletTargetPolicy(config()),
              });
              opened.push(backend);
              return backend;
            },
          });
          if (checked.events) deps.log.info("node capacity events written", checked);
        } finally {
          await Promise.allSettled(opened.map((b) => b.close?.()));
        }
      },
    },
    {
      // session.expired exactly once per ended session (lib/payments/expire-sessions.ts); a singleton
      // only to save work: the conditional mark would keep two workers from writing one event twice.
      name: "session-expiry",
      intervalMs: 15_000,
      singleton: true,
      run: async () => {
        const expired = await expireSessions({ prisma: deps.prisma });
        if (expired) deps.log.info("session.expired events written", { count: expired });
      },
    },
    {
      // Health probes straight to each origin (lib/health/monitor.ts): a singleton so one worker
      // probes per interval; the monitor bounds concurrency and skips tenants still being probed.
      name: "health-probes",
      intervalMs: config().healthIntervalSeconds * 1000,
      singleton: true,
      run: async () => {
        health ??= new HealthMonitor({
          prisma: deps.prisma,
          // Probes go where the gateway goes: pinned unless private origins are allowed.
          dispatcher: originDispatcher(config(), { connections: 32, keepAliveTimeoutMs: 10_000 }),
          appSecret: config().appSecret,
          log: deps.log.child({ job: "health-probes" }),
          // Leave a margin before the next interval so rounds never overlap.
          roundBudgetMs: Math.max(1_000, config().healthIntervalSeconds * 1000 - 30_000),
        });
        const round = await health.runRound();
        if (round.transitions || round.skipped) deps.log.info("health probes", round);
      },
    },
    {
      // The platform fee (lib/billing/run-billing.ts): close due cycles, invoice, watch payments,
      // suspend the overdue. A singleton to save work; each transition is conditional anyway.
      name: "billing",
      intervalMs: 60_000,
      singleton: true,
      run: async () => {
        platformWallet ??= openPlatformWallet({ config: config(), devNode: deps.devNode });
        const pass = await runBilling({
          prisma: deps.prisma,
          store: deps.store,
          wallet: platformWallet,
          now: new Date(),
          log: deps.log.child({ job: "billing" }),
        });
        if (Object.values(pass).some(Boolean)) deps.log.info("billing", pass);
      },
      close: async () => {
        const wallet = platformWallet;
        platformWallet = undefined;
        await wallet?.close?.();
      },
    },
    {
      // External listing reviews (lib/listings/run-listing-reviews.ts): not a singleton, every worker
      // claims due listings with SKIP LOCKED and a lease, so one listing is reviewed by one worker.
      // A 5 s interval: a submission is reviewed within seconds.
      name: "listing-reviews",
      intervalMs: 5_000,
      singleton: false,
      run: async () => {
        const c = config();
        reviewDispatcher ??= listingReviewDispatcher(c);
        const pass = await runListingReviews({
          prisma: deps.prisma,
          config: c,
          dispatcher: reviewDispatcher,
          payer: listingReviewPayer({ config: c, devNode: deps.devNode }),
          log: deps.log.child({ job: "listing-reviews" }),
        });
        if (pass.decided || pass.mailed) deps.log.info("listing reviews", pass);
      },
      close: async () => {
        const dispatcher = reviewDispatcher;
        reviewDispatcher = null;
        await dispatcher?.close();
      },
    },
    {
      // Old finished deliveries, their events and raw health samples (lib/jobs/retention.ts).
      name: "retention",
      intervalMs: 10 * 60_000,
      singleton: true,
      run: async () => {
        const trimmed = await trimRetainedData({ prisma: deps.prisma });
        if (trimmed.deliveries || trimmed.events || trimmed.healthSamples) deps.log.info("retention", trimmed);
      },
    },
  ];
}
