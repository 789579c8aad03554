// Trust nothing a remote wallet answers: every response is parsed with a schema, and every invoice a
// wallet issues is decoded and checked against what we asked for before the gateway sells with it
// (a wrong amount or a payment hash that is not the invoice's would make every proof worthless).
import { decode as decodeBolt11 } from "bolt11";
import type { z } from "zod";
import { WalletError, type CreatedInvoice, type CreateInvoiceRequest } from "./types.ts";

/** Longest payment request we decode; real ones with many route hints stay well below. */
const MAX_PAYMENT_REQUEST_LENGTH = 8192;
/** BOLT11's default expiry when an invoice carries no `x` field. */
const BOLT11_DEFAULT_EXPIRY_SECONDS = 3600;

const HEX_32_BYTES = /^[0-9a-f]{64}$/;
/** Largest amount whose msat value is still a safe JSON number (NWC sends msat as a number); ~90k BTC. */
const MAX_INVOICE_SATS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

/** True for a 32-byte lowercase-or-uppercase hex payment hash (what lookupInvoice accepts). */
export function isPaymentHash(value: string): boolean {
  return HEX_32_BYTES.test(value.toLowerCase());
}

/**
 * Parses a wallet's JSON answer with a schema; a mismatch is WalletError("invalid_response") naming
 * the first offending field, so an operator can tell which backend version speaks a different dialect.
 */
export function parseWalletResponse<S extends z.ZodType>(backend: string, what: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join(".") : "(body)";
  throw new WalletError("invalid_response", `${backend} answered ${what} with an unexpected shape at ${field}: ${issue?.message ?? "invalid"}`);
}

/** What a decoded BOLT11 invoice tells us, in our units. */
export type DecodedInvoice = {
  paymentRequest: string;
  paymentHash: string;
  /** Null for an amountless invoice. */
  amountMsat: bigint | null;
  description: string | null;
  expiresAt: Date;
  /** The signer's node key recovered from the signature (33-byte compressed, hex). */
  payeeNodeKey: string;
};

/** Decodes a payment request a wallet returned; anything undecodable is WalletError("invalid_response"). */
export function decodeWalletInvoice(backend: string, paymentRequest: unknown): DecodedInvoice {
  if (typeof paymentRequest !== "string" || paymentRequest.length === 0 || paymentRequest.length > MAX_PAYMENT_REQUEST_LENGTH) {
    throw new WalletError("invalid_response", `${backend} returned no usable BOLT11 payment request`);
  }
  let decoded: ReturnType<typeof decodeBolt11>;
  try {
    decoded = decodeBolt11(paymentRequest);
  } catch {
    // The decoder's messages quote their input ("Mixed-case string …"): a wallet's answer is not repeated.
    throw new WalletError("invalid_response", `${backend} returned an invalid BOLT11 payment request`);
  }
  const paymentHash = decoded.tagsObject.payment_hash?.toLowerCase();
  if (!paymentHash || !HEX_32_BYTES.test(paymentHash) || !decoded.payeeNodeKey || decoded.timestamp === undefined) {
    throw new WalletError("invalid_response", `${backend} returned a BOLT11 payment request without payment hash, signature or timestamp`);
  }
  const expirySeconds = decoded.tagsObject.expire_time ?? BOLT11_DEFAULT_EXPIRY_SECONDS;
  return {
    paymentRequest,
    paymentHash,
    amountMsat: decoded.millisatoshis ? BigInt(decoded.millisatoshis) : null,
    description: decoded.tagsObject.description ?? null,
    expiresAt: new Date((decoded.timestamp + expirySeconds) * 1000),
    payeeNodeKey: decoded.payeeNodeKey.toLowerCase(),
  };
}

/** A created invoice plus the node key that signed it (our fallback answer to getNodePubkey). */
export type CheckedInvoice = CreatedInvoice & { payeeNodeKey: string };

/**
 * Checks that an invoice a wallet just created is the one we asked for: exactly the amount, and the
 * payment hash the wallet reported (when it reported one) is the invoice's own. Expiry is taken from
 * the invoice itself, since that is what payers enforce.
 */
export function checkCreatedInvoice(backend: string, request: CreateInvoiceRequest, paymentRequest: unknown, reportedPaymentHash?: string): CheckedInvoice {
  const invoice = decodeWalletInvoice(backend, paymentRequest);
  const wantedMsat = BigInt(request.amountSats) * 1000n;
  if (invoice.amountMsat !== wantedMsat) {
    throw new WalletError("invalid_response", `${backend} issued an invoice for ${invoice.amountMsat ?? "no"} msat instead of ${wantedMsat} msat`);
  }
  if (reportedPaymentHash !== undefined && reportedPaymentHash.toLowerCase() !== invoice.paymentHash) {
    throw new WalletError("invalid_response", `${backend} reported a payment hash that is not the invoice's`);
  }
  return {
    paymentRequest: invoice.paymentRequest,
    paymentHash: invoice.paymentHash,
    expiresAt: invoice.expiresAt,
    payeeNodeKey: invoice.payeeNodeKey,
  };
}

/** Rejects requests no wallet could honour, with the same rules and messages for every backend. */
export function assertInvoiceRequest(request: CreateInvoiceRequest): void {
  if (!Number.isSafeInteger(request.amountSats) || request.amountSats < 1 || request.amountSats > MAX_INVOICE_SATS) {
    throw new WalletError("rejected", `Invoice amount must be a whole number of sats from 1 to ${MAX_INVOICE_SATS}`);
  }
  if (!Number.isSafeInteger(request.expirySeconds) || request.expirySeconds < 1) {
    throw new WalletError("rejected", "Invoice expiry must be a positive whole number of seconds");
  }
}
