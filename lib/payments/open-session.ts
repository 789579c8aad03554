// Opening a session from a paid proof (spec 3.3 rule 1): one proof maps to exactly one session.
// The session row, the invoice's settlement, invoice.settled and session.created are written in
// one transaction; the row is an INSERT … ON CONFLICT ("paymentHash") DO NOTHING, so concurrent
// presentations of one proof on several gateway instances create one session and PostgreSQL
// decides which request created it. Only that request learns the session token (tokens are stored
// hashed); later presentations of the proof are served from the same session without a new token.
// The session's end is the database's now() plus its lifetime, like every expiry it then decides.
import { randomUUID } from "node:crypto";
import { hashToken, randomToken } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { isSessionModel, sessionGrant, type SessionModel } from "@/lib/pricing/quote.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import { settleInvoice } from "./settle-invoice.ts";

/** Prefix of session tokens, so a token is recognisable in logs and secret scanners. */
export const SESSION_TOKEN_PREFIX = "hst_";
const SESSION_TOKEN = /^hst_[A-Za-z0-9_-]{43}$/;

/** True when a string has the shape of a session token (anything else is refused unread). */
export function isSessionTokenShape(token: string): boolean {
  return SESSION_TOKEN.test(token);
}

/** A session as the gateway needs it for one call. */
export type SessionState = {
  id: string;
  endpointId: string;
  model: SessionModel;
  /** Requests (token_bucket) or sats (metered, per_kb); null for time_pass. */
  balance: number | null;
  unitCostSats: number | null;
  expiresAt: Date;
};

/** Which proof opens which endpoint's session. */
export type OpenSessionOptions = {
  prisma: PrismaClient;
  tenantId: string;
  endpointId: string;
  paymentHash: string;
  /** Lifetime of balance sessions (token_bucket, metered, per_kb): CREDIT_TTL_DAYS. */
  balanceTtlMs: number;
};

/**
 * `created` carries the new token (shown once); `existing` is the session this proof opened
 * before; `no_invoice` means the proof's invoice is not a session invoice of this endpoint.
 */
export type OpenSessionResult =
  { kind: "created"; session: SessionState; token: string } | { kind: "existing"; session: SessionState } | { kind: "no_invoice" };

type SessionRow = { id: string; endpointId: string; model: SessionModel; balance: number | null; unitCostSats: number | null; expiresAt: Date };

/** The pricing snapshot a session invoice stored at challenge time (quoteEndpoint's bodyFields). */
function dealFields(pricing: unknown): { model?: unknown; tokenBudget?: unknown; durationMinutes?: unknown; unitCostSats?: unknown } {
  return pricing && typeof pricing === "object" && !Array.isArray(pricing) ? (pricing as Record<string, unknown>) : {};
}

const asInt = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) ? v : null);

/** Creates the proof's session, or finds the one it already created. */
export async function openSession(options: OpenSessionOptions): Promise<OpenSessionResult> {
  const { prisma, tenantId, endpointId, paymentHash } = options;
  const existing = () =>
    prisma.paymentSession.findUnique({
      where: { paymentHash },
      select: { id: true, endpointId: true, model: true, balance: true, unitCostSats: true, expiresAt: true, tenantId: true },
    });

  const found = await existing();
  if (found) return found.tenantId === tenantId && found.endpointId === endpointId ? { kind: "existing", session: toState(found) } : { kind: "no_invoice" };

  const invoice = await prisma.invoice.findUnique({ where: { paymentHash } });
  if (!invoice || invoice.tenantId !== tenantId || invoice.endpointId !== endpointId || invoice.purpose !== "session") return { kind: "no_invoice" };
  const fields = dealFields(invoice.pricing);
  const model = fields.model;
  if (!isSessionModel(model)) return { kind: "no_invoice" };
  const grant = sessionGrant(
    {
      model,
      amountSats: invoice.amountSats,
      tokenBudget: asInt(fields.tokenBudget),
      durationMinutes: asInt(fields.durationMinutes),
      unitCostSats: asInt(fields.unitCostSats),
    },
    options.balanceTtlMs,
  );
  const token = randomToken(SESSION_TOKEN_PREFIX, 32);

  const created = await prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<SessionRow[]>`
      INSERT INTO "PaymentSession" ("id", "tenantId", "endpointId", "model", "tokenHash", "paymentHash", "balance", "initialBalance",
        "unitCostSats", "expiresAt", "createdAt", "updatedAt")
      VALUES (${randomUUID()}, ${tenantId}, ${endpointId}, ${grant.model}::"SessionModel", ${hashToken(token)}, ${paymentHash},
        ${grant.balance}, ${grant.balance}, ${grant.unitCostSats}, now() + ${grant.lifetimeMs}::double precision * interval '1 millisecond', now(), now())
      ON CONFLICT ("paymentHash") DO NOTHING
      RETURNING "id", "endpointId", "model"::text AS "model", "balance", "unitCostSats", "expiresAt"`;
    const row = rows[0];
    if (!row) return null;
    await settleInvoice({ tx, tenantId, paymentHash, source: "proof" });
    await enqueueEvent(tx, {
      tenantId,
      type: "session.created",
      data: { sessionId: row.id, endpointId, model: row.model, paymentHash, balance: row.balance, expiresAt: row.expiresAt.toISOString() },
    });
    return row;
  });
  if (created) return { kind: "created", session: toState(created), token };
  // Another request (maybe on another gateway instance) created it between our read and insert.
  const winner = await existing();
  return winner ? { kind: "existing", session: toState(winner) } : { kind: "no_invoice" };
}

function toState(row: SessionRow): SessionState {
  return { id: row.id, endpointId: row.endpointId, model: row.model, balance: row.balance, unitCostSats: row.unitCostSats, expiresAt: row.expiresAt };
}
