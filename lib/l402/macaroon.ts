// L402 tokens (../shared/INTEROP.md "Macaroon"): libmacaroons V2 binary macaroons, location "lsat", whose
// identifier is uint16 BE version 0 ‖ payment_hash (32 bytes) ‖ token_id (32 random bytes).
// The root key is HMAC-SHA256(deriveKey(APP_SECRET, "l402-root-key"), token_id), so every gateway
// instance verifies a token with no storage and no wallet call (../shared/DESIGN.md "Lightning").
//
// Caveats we mint, in this order (service = the tenant id; UTF-8 `condition=value`):
//   services=<tenantId>:0                                  the tenant, tier 0
//   <tenantId>_capabilities=endpoint:<endpointId> | credit the scope: one endpoint, or tenant-wide credit
//   <tenantId>_valid_until=<unix seconds>                  usable strictly before this second
//   amount_sats=<sats>                                     what the invoice asked for
// Verifying: all four are required; a repeated condition may only narrow (services and capabilities
// a subset, valid_until and amount_sats not larger), so the last one of each binds. Holders may
// append the delegation caveats of ../shared/INTEROP.md (method, path_prefix, valid_until in ms, n_uses,
// max_sats: ./delegation-caveats.ts), which the gateway enforces. Any other condition, or a caveat
// that is not `condition=value`, fails closed (unknown_caveat): a verifier that skipped a
// restriction it did not understand would serve a child credential more than its holder allowed.
// Third-party caveats are refused: we never issue them.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
// @ts-expect-error -- the macaroon package ships no type declarations; MacaroonPackage types what we use.
import macaroonPackage from "macaroon";
import { deriveKey } from "@/lib/crypto/secret-box.ts";
import { DELEGATION_CONDITIONS, foldDelegation, type ChainedCaveat, type Delegation } from "./delegation-caveats.ts";
import { toStandardBase64 } from "@l402-hub/sdk/client/l402-headers";

/** The part of a `macaroon` package Macaroon instance we use. */
type MacaroonInstance = {
  readonly location: string;
  readonly identifier: Uint8Array;
  readonly caveats: ReadonlyArray<{ identifier: Uint8Array; location?: string; vid?: Uint8Array }>;
  readonly signature: Uint8Array;
  addFirstPartyCaveat(condition: string): void;
};
type MacaroonPackage = {
  newMacaroon(params: { identifier: Uint8Array; location: string; rootKey: Uint8Array; version: 2 }): MacaroonInstance;
};
const macaroons = macaroonPackage as MacaroonPackage;

/** The customary location of L402 macaroons (Aperture's); verifiers do not rely on it. */
export const L402_MACAROON_LOCATION = "lsat";
/** The only identifier layout version that exists; anything else is not an L402 token. */
export const L402_IDENTIFIER_VERSION = 0;
/** Identifier length: 2-byte version, 32-byte payment hash, 32-byte token id. */
export const L402_IDENTIFIER_LENGTH = 66;
/** Longest macaroon (base64 characters) we decode; ours are about 500, attenuated ones a bit more. */
export const MAX_MACAROON_LENGTH = 4096;

/** What a token pays for: one endpoint, or prepaid credit usable on the tenant's per_request endpoints. */
export type L402Scope = { kind: "endpoint"; endpointId: string } | { kind: "credit" };

/** What a verified token proves: this payment hash was paid for this tenant, scope, amount, until then. */
export type L402Claims = {
  paymentHash: string;
  tokenId: string;
  tenantId: string;
  scope: L402Scope;
  amountSats: number;
  /**
   * What the invoice asked for: the first amount_sats caveat, which our mint wrote (a holder can only
   * append, and may append a smaller amount_sats, so `amountSats` is not what was paid).
   */
  invoiceSats: number;
  validUntil: Date;
  /** The delegation caveats a holder appended (null when none): the gateway enforces them per request. */
  delegation: Delegation | null;
};

/**
 * Why a credential was refused. `expired` is a genuine paid token past its time (answered with a
 * fresh 402); every other reason means forged or broken (401).
 */
export type L402VerifyFailure = "malformed" | "bad_signature" | "bad_identifier" | "unknown_caveat" | "expired" | "wrong_preimage";

/** The outcome of verifyL402: claims, or the first rule the credential broke (`detail` names an unknown caveat). */
export type L402VerifyResult = { ok: true; claims: L402Claims } | { ok: false; reason: L402VerifyFailure; detail?: string };

/** Tenant and endpoint ids go inside caveat values: no `=`, `:`, `,` or spaces. */
const CAVEAT_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;
const UNSIGNED_INTEGER = /^(0|[1-9][0-9]{0,15})$/;
const SERVICE_ENTRY = /^([A-Za-z0-9_.-]{1,128}):(0|[1-9][0-9]{0,8})$/;

const utf8 = new TextDecoder("utf-8", { fatal: true });

let rootKeyBase: { appSecret: string; key: Buffer } | null = null;

/** The per-token root key; the HKDF step is cached because every paid request needs it. */
function rootKeyFor(appSecret: string, tokenId: Uint8Array): Uint8Array {
  if (rootKeyBase?.appSecret !== appSecret) rootKeyBase = { appSecret, key: deriveKey(appSecret, "l402-root-key") };
  return new Uint8Array(createHmac("sha256", rootKeyBase.key).update(tokenId).digest());
}

const KEY_GENERATOR = Buffer.from("macaroons-key-generator", "utf8");

/**
 * The libmacaroons signature chain of a macaroon with first-party caveats: HMAC(HMAC(gen, rootKey), id),
 * then HMAC(sig, caveat) per caveat. Returns the signature after each caveat (the last one is the
 * macaroon's; an n_uses / max_sats counter is keyed by the one after its caveat). Computed with
 * node:crypto because the package's sjcl-based verify() costs ~150 µs, and this runs on every paid
 * request; mint→verify tests prove they agree.
 */
function chainSignatures(rootKey: Uint8Array, identifier: Uint8Array, caveats: ReadonlyArray<{ identifier: Uint8Array }>): Buffer[] {
  const hmac = (key: Uint8Array, data: Uint8Array) => createHmac("sha256", key).update(data).digest();
  let signature = hmac(hmac(KEY_GENERATOR, rootKey), identifier);
  const chain = [signature];
  for (const caveat of caveats) {
    signature = hmac(signature, caveat.identifier);
    chain.push(signature);
  }
  return chain;
}

/** A decoded V2 macaroon: what verification reads. */
export type ParsedMacaroon = {
  location: string | undefined;
  identifier: Buffer;
  caveats: { identifier: Buffer; location?: string; vid?: Buffer }[];
  signature: Buffer;
};

/** Decodes standard or URL-safe base64 and parses a V2 macaroon; null for anything else. */
function importBase64Macaroon(macaroon: string): ParsedMacaroon | null {
  if (typeof macaroon !== "string" || macaroon.length > MAX_MACAROON_LENGTH) return null;
  const base64 = toStandardBase64(macaroon);
  if (!base64) return null;
  return parseBinaryV2(Buffer.from(base64, "base64"));
}

/** libmacaroons V2 field types. */
const FIELD_EOS = 0;
const FIELD_LOCATION = 1;
const FIELD_IDENTIFIER = 2;
const FIELD_VID = 4;
const FIELD_SIGNATURE = 6;

/**
 * Reads the libmacaroons V2 binary format (the layout exportBinaryV2 below writes): version 2, a
 * header section (optional location, identifier), caveat sections (optional location, identifier,
 * optional verification id), an empty section, the signature; nothing after it. Null for anything
 * else. Written here because the package's reader converts through sjcl bit arrays and costs a
 * tenth of a paid call's CPU; tests/l402 holds it to the package's reader on valid, truncated,
 * padded and mutated tokens.
 */
export function parseBinaryV2(bytes: Buffer): ParsedMacaroon | null {
  if (bytes.length < 1 || bytes[0] !== 2) return null;
  const reader: V2Reader = { bytes, at: 1, location: undefined, identifier: undefined, vid: undefined };
  if (!readSection(reader, HEADER_FIELDS) || reader.identifier === undefined) return null;
  const location = utf8Text(reader.location);
  if (location === null) return null;
  const identifier = reader.identifier;
  const caveats: ParsedMacaroon["caveats"] = [];
  for (;;) {
    const fields = readSection(reader, CAVEAT_FIELDS);
    if (fields === null) return null;
    if (fields === 0) break;
    if (reader.identifier === undefined) return null;
    const caveatLocation = utf8Text(reader.location);
    if (caveatLocation === null) return null;
    const caveat: ParsedMacaroon["caveats"][number] = { identifier: reader.identifier };
    if (caveatLocation !== undefined) caveat.location = caveatLocation;
    if (reader.vid !== undefined) caveat.vid = reader.vid;
    caveats.push(caveat);
  }
  // The signature field, with nothing after it.
  if (reader.at >= bytes.length || bytes[reader.at++] !== FIELD_SIGNATURE) return null;
  const signature = readFieldData(reader);
  if (!signature || signature.length !== 32 || reader.at !== bytes.length) return null;
  return { location, identifier, caveats, signature };
}

/** Where parseBinaryV2 is in its input, and the fields of the section it read last. */
type V2Reader = { bytes: Buffer; at: number; location: Buffer | undefined; identifier: Buffer | undefined; vid: Buffer | undefined };

/** Field types allowed in a section, as bit masks: the header (location, identifier), a caveat (+ vid). */
const HEADER_FIELDS = (1 << FIELD_LOCATION) | (1 << FIELD_IDENTIFIER);
const CAVEAT_FIELDS = HEADER_FIELDS | (1 << FIELD_VID);

/**
 * Reads one section: fields in increasing type order, each at most once, only `allowed` types, until
 * EOS. Returns how many fields it held (0 is the empty section that ends the caveats), or null.
 */
function readSection(reader: V2Reader, allowed: number): number | null {
  reader.location = reader.identifier = reader.vid = undefined;
  let last = FIELD_EOS;
  for (let count = 0; ; count++) {
    if (reader.at >= reader.bytes.length) return null;
    const type = reader.bytes[reader.at++];
    if (type === FIELD_EOS) return count;
    if (type <= last || type > 30 || (allowed & (1 << type)) === 0) return null;
    last = type;
    const data = readFieldData(reader);
    if (!data) return null;
    if (type === FIELD_LOCATION) reader.location = data;
    else if (type === FIELD_IDENTIFIER) reader.identifier = data;
    else reader.vid = data;
  }
}

/** A field's varint length and data; null when the length is broken or runs past the end. */
function readFieldData(reader: V2Reader): Buffer | null {
  const { bytes } = reader;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    if (reader.at >= bytes.length || shift > 28) return null;
    const byte = bytes[reader.at++];
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  if (reader.at + length > bytes.length) return null;
  const data = bytes.subarray(reader.at, reader.at + length);
  reader.at += length;
  return data;
}

/** Strict UTF-8 text of an optional field: undefined when absent, null when not UTF-8. */
function utf8Text(data: Buffer | undefined): string | undefined | null {
  if (data === undefined) return undefined;
  try {
    return utf8.decode(data);
  } catch {
    return null;
  }
}

/** Splits a 66-byte version-0 identifier; null for any other layout. */
function parseIdentifier(identifier: Uint8Array): { paymentHash: Buffer; tokenId: Buffer } | null {
  const bytes = Buffer.from(identifier);
  if (bytes.length !== L402_IDENTIFIER_LENGTH || bytes.readUInt16BE(0) !== L402_IDENTIFIER_VERSION) return null;
  return { paymentHash: bytes.subarray(2, 34), tokenId: bytes.subarray(34, 66) };
}

/** Unsigned LEB128, the varint of the V2 format. */
function uvarint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/**
 * Serializes a macaroon in the libmacaroons V2 binary format. The package's own exportBinary()
 * (3.0.4, the latest release) doubles its buffer on every append and throws past two caveats
 * (go-macaroon/js-macaroon#40, fixed upstream but never released), so we write the same bytes here.
 */
function exportBinaryV2(macaroon: MacaroonInstance): Buffer {
  const parts: Buffer[] = [Buffer.from([2])];
  const field = (type: number, data: Uint8Array | string) => {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    parts.push(Buffer.from([type]), uvarint(bytes.length), bytes);
  };
  const endOfSection = () => parts.push(Buffer.from([FIELD_EOS]));
  if (macaroon.location) field(FIELD_LOCATION, macaroon.location);
  field(FIELD_IDENTIFIER, macaroon.identifier);
  endOfSection();
  for (const caveat of macaroon.caveats) {
    if (caveat.location) field(FIELD_LOCATION, caveat.location);
    field(FIELD_IDENTIFIER, caveat.identifier);
    if (caveat.vid) field(FIELD_VID, caveat.vid);
    endOfSection();
  }
  endOfSection();
  field(FIELD_SIGNATURE, macaroon.signature);
  return Buffer.concat(parts);
}

/** The caveats of a token, in mint order (see the top of this file). */
function caveatsFor(tenantId: string, scope: L402Scope, amountSats: number, validUntilSeconds: number): string[] {
  const capability = scope.kind === "credit" ? "credit" : `endpoint:${scope.endpointId}`;
  return [`services=${tenantId}:0`, `${tenantId}_capabilities=${capability}`, `${tenantId}_valid_until=${validUntilSeconds}`, `amount_sats=${amountSats}`];
}

/**
 * Mints the macaroon for a challenge. Throws TypeError on invalid arguments: they come from our own
 * configuration and invoices, never from a client.
 */
export function mintL402Macaroon(opts: { appSecret: string; paymentHash: string; tenantId: string; scope: L402Scope; amountSats: number; validUntil: Date }): {
  macaroon: string;
  tokenId: string;
} {
  if (!HEX_32_BYTES.test(opts.paymentHash)) throw new TypeError("paymentHash must be 32 bytes of hex");
  if (!CAVEAT_ID.test(opts.tenantId)) throw new TypeError("tenantId must match [A-Za-z0-9_.-]{1,128}");
  if (opts.scope.kind === "endpoint" && !CAVEAT_ID.test(opts.scope.endpointId)) {
    throw new TypeError("endpointId must match [A-Za-z0-9_.-]{1,128}");
  }
  if (!Number.isSafeInteger(opts.amountSats) || opts.amountSats < 1) throw new TypeError("amountSats must be a positive integer");
  const validUntilSeconds = Math.floor(opts.validUntil.getTime() / 1000);
  if (!Number.isSafeInteger(validUntilSeconds) || validUntilSeconds < 1) throw new TypeError("validUntil must be a valid date");

  const tokenId = randomBytes(32);
  const identifier = Buffer.alloc(L402_IDENTIFIER_LENGTH);
  identifier.writeUInt16BE(L402_IDENTIFIER_VERSION, 0);
  Buffer.from(opts.paymentHash, "hex").copy(identifier, 2);
  tokenId.copy(identifier, 34);

  const macaroon = macaroons.newMacaroon({
    identifier: new Uint8Array(identifier),
    location: L402_MACAROON_LOCATION,
    rootKey: rootKeyFor(opts.appSecret, tokenId),
    version: 2,
  });
  for (const caveat of caveatsFor(opts.tenantId, opts.scope, opts.amountSats, validUntilSeconds)) {
    macaroon.addFirstPartyCaveat(caveat);
  }
  return { macaroon: exportBinaryV2(macaroon).toString("base64"), tokenId: tokenId.toString("hex") };
}

type CaveatClaims = { tenantId: string; scope: L402Scope; amountSats: number; invoiceSats: number; validUntilSeconds: number; delegation: Delegation | null };

/** A caveat's text and the chain signature right after it. */
type SignedCaveat = { text: string; signatureAfter: Uint8Array };

/** Why the caveats were refused; `caveat` names the offending one when there is one. */
type CaveatProblem = { problem: string; caveat?: string };

/** Parses a comma list; null when any entry fails `parse` or the list is empty. */
function parseList<T>(value: string, parse: (entry: string) => T | null): T[] | null {
  const entries = value.split(",").map(parse);
  return entries.length > 0 && entries.every((e) => e !== null) ? (entries as T[]) : null;
}

/** Folds repeats of one condition, each of which may only narrow; null when one widens or fails to parse. */
function narrowSets(values: string[], parse: (entry: string) => string | null): Set<string> | null {
  let current: Set<string> | null = null;
  for (const value of values) {
    const entries = parseList(value, parse);
    if (!entries) return null;
    const next: Set<string> = new Set(entries);
    if (current && [...next].some((e) => !current!.has(e))) return null;
    current = next;
  }
  return current;
}

/** Same for numeric limits: each repeat must be no larger than the one before; returns the last. */
function narrowNumbers(values: string[]): number | null {
  let current: number | null = null;
  for (const value of values) {
    if (!UNSIGNED_INTEGER.test(value)) return null;
    const next = Number(value);
    if (!Number.isSafeInteger(next) || (current !== null && next > current)) return null;
    current = next;
  }
  return current;
}

const refused = (problem: string, caveat?: string): CaveatProblem => (caveat === undefined ? { problem } : { problem, caveat });

/** Applies the caveat rules at the top of this file; a problem means unknown_caveat. */
function evaluateCaveats(caveats: SignedCaveat[]): CaveatClaims | CaveatProblem {
  const byCondition = new Map<string, string[]>();
  const delegated: ChainedCaveat[] = [];
  for (const { text, signatureAfter } of caveats) {
    const eq = text.indexOf("=");
    if (eq < 0) return refused("a caveat must be condition=value", text);
    const condition = text.slice(0, eq);
    const value = text.slice(eq + 1);
    if (DELEGATION_CONDITIONS.has(condition)) {
      delegated.push({ condition, value, signatureAfter });
      continue;
    }
    const values = byCondition.get(condition);
    if (values) values.push(value);
    else byCondition.set(condition, [value]);
  }

  const services = narrowSets(byCondition.get("services") ?? [], (e) => (SERVICE_ENTRY.test(e) ? e : null));
  if (!services || services.size !== 1) return refused("services must name this API once, and may only narrow");
  const tenantId = SERVICE_ENTRY.exec([...services][0])![1];

  const capabilitiesKey = `${tenantId}_capabilities`;
  const validUntilKey = `${tenantId}_valid_until`;
  for (const [condition, values] of byCondition) {
    const known = condition === "services" || condition === "amount_sats" || condition === capabilitiesKey || condition === validUntilKey;
    if (!known) return refused("unknown condition", `${condition}=${values[0]}`);
  }

  const capabilities = narrowSets(byCondition.get(capabilitiesKey) ?? [], (e) => {
    if (e === "credit") return e;
    return e.startsWith("endpoint:") && CAVEAT_ID.test(e.slice("endpoint:".length)) ? e : null;
  });
  if (!capabilities || capabilities.size !== 1) return refused(`${capabilitiesKey} must name one scope, and may only narrow`);
  const capability = [...capabilities][0];
  const scope: L402Scope = capability === "credit" ? { kind: "credit" } : { kind: "endpoint", endpointId: capability.slice("endpoint:".length) };

  const validUntilSeconds = narrowNumbers(byCondition.get(validUntilKey) ?? []);
  const amountSats = narrowNumbers(byCondition.get("amount_sats") ?? []);
  if (validUntilSeconds === null || amountSats === null) return refused(`${validUntilKey} and amount_sats are required, and may only narrow`);

  const delegation = foldDelegation(delegated);
  if (delegation && "problem" in delegation) return refused(delegation.problem, delegation.caveat);
  const invoiceSats = Number(byCondition.get("amount_sats")![0]);
  return { tenantId, scope, amountSats, invoiceSats, validUntilSeconds, delegation };
}

/** A macaroon whose HMAC chain and caveats checked out: what it claims, and the payment hash it commits to. */
type VerifiedMacaroon = { identifier: { paymentHash: Buffer; tokenId: Buffer }; claims: CaveatClaims };

/**
 * Why the chain was refused. For unknown_caveat the HMAC chain was genuine (the holder of a real
 * token appended something we do not understand), so the identifier is there for the preimage check.
 */
type ChainFailure = { reason: L402VerifyFailure; detail?: string; identifier?: VerifiedMacaroon["identifier"] };

/** Identifier layout, HMAC chain and caveats (no preimage, no clock); may throw on library surprises. */
function verifyMacaroonChain(appSecret: string, base64: string): VerifiedMacaroon | ChainFailure {
  const macaroon = importBase64Macaroon(base64);
  if (!macaroon) return { reason: "malformed" };

  const identifierBytes = macaroon.identifier;
  const identifier = parseIdentifier(identifierBytes);
  if (!identifier) return { reason: "bad_identifier" };

  // The HMAC chain first, over the caveat identifiers as they are: a token whose chain we did not
  // make is a forgery whatever its caveats say; only a genuine one gets its caveats judged.
  const caveats = macaroon.caveats;
  const chain = chainSignatures(rootKeyFor(appSecret, identifier.tokenId), identifierBytes, caveats);
  const expected = chain[chain.length - 1];
  const signature = macaroon.signature;
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return { reason: "bad_signature" };

  // We never add third-party caveats and cannot discharge them; caveats must be UTF-8 text.
  const conditions: string[] = [];
  for (const caveat of caveats) {
    if (caveat.vid !== undefined) return { reason: "unknown_caveat", detail: "third-party caveats are not accepted", identifier };
    try {
      conditions.push(utf8.decode(caveat.identifier));
    } catch {
      return { reason: "unknown_caveat", detail: "a caveat is not UTF-8 text", identifier };
    }
  }

  // Caveat meaning is judged here, where narrowing needs all of them at once.
  const claims = evaluateCaveats(conditions.map((text, i) => ({ text, signatureAfter: chain[i + 1] })));
  if ("problem" in claims) {
    const detail = claims.caveat === undefined ? claims.problem : `${claims.caveat.slice(0, 120)} (${claims.problem})`;
    return { reason: "unknown_caveat", detail, identifier };
  }
  return { identifier, claims };
}

function claimsOf(verified: VerifiedMacaroon): L402Claims {
  return {
    paymentHash: verified.identifier.paymentHash.toString("hex"),
    tokenId: verified.identifier.tokenId.toString("hex"),
    tenantId: verified.claims.tenantId,
    scope: verified.claims.scope,
    amountSats: verified.claims.amountSats,
    invoiceSats: verified.claims.invoiceSats,
    validUntil: new Date(verified.claims.validUntilSeconds * 1000),
    delegation: verified.claims.delegation,
  };
}

/** A chain failure as a verify result (the identifier stays inside). */
function failure(chain: ChainFailure): L402VerifyResult {
  return chain.detail === undefined ? { ok: false, reason: chain.reason } : { ok: false, reason: chain.reason, detail: chain.detail };
}

/** All checks after input parsing; may throw only on library surprises, which verifyL402 catches. */
function verifyParsed(opts: { appSecret: string; macaroon: string; preimage: string; now?: Date }): L402VerifyResult {
  if (typeof opts.preimage !== "string" || !HEX_32_BYTES.test(opts.preimage)) return { ok: false, reason: "malformed" };
  const verified = verifyMacaroonChain(opts.appSecret, opts.macaroon);
  // Before expiry and unknown caveats: a wrong preimage is a forgery whatever the token's age or
  // caveats (anyone can append a caveat to a challenge's macaroon), and must not earn a 402.
  const identifier = verified.identifier;
  if (identifier) {
    const preimageHash = createHash("sha256").update(Buffer.from(opts.preimage, "hex")).digest();
    if (!timingSafeEqual(preimageHash, identifier.paymentHash)) return { ok: false, reason: "wrong_preimage" };
  }
  if ("reason" in verified) return failure(verified);

  const now = opts.now ?? new Date();
  if (now.getTime() >= verified.claims.validUntilSeconds * 1000) return { ok: false, reason: "expired" };

  return { ok: true, claims: claimsOf(verified) };
}

/**
 * Verifies an L402 credential statelessly: identifier layout, HMAC chain, preimage, caveats, expiry
 * (in that order; delegation caveats are returned in the claims for the gateway to apply). Never throws: hostile input yields a failure reason. Single use is not checked here.
 */
export function verifyL402(opts: { appSecret: string; macaroon: string; preimage: string; now?: Date }): L402VerifyResult {
  try {
    return verifyParsed(opts);
  } catch {
    return { ok: false, reason: "malformed" };
  }
}

/**
 * Verifies that WE minted this macaroon (identifier layout, HMAC chain, caveats, expiry) without a
 * preimage: the check for holders of an unpaid challenge, such as the settlement endpoint that
 * hands a paid challenge's preimage back to the browser that holds its macaroon. Never throws.
 */
export function verifyL402Macaroon(opts: { appSecret: string; macaroon: string; now?: Date }): L402VerifyResult {
  try {
    const verified = verifyMacaroonChain(opts.appSecret, opts.macaroon);
    if ("reason" in verified) return failure(verified);
    const now = opts.now ?? new Date();
    if (now.getTime() >= verified.claims.validUntilSeconds * 1000) return { ok: false, reason: "expired" };
    return { ok: true, claims: claimsOf(verified) };
  } catch {
    return { ok: false, reason: "malformed" };
  }
}

/** Reads the payment hash from a macaroon's identifier WITHOUT verifying it (logs, clients); null if unreadable. */
export function paymentHashFromMacaroon(macaroon: string): string | null {
  try {
    const parsed = importBase64Macaroon(macaroon);
    const identifier = parsed && parseIdentifier(parsed.identifier);
    return identifier ? identifier.paymentHash.toString("hex") : null;
  } catch {
    return null;
  }
}
