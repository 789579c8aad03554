// A flood of challenges must not hide a paid invoice from the settlement poller (issue 23, finding
// 12): the worker looked only at the newest 500 pending invoices and marked older ones expired
// unseen, so a payer who paid without redeeming (or a QR payer whose browser closed) was never
// recorded once enough newer invoices were pending. Every pending invoice must be looked at, and
// none marked expired before its wallet was asked.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { walletBackendFor } from "@/lib/lightning/index.ts";
import type { WalletBackend } from "@/lib/lightning/types.ts";
import { pollInvoiceSettlements, type SettlementCursor } from "@/lib/payments/record-settlement.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const context = useTestContext();
let devNode: DevLightningNode;
let tenantId: string;
let endpointId: string;
/** Payment hashes in the order the wallet was asked about them. */
let lookups: string[];
/** Where the next pass starts, carried from pass to pass as the worker's job carries it. */
let cursor: SettlementCursor;

beforeAll(() => {
  devNode = new DevLightningNode({ prisma: context().db.prisma, appSecret: context().config.appSecret });
});

beforeEach(async () => {
  const { prisma } = context().db;
  ({ tenantId } = await tenantFactory(prisma, context().config.appSecret));
  await webhookSubscriptionFactory(prisma, context().config.appSecret, tenantId);
  await devWalletFactory(prisma, context().config.appSecret, tenantId, devNode.nodePubkey);
  endpointId = (await endpointFactory(prisma, tenantId, { pricingModel: "per_request", priceSats: 2 })).id;
  lookups = [];
  cursor = null;
});

/** The dev node's wallet, counting what it is asked. */
function countingWallet(): WalletBackend {
  const wallet = walletBackendFor({ type: "dev", devNode });
  return {
    type: wallet.type,
    createInvoice: (request) => wallet.createInvoice(request),
    getNodePubkey: () => wallet.getNodePubkey(),
    lookupInvoice: (paymentHash) => {
      lookups.push(paymentHash);
      return wallet.lookupInvoice(paymentHash);
    },
  };
}

/** A challenge's invoice as the gateway stores it; `expiresInSeconds` for the row (the node's own is 600 s). */
async function pendingInvoice(expiresInSeconds: number) {
  const created = await devNode.createInvoice({ amountSats: 2, description: "flood", expirySeconds: 600 });
  await context().db.sql.query(
    `INSERT INTO "Invoice" ("id", "tenantId", "endpointId", "paymentHash", "paymentRequest", "amountSats", "purpose", "status", "expiresAt", "createdAt")
     VALUES (gen_random_uuid()::text, $1, $2, $3, $4, 2, 'per_request', 'pending', now() + $5 * interval '1 second', now())`,
    [tenantId, endpointId, created.paymentHash, created.paymentRequest, expiresInSeconds],
  );
  return created;
}

/** Runs passes the way the worker's job does, carrying the cursor from one to the next. */
async function passes(count: number, pageSize: number): Promise<number> {
  let recorded = 0;
  for (let i = 0; i < count; i++) {
    const pass = await pollInvoiceSettlements({ prisma: context().db.prisma, walletFor: async () => countingWallet(), pageSize, after: cursor });
    recorded += pass.recorded;
    cursor = pass.next;
  }
  return recorded;
}

const statusOf = async (paymentHash: string) =>
  (await context().db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash }, select: { status: true } })).status;

describe("settlement polling under a flood of pending invoices", () => {
  it("looks at every pending invoice, a page per pass, and records a paid one behind newer ones", async () => {
    const paid = await pendingInvoice(300);
    await devNode.pay(paid.paymentRequest);
    const flood = [];
    for (let i = 0; i < 11; i++) flood.push(await pendingInvoice(400 + i));

    expect(await passes(3, 5)).toBe(1);
    expect(await statusOf(paid.paymentHash)).toBe("settled");
    // Each of the 12 was asked about once: three passes of at most five, none twice.
    expect(new Set(lookups)).toEqual(new Set([paid, ...flood].map((i) => i.paymentHash)));
    expect(lookups).toHaveLength(12);
  });

  it("starts with the invoices that expire first, and wraps around after the last page", async () => {
    const late = await pendingInvoice(500);
    const soon = await pendingInvoice(60);
    const middle = await pendingInvoice(200);
    await passes(1, 2);
    expect(lookups).toEqual([soon.paymentHash, middle.paymentHash]);
    lookups = [];
    await passes(2, 2);
    expect(lookups).toEqual([late.paymentHash, soon.paymentHash, middle.paymentHash]);
  });

  it("asks the wallet before marking a lapsed invoice expired, so a paid one is recorded instead", async () => {
    const paid = await pendingInvoice(600);
    await devNode.pay(paid.paymentRequest);
    const unpaid = await pendingInvoice(600);
    for (let i = 0; i < 11; i++) await pendingInvoice(600 + i);
    // Both lapsed while the flood kept the poller busy elsewhere.
    await context().db.sql.query(`UPDATE "Invoice" SET "expiresAt" = now() - interval '2 minutes' WHERE "paymentHash" = ANY($1)`, [
      [paid.paymentHash, unpaid.paymentHash],
    ]);

    expect(await passes(1, 5)).toBe(1);
    expect(await statusOf(paid.paymentHash)).toBe("settled");
    expect(await statusOf(unpaid.paymentHash)).toBe("expired");
    const settled = await context().db.prisma.outboxEvent.findMany({ where: { type: "invoice.settled" } });
    expect(settled.map((e) => (e.data as { paymentHash: string }).paymentHash)).toEqual([paid.paymentHash]);
  });

  it("keeps lapsed invoices pending while their wallet cannot answer, asking it once per pass", async () => {
    for (let i = 0; i < 4; i++) await pendingInvoice(600 + i);
    await context().db.sql.exec(`UPDATE "Invoice" SET "expiresAt" = now() - interval '2 minutes'`);
    let asked = 0;
    const down: WalletBackend = {
      ...countingWallet(),
      lookupInvoice: async () => {
        asked += 1;
        throw new Error("node unreachable");
      },
    };
    const pass = await pollInvoiceSettlements({ prisma: context().db.prisma, walletFor: async () => down, pageSize: 10 });
    expect(pass).toEqual({ recorded: 0, expired: 0, next: null });
    expect(asked).toBe(1);
    expect(await context().db.prisma.invoice.count({ where: { status: "pending" } })).toBe(4);
  });
});
