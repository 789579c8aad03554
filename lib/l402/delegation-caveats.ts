// Delegation caveats (../shared/INTEROP.md "Delegation caveats"): conditions a holder appends offline to a
// paid macaroon before handing it, with the same preimage, to a sub-agent. The gateway enforces
// every one in the chain; when a condition repeats, each occurrence must hold, so the most
// restrictive wins and a later caveat can only narrow (two disjoint path prefixes allow nothing).
//   method=<token>          the request's method must equal it (case-sensitive, RFC 9110)
//   path_prefix=<path>      the canonical request path is the prefix or below it (canonical-path.ts)
//   valid_until=<unix ms>   refused after it
//   n_uses=<1..4294967295>  requests this credential may make, counted across instances
//   max_sats=<1..4294967295> sats this credential may spend, counted where a call's price is known
// Counters belong to the caveat, not to the final macaroon: each is keyed by the SHA-256 of the
// HMAC chain signature right after its caveat, which every credential derived from it shares, so
// appending one more caveat (a new final signature) never resets what its parent has used. Pure.
import { createHash } from "node:crypto";
import { isWithinPrefix, normalizePathPrefix } from "./canonical-path.ts";

/** The conditions of this file; any other condition outside our own namespace fails closed. */
export const DELEGATION_CONDITIONS = new Set(["method", "path_prefix", "valid_until", "n_uses", "max_sats"]);

/** Largest n_uses / max_sats value (../shared/INTEROP.md integer grammar). */
export const MAX_CAVEAT_INTEGER = 4_294_967_295;

/** One n_uses or max_sats caveat: its counter's key and its limit. */
export type DelegationLimit = { key: string; limit: number };

/** Everything the delegation caveats of one credential require, folded (see the top of this file). */
export type Delegation = {
  /** Every method= value; the request's method must equal each. */
  methods: string[];
  /** Every path_prefix= value, canonical; the request path must be within each. */
  pathPrefixes: string[];
  /** The earliest valid_until= (ms since the epoch), or null. */
  validUntilMs: number | null;
  /** One per n_uses= caveat: a call takes one use from each. */
  useLimits: DelegationLimit[];
  /** One per max_sats= caveat: a call takes its price from each. */
  spendLimits: DelegationLimit[];
};

/** The caveats of one chain, in order, with the chain signature right after each. */
export type ChainedCaveat = { condition: string; value: string; signatureAfter: Uint8Array };

/** A delegation condition whose value is not in its grammar: the credential fails closed. */
export type DelegationProblem = { caveat: string; problem: string };

const DIGITS = /^[0-9]+$/;
/** RFC 9110 token: what an HTTP method may be. */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
const UNSIGNED_MS = /^(0|[1-9][0-9]{0,15})$/;

/**
 * Reads an n_uses / max_sats value: decimal digits only, no sign, not 0, at most 4294967295;
 * null otherwise (`0`, `-1`, `+5`, `abc`, `5.0`, `4294967296`, empty).
 */
export function parseCaveatInteger(value: string): number | null {
  if (!DIGITS.test(value) || value.length > 10) return null;
  const n = Number(value);
  return n >= 1 && n <= MAX_CAVEAT_INTEGER ? n : null;
}

/** The counter key of an n_uses / max_sats caveat: SHA-256 of the chain signature right after it (hex). */
function counterKey(signatureAfter: Uint8Array): string {
  // Stored hashed: the signature itself, with the preimage, would be a usable credential.
  return createHash("sha256").update(signatureAfter).digest("hex");
}

/**
 * Folds the delegation caveats of a chain (in order) into what they require; a value outside its
 * condition's grammar is a problem (the credential is refused, never the caveat skipped). Null when
 * the chain carries no delegation caveat.
 */
export function foldDelegation(caveats: ChainedCaveat[]): Delegation | DelegationProblem | null {
  if (caveats.length === 0) return null;
  const delegation: Delegation = { methods: [], pathPrefixes: [], validUntilMs: null, useLimits: [], spendLimits: [] };
  for (const { condition, value, signatureAfter } of caveats) {
    const caveat = `${condition}=${value}`;
    switch (condition) {
      case "method":
        if (!METHOD_TOKEN.test(value)) return { caveat, problem: "method must be an HTTP method such as GET" };
        delegation.methods.push(value);
        break;
      case "path_prefix": {
        const prefix = normalizePathPrefix(value);
        if ("problem" in prefix) return { caveat, problem: prefix.problem };
        delegation.pathPrefixes.push(prefix.path);
        break;
      }
      case "valid_until": {
        const ms = UNSIGNED_MS.test(value) ? Number(value) : Number.NaN;
        if (!Number.isSafeInteger(ms)) return { caveat, problem: "valid_until must be Unix time in milliseconds" };
        delegation.validUntilMs = delegation.validUntilMs === null ? ms : Math.min(delegation.validUntilMs, ms);
        break;
      }
      case "n_uses":
      case "max_sats": {
        const limit = parseCaveatInteger(value);
        if (limit === null) return { caveat, problem: `${condition} must be an integer from 1 to ${MAX_CAVEAT_INTEGER}` };
        (condition === "n_uses" ? delegation.useLimits : delegation.spendLimits).push({ key: counterKey(signatureAfter), limit });
        break;
      }
      default:
        return { caveat, problem: "unknown condition" };
    }
  }
  return delegation;
}

/** Which delegation caveat refused a request, and a sentence that names it. */
export type DelegationRefusal = { caveat: "method" | "path_prefix" | "valid_until"; message: string };

/**
 * The request-scoped checks (method, path, time); the counters are taken by the gateway once the
 * call's price is known. `path` is canonical (canonicalRequestPath), `now` in ms.
 */
export function checkDelegation(
  delegation: Delegation,
  request: { method: string; path: string; now: number },
): { ok: true } | ({ ok: false } & DelegationRefusal) {
  const method = delegation.methods.find((m) => m !== request.method);
  if (method !== undefined) {
    return { ok: false, caveat: "method", message: `This credential carries the caveat method=${method}; it cannot be used for ${request.method}` };
  }
  const prefix = delegation.pathPrefixes.find((p) => !isWithinPrefix(request.path, p));
  if (prefix !== undefined) {
    return { ok: false, caveat: "path_prefix", message: `This credential carries the caveat path_prefix=${prefix}; ${request.path} is outside it` };
  }
  if (delegation.validUntilMs !== null && request.now > delegation.validUntilMs) {
    return {
      ok: false,
      caveat: "valid_until",
      message: `This credential carries the caveat valid_until=${delegation.validUntilMs}; it expired at ${new Date(delegation.validUntilMs).toISOString()}`,
    };
  }
  return { ok: true };
}
