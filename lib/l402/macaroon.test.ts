import { createHash, createHmac, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- the macaroon package ships no type declarations; the interop tests use it untyped.
import macaroonPackage from "macaroon";
import { deriveKey } from "@/lib/crypto/secret-box.ts";
import { mintL402Macaroon, parseBinaryV2, paymentHashFromMacaroon, verifyL402, verifyL402Macaroon, type L402Scope } from "./macaroon.ts";

const SECRET = "l402-test-app-secret-0123456789abcdef";
const TENANT = "cmtenant0001";
const NOW = new Date("2030-06-01T12:00:00.000Z");
const VALID_UNTIL = new Date("2030-06-01T13:00:00.000Z");

/** A paid invoice's secret pair. */
function payment(): { preimage: string; paymentHash: string } {
  const preimage = randomBytes(32);
  return { preimage: preimage.toString("hex"), paymentHash: createHash("sha256").update(preimage).digest("hex") };
}

function mint(scope: L402Scope = { kind: "endpoint", endpointId: "cmendpoint01" }, overrides: { appSecret?: string } = {}) {
  const pay = payment();
  const minted = mintL402Macaroon({
    appSecret: overrides.appSecret ?? SECRET,
    paymentHash: pay.paymentHash,
    tenantId: TENANT,
    scope,
    amountSats: 10,
    validUntil: VALID_UNTIL,
  });
  return { ...pay, ...minted };
}

const rootKey = (appSecret: string, tokenId: Uint8Array) =>
  new Uint8Array(createHmac("sha256", deriveKey(appSecret, "l402-root-key")).update(tokenId).digest());
const hmac = (key: Uint8Array, data: Uint8Array) => createHmac("sha256", key).update(data).digest();

/** Writes a libmacaroons V2 binary macaroon field by field (test-side, independent of the code under test). */
function encodeV2(parts: {
  location?: string;
  identifier: Uint8Array;
  caveats: Array<{ id: Uint8Array; vid?: Uint8Array; location?: string }>;
  signature: Uint8Array;
}): string {
  const out: number[] = [2];
  const field = (type: number, data: Uint8Array) => {
    out.push(type);
    let n = data.length;
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n, ...data);
  };
  if (parts.location) field(1, Buffer.from(parts.location));
  field(2, parts.identifier);
  out.push(0);
  for (const caveat of parts.caveats) {
    if (caveat.location) field(1, Buffer.from(caveat.location));
    field(2, caveat.id);
    if (caveat.vid) field(4, caveat.vid);
    out.push(0);
  }
  out.push(0);
  field(6, parts.signature);
  return Buffer.from(out).toString("base64");
}

/** Builds a macaroon with first-party caveats signed from `key` (libmacaroons HMAC chain). */
function craft(identifier: Uint8Array, key: Uint8Array, caveats: Array<string | Uint8Array>): string {
  const ids = caveats.map((c) => (typeof c === "string" ? Buffer.from(c, "utf8") : c));
  let signature = hmac(hmac(Buffer.from("macaroons-key-generator"), key), identifier);
  for (const id of ids) signature = hmac(signature, id);
  return encodeV2({ location: "lsat", identifier, caveats: ids.map((id) => ({ id })), signature });
}

/** What any token holder can do: append first-party caveats, continuing the HMAC chain from the signature. */
function append(macaroon: string, conditions: string[]): string {
  const m = macaroonPackage.importMacaroon(macaroon);
  let signature: Buffer = Buffer.from(m.signature);
  const added = conditions.map((c) => Buffer.from(c, "utf8"));
  for (const id of added) signature = hmac(signature, id);
  const caveats = (m.caveats as Array<{ identifier: Uint8Array }>).map((c) => ({ id: c.identifier }));
  return encodeV2({ location: m.location, identifier: m.identifier, caveats: [...caveats, ...added.map((id) => ({ id }))], signature });
}

function identifierOf(paymentHash: string, version = 0, tokenId: Buffer = randomBytes(32)): Buffer {
  const id = Buffer.alloc(66);
  id.writeUInt16BE(version, 0);
  Buffer.from(paymentHash, "hex").copy(id, 2);
  tokenId.copy(id, 34);
  return id;
}

const ourCaveats = (validUntil = VALID_UNTIL) => [
  `services=${TENANT}:0`,
  `${TENANT}_capabilities=endpoint:cmendpoint01`,
  `${TENANT}_valid_until=${validUntil.getTime() / 1000}`,
  `amount_sats=10`,
];

describe("mintL402Macaroon / verifyL402", () => {
  it("round-trips endpoint and credit tokens to their claims", () => {
    for (const scope of [{ kind: "endpoint", endpointId: "cmendpoint01" }, { kind: "credit" }] as L402Scope[]) {
      const token = mint(scope);
      expect(token.macaroon).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      expect(token.macaroon.length % 4).toBe(0);
      expect(token.tokenId).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyL402({ appSecret: SECRET, macaroon: token.macaroon, preimage: token.preimage, now: NOW })).toEqual({
        ok: true,
        claims: {
          paymentHash: token.paymentHash,
          tokenId: token.tokenId,
          tenantId: TENANT,
          scope,
          amountSats: 10,
          invoiceSats: 10,
          validUntil: VALID_UNTIL,
          delegation: null,
        },
      });
    }
  });

  it("writes the interoperable layout: V2 binary, location lsat, 66-byte identifier, customary caveats", () => {
    const token = mint();
    const bytes = Buffer.from(token.macaroon, "base64");
    expect(bytes[0]).toBe(2);
    const m = macaroonPackage.importMacaroon(new Uint8Array(bytes));
    expect(m.location).toBe("lsat");
    const identifier = Buffer.from(m.identifier);
    expect(identifier.length).toBe(66);
    expect(identifier.readUInt16BE(0)).toBe(0);
    expect(identifier.subarray(2, 34).toString("hex")).toBe(token.paymentHash);
    expect(identifier.subarray(34).toString("hex")).toBe(token.tokenId);
    const caveats = (m.caveats as Array<{ identifier: Uint8Array }>).map((c) => Buffer.from(c.identifier).toString("utf8"));
    expect(caveats).toEqual(ourCaveats());
    // The reference implementation accepts our HMAC chain with the per-token root key.
    const seen: string[] = [];
    m.verify(rootKey(SECRET, Buffer.from(token.tokenId, "hex")), (condition: string) => {
      seen.push(condition);
      return null;
    });
    expect(seen).toEqual(caveats);
    expect(() => m.verify(rootKey("other-secret", Buffer.from(token.tokenId, "hex")), () => null)).toThrow();
    expect(paymentHashFromMacaroon(token.macaroon)).toBe(token.paymentHash);
  });

  it("verifies macaroons written by an independent encoder with the documented root key", () => {
    const pay = payment();
    const tokenId = randomBytes(32);
    const macaroon = craft(identifierOf(pay.paymentHash, 0, tokenId), rootKey(SECRET, tokenId), ourCaveats());
    const result = verifyL402({ appSecret: SECRET, macaroon, preimage: pay.preimage, now: NOW });
    expect(result).toMatchObject({ ok: true, claims: { tokenId: tokenId.toString("hex"), tenantId: TENANT } });
  });

  it("accepts URL-safe unpadded base64 and upper-case preimages", () => {
    const token = mint();
    const urlSafe = token.macaroon.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(verifyL402({ appSecret: SECRET, macaroon: urlSafe, preimage: token.preimage.toUpperCase(), now: NOW }).ok).toBe(true);
    expect(paymentHashFromMacaroon(urlSafe)).toBe(token.paymentHash);
  });

  it("rejects tampered caveat bytes", () => {
    const token = mint();
    const bytes = Buffer.from(token.macaroon, "base64");
    const at = bytes.indexOf("amount_sats=10");
    bytes.write("amount_sats=99", at, "utf8");
    const result = verifyL402({ appSecret: SECRET, macaroon: bytes.toString("base64"), preimage: token.preimage, now: NOW });
    expect(result).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("rejects a signature made with another app secret", () => {
    const token = mint(undefined, { appSecret: "another-app-secret-0123456789" });
    expect(verifyL402({ appSecret: SECRET, macaroon: token.macaroon, preimage: token.preimage, now: NOW })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("rejects a wrong preimage, even on an expired token", () => {
    const token = mint();
    const wrong = randomBytes(32).toString("hex");
    expect(verifyL402({ appSecret: SECRET, macaroon: token.macaroon, preimage: wrong, now: NOW })).toEqual({ ok: false, reason: "wrong_preimage" });
    const later = new Date(VALID_UNTIL.getTime() + 1);
    expect(verifyL402({ appSecret: SECRET, macaroon: token.macaroon, preimage: wrong, now: later })).toEqual({ ok: false, reason: "wrong_preimage" });
  });

  it("expires at valid_until against the injected clock", () => {
    const token = mint();
    const at = (ms: number) => verifyL402({ appSecret: SECRET, macaroon: token.macaroon, preimage: token.preimage, now: new Date(ms) });
    expect(at(VALID_UNTIL.getTime() - 1).ok).toBe(true);
    expect(at(VALID_UNTIL.getTime())).toEqual({ ok: false, reason: "expired" });
  });

  it("rejects identifiers of the wrong length or version, even when correctly signed", () => {
    const pay = payment();
    const tokenId = randomBytes(32);
    const key = rootKey(SECRET, tokenId);
    const v1 = craft(identifierOf(pay.paymentHash, 1, tokenId), key, ourCaveats());
    const short = craft(identifierOf(pay.paymentHash, 0, tokenId).subarray(0, 65), key, ourCaveats());
    const long = craft(Buffer.concat([identifierOf(pay.paymentHash, 0, tokenId), Buffer.from([0])]), key, ourCaveats());
    for (const macaroon of [v1, short, long]) {
      expect(verifyL402({ appSecret: SECRET, macaroon, preimage: pay.preimage, now: NOW })).toEqual({ ok: false, reason: "bad_identifier" });
      expect(paymentHashFromMacaroon(macaroon)).toBeNull();
    }
  });

  it("rejects garbage as malformed", () => {
    const token = mint();
    const cases: Array<[string, string]> = [
      ["", token.preimage],
      ["!!!!", token.preimage],
      ["AAAA", token.preimage],
      [Buffer.from("not a macaroon").toString("base64"), token.preimage],
      [token.macaroon.slice(0, -8), token.preimage],
      [token.macaroon + "AAAA", token.preimage],
      ["A".repeat(5000), token.preimage],
      [token.macaroon, "xyz"],
      [token.macaroon, token.preimage.slice(1)],
      [token.macaroon, `${token.preimage}00`],
    ];
    for (const [macaroon, preimage] of cases) {
      expect(verifyL402({ appSecret: SECRET, macaroon, preimage, now: NOW })).toEqual({ ok: false, reason: "malformed" });
    }
    expect(paymentHashFromMacaroon("!!!!")).toBeNull();
  });

  describe("caveats appended by a holder", () => {
    const verifyAppended = (conditions: string[], now = NOW) => {
      const token = mint();
      return verifyL402({ appSecret: SECRET, macaroon: append(token.macaroon, conditions), preimage: token.preimage, now });
    };
    const seconds = (d: Date) => d.getTime() / 1000;

    it("may narrow: an earlier valid_until binds, a smaller amount binds", () => {
      const earlier = new Date(VALID_UNTIL.getTime() - 1_800_000);
      const narrowed = verifyAppended([`${TENANT}_valid_until=${seconds(earlier)}`, "amount_sats=4"]);
      expect(narrowed).toMatchObject({ ok: true, claims: { validUntil: earlier, amountSats: 4 } });
      expect(verifyAppended([`${TENANT}_valid_until=${seconds(earlier)}`], new Date(earlier.getTime() + 1))).toEqual({ ok: false, reason: "expired" });
      expect(verifyAppended([`services=${TENANT}:0`, `${TENANT}_capabilities=endpoint:cmendpoint01`]).ok).toBe(true);
    });

    it("may not widen: later expiry, larger amount, other tenants or scopes fail closed", () => {
      const widening = [
        `${TENANT}_valid_until=${seconds(VALID_UNTIL) + 86_400}`,
        "amount_sats=1000",
        `services=${TENANT}:0,othertenant:0`,
        "services=othertenant:0",
        `${TENANT}_capabilities=endpoint:cmendpoint01,credit`,
        `${TENANT}_capabilities=credit`,
      ];
      for (const caveat of widening) expect(verifyAppended([caveat])).toMatchObject({ ok: false, reason: "unknown_caveat" });
    });

    it("fails closed on unknown or unparsable caveats in our namespace", () => {
      for (const caveat of [
        `${TENANT}_tier=gold`,
        `${TENANT}_valid_until=soon`,
        `${TENANT}_valid_until=-1`,
        "amount_sats=1e3",
        "amount_sats=",
        `services=${TENANT}`,
        `${TENANT}_capabilities=endpoint:`,
      ]) {
        expect(verifyAppended([caveat])).toMatchObject({ ok: false, reason: "unknown_caveat" });
      }
    });

    it("fails closed on any other condition too, naming it (../shared/INTEROP.md: never skipped)", () => {
      for (const caveat of ["otherservice_capabilities=read", "ip_address=203.0.113.7", "free text"]) {
        expect(verifyAppended([caveat])).toEqual({ ok: false, reason: "unknown_caveat", detail: expect.stringContaining(caveat) });
      }
    });

    it("returns the delegation caveats it understands, and what the invoice asked for however amount_sats was narrowed", () => {
      const verified = verifyAppended(["method=GET", "amount_sats=1", "n_uses=2"]);
      expect(verified).toMatchObject({ ok: true, claims: { amountSats: 1, invoiceSats: 10, delegation: { methods: ["GET"], useLimits: [{ limit: 2 }] } } });
    });

    it("checks the preimage before judging caveats: an unknown caveat on an unpaid macaroon is still a wrong preimage", () => {
      const token = mint();
      const macaroon = append(token.macaroon, ["foo=bar"]);
      expect(verifyL402({ appSecret: SECRET, macaroon, preimage: payment().preimage, now: NOW })).toEqual({ ok: false, reason: "wrong_preimage" });
    });

    it("refuses third-party and non-UTF-8 caveats", () => {
      const token = mint();
      const m = macaroonPackage.importMacaroon(token.macaroon);
      const caveats = (m.caveats as Array<{ identifier: Uint8Array }>).map((c) => ({ id: c.identifier }));
      // Chained by the holder (HMAC over the caveat id), so the chain is genuine and the caveat is what fails.
      const chained = (id: Buffer) => ({ location: "lsat", identifier: m.identifier, signature: hmac(m.signature, id) });
      const tp = Buffer.from("tp");
      const thirdParty = encodeV2({ ...chained(tp), caveats: [...caveats, { id: tp, vid: randomBytes(72), location: "https://auth.example" }] });
      const bytes = Buffer.from([0xff, 0xfe, 0x3d]);
      const binary = encodeV2({ ...chained(bytes), caveats: [...caveats, { id: bytes }] });
      for (const macaroon of [thirdParty, binary]) {
        expect(verifyL402({ appSecret: SECRET, macaroon, preimage: token.preimage, now: NOW })).toMatchObject({ ok: false, reason: "unknown_caveat" });
      }
      // Not chained: a forgery, whatever the caveat is.
      const unchained = encodeV2({ location: "lsat", identifier: m.identifier, signature: m.signature, caveats: [...caveats, { id: bytes }] });
      expect(verifyL402({ appSecret: SECRET, macaroon: unchained, preimage: token.preimage, now: NOW })).toEqual({ ok: false, reason: "bad_signature" });
    });

    it("requires every caveat we mint", () => {
      const pay = payment();
      const tokenId = randomBytes(32);
      const all = ourCaveats();
      for (let skip = 0; skip < all.length; skip++) {
        const macaroon = craft(
          identifierOf(pay.paymentHash, 0, tokenId),
          rootKey(SECRET, tokenId),
          all.filter((_, i) => i !== skip),
        );
        expect(verifyL402({ appSecret: SECRET, macaroon, preimage: pay.preimage, now: NOW })).toMatchObject({ ok: false, reason: "unknown_caveat" });
      }
    });
  });

  it("refuses to mint from invalid arguments", () => {
    const base = {
      appSecret: SECRET,
      paymentHash: payment().paymentHash,
      tenantId: TENANT,
      scope: { kind: "credit" } as L402Scope,
      amountSats: 1,
      validUntil: VALID_UNTIL,
    };
    expect(() => mintL402Macaroon({ ...base, paymentHash: "abc" })).toThrow(TypeError);
    expect(() => mintL402Macaroon({ ...base, tenantId: "a=b" })).toThrow(TypeError);
    expect(() => mintL402Macaroon({ ...base, scope: { kind: "endpoint", endpointId: "a,b" } })).toThrow(TypeError);
    expect(() => mintL402Macaroon({ ...base, amountSats: 0 })).toThrow(TypeError);
    expect(() => mintL402Macaroon({ ...base, validUntil: new Date(Number.NaN) })).toThrow(TypeError);
  });
});

describe("verifyL402Macaroon (no preimage: the settlement endpoint's check)", () => {
  it("returns the claims of a genuine token without its preimage", () => {
    const token = mint();
    expect(verifyL402Macaroon({ appSecret: SECRET, macaroon: token.macaroon, now: NOW })).toEqual({
      ok: true,
      claims: {
        paymentHash: token.paymentHash,
        tokenId: token.tokenId,
        tenantId: TENANT,
        scope: { kind: "endpoint", endpointId: "cmendpoint01" },
        amountSats: 10,
        invoiceSats: 10,
        validUntil: VALID_UNTIL,
        delegation: null,
      },
    });
  });

  it("refuses tampered caveats, another app secret, garbage and expired tokens", () => {
    const token = mint();
    const bytes = Buffer.from(token.macaroon, "base64");
    bytes.write("amount_sats=99", bytes.indexOf("amount_sats=10"), "utf8");
    expect(verifyL402Macaroon({ appSecret: SECRET, macaroon: bytes.toString("base64"), now: NOW })).toEqual({ ok: false, reason: "bad_signature" });
    const other = mint(undefined, { appSecret: "another-app-secret-0123456789" });
    expect(verifyL402Macaroon({ appSecret: SECRET, macaroon: other.macaroon, now: NOW })).toEqual({ ok: false, reason: "bad_signature" });
    expect(verifyL402Macaroon({ appSecret: SECRET, macaroon: "not a macaroon", now: NOW })).toEqual({ ok: false, reason: "malformed" });
    expect(verifyL402Macaroon({ appSecret: SECRET, macaroon: token.macaroon, now: VALID_UNTIL })).toEqual({ ok: false, reason: "expired" });
  });
});

describe("verifyL402 on hostile input (property)", () => {
  const token = mint();

  it("never throws on arbitrary strings and never accepts them", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), fc.string({ maxLength: 80 }), (macaroon, preimage) => {
        const result = verifyL402({ appSecret: SECRET, macaroon, preimage, now: NOW });
        expect(result.ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("never throws on arbitrary bytes behind a valid preimage, and never accepts them", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const macaroon = Buffer.from(bytes).toString("base64");
        expect(verifyL402({ appSecret: SECRET, macaroon, preimage: token.preimage, now: NOW }).ok).toBe(false);
        paymentHashFromMacaroon(macaroon);
      }),
      { numRuns: 500 },
    );
  });

  it("never throws on single-byte corruptions of a real token; any it accepts keep the original claims", () => {
    const original = Buffer.from(token.macaroon, "base64");
    const expected = verifyL402({ appSecret: SECRET, macaroon: token.macaroon, preimage: token.preimage, now: NOW });
    fc.assert(
      fc.property(fc.nat({ max: original.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const bytes = Buffer.from(original);
        bytes[at] ^= xor;
        const result = verifyL402({ appSecret: SECRET, macaroon: bytes.toString("base64"), preimage: token.preimage, now: NOW });
        // Only the location is outside the HMAC chain (libmacaroons), so only it may change unnoticed.
        if (result.ok) expect(result).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("parseBinaryV2 (our V2 reader) against the macaroon package's reader", () => {
  /** The package's reading of the bytes in the same shape as ours, or null where it throws. */
  function packageRead(bytes: Buffer) {
    let m: { location: string; identifier: Uint8Array; caveats: Array<{ identifier: Uint8Array; location?: string; vid?: Uint8Array }>; signature: Uint8Array };
    try {
      m = macaroonPackage.importMacaroon(new Uint8Array(bytes));
    } catch {
      return null;
    }
    return {
      location: m.location || undefined,
      identifier: Buffer.from(m.identifier).toString("hex"),
      caveats: m.caveats.map((c) => ({
        identifier: Buffer.from(c.identifier).toString("hex"),
        location: c.location || undefined,
        vid: c.vid ? Buffer.from(c.vid).toString("hex") : undefined,
      })),
      signature: Buffer.from(m.signature).toString("hex"),
    };
  }
  function ourRead(bytes: Buffer) {
    const m = parseBinaryV2(bytes);
    if (!m) return null;
    return {
      location: m.location || undefined,
      identifier: m.identifier.toString("hex"),
      caveats: m.caveats.map((c) => ({ identifier: c.identifier.toString("hex"), location: c.location || undefined, vid: c.vid?.toString("hex") })),
      signature: m.signature.toString("hex"),
    };
  }
  const samples = () => {
    const { macaroon } = mint();
    const long = Buffer.alloc(300, 7); // a length that needs a two-byte varint
    return [
      Buffer.from(macaroon, "base64"),
      Buffer.from(encodeV2({ identifier: randomBytes(66), caveats: [], signature: randomBytes(32) }), "base64"),
      Buffer.from(
        encodeV2({
          location: "https://x.example",
          identifier: long,
          caveats: [{ id: Buffer.from("a=1") }, { id: long, location: "https://tp.example", vid: randomBytes(72) }],
          signature: randomBytes(32),
        }),
        "base64",
      ),
    ];
  };

  it("reads valid tokens exactly as the package does (location, caveats, third-party vids, long fields)", () => {
    for (const bytes of samples()) {
      const ours = ourRead(bytes);
      expect(ours).not.toBeNull();
      expect(ours).toEqual(packageRead(bytes));
    }
  });

  it("refuses every truncation and trailing byte, and a wrong version or signature length", () => {
    for (const bytes of samples()) {
      for (let cut = 0; cut < bytes.length; cut++) expect(parseBinaryV2(bytes.subarray(0, cut)), `cut at ${cut}`).toBeNull();
      expect(parseBinaryV2(Buffer.concat([bytes, Buffer.from([0])]))).toBeNull();
      expect(parseBinaryV2(Buffer.concat([Buffer.from([1]), bytes.subarray(1)]))).toBeNull();
    }
    expect(parseBinaryV2(Buffer.from(encodeV2({ identifier: randomBytes(66), caveats: [], signature: randomBytes(31) }), "base64"))).toBeNull();
  });

  it("never accepts a mutated token the package refuses, and reads alike whatever both accept", () => {
    const [minted] = samples();
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(minted.length - 1), fc.nat(255)), { minLength: 1, maxLength: 4 }), (edits) => {
        const bytes = Buffer.from(minted);
        for (const [at, value] of edits) bytes[at] = value;
        const ours = ourRead(bytes);
        if (ours !== null) expect(ours).toEqual(packageRead(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});
