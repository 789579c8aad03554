import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  challengeHeaderValues,
  credentialHeaderValue,
  parseAuthorization,
  parseChallenge,
  toStandardBase64,
  type ParsedCredential,
} from "@l402-hub/sdk/client/l402-headers";
import { mintL402Macaroon } from "@/lib/l402/macaroon.ts";

/** The regular expression deployed clients use on WWW-Authenticate (../shared/INTEROP.md). */
const CLIENT_REGEX = /(LSAT|L402)\s+macaroon="([^"]+)",\s*invoice="([^"]+)"/i;

const MACAROON = "AgEEbHNhdAJCAAB+/w==";
const URL_SAFE = "AgEEbHNhdAJCAAB-_w";
const PREIMAGE = "ab".repeat(32);
const INVOICE = "lnbcrt100n1pjqwerty";

const l402 = (scheme: "L402" | "LSAT" = "L402", macaroon = MACAROON, preimage = PREIMAGE): ParsedCredential => ({
  kind: "l402",
  scheme,
  macaroon,
  preimage,
});

describe("challengeHeaderValues", () => {
  it("writes the L402 line then the LSAT line, in the exact order and spacing clients match", () => {
    expect(challengeHeaderValues(MACAROON, INVOICE)).toEqual([
      `L402 macaroon="${MACAROON}", invoice="${INVOICE}"`,
      `LSAT macaroon="${MACAROON}", invoice="${INVOICE}"`,
    ]);
  });

  it("carries a real token clients can read: the regex matches and the identifier holds the payment hash", () => {
    const preimage = randomBytes(32);
    const paymentHash = createHash("sha256").update(preimage).digest("hex");
    const { macaroon } = mintL402Macaroon({
      appSecret: "headers-test-secret-0123456789abcdef",
      paymentHash,
      tenantId: "cmtenant0001",
      scope: { kind: "credit" },
      amountSats: 21,
      validUntil: new Date("2030-01-01T00:00:00Z"),
    });
    const lines = challengeHeaderValues(macaroon, INVOICE);
    // Each line alone, and both joined the way browsers' fetch joins repeated headers.
    for (const header of [...lines, lines.join(", ")]) {
      const match = CLIENT_REGEX.exec(header);
      expect(match?.[2]).toBe(macaroon);
      expect(match?.[3]).toBe(INVOICE);
      expect(parseChallenge(header)).toEqual({ macaroon, invoice: INVOICE });
    }
    expect(CLIENT_REGEX.exec(lines[0])?.[1]).toBe("L402");
    // Clients decode the macaroon and read the identifier: V2 binary, field 2 after the location.
    const bytes = Buffer.from(macaroon, "base64");
    const idStart = bytes.indexOf(Buffer.from([2, 66])) + 2;
    const identifier = bytes.subarray(idStart, idStart + 66);
    expect(identifier.readUInt16BE(0)).toBe(0);
    expect(identifier.subarray(2, 34).toString("hex")).toBe(paymentHash);
  });

  it("refuses values that could break out of the quoted parameters", () => {
    expect(() => challengeHeaderValues(URL_SAFE, INVOICE)).toThrow(TypeError);
    expect(() => challengeHeaderValues(`${MACAROON}"`, INVOICE)).toThrow(TypeError);
    expect(() => challengeHeaderValues(MACAROON, `${INVOICE}\r\nX-Evil: 1`)).toThrow(TypeError);
  });
});

describe("toStandardBase64", () => {
  it.each([
    [MACAROON, MACAROON],
    [URL_SAFE, MACAROON],
    ["QQ", "QQ=="],
    ["QUI", "QUI="],
    ["QUJD", "QUJD"],
    ["", null],
    ["Q", null],
    ["QQ==x", null],
    ["a b", null],
  ])("%j -> %j", (input, expected) => {
    expect(toStandardBase64(input)).toBe(expected);
  });
});

describe("parseAuthorization", () => {
  const big = `L402 ${"A".repeat(8200)}:${PREIMAGE}`;
  it.each<[string, string[] | undefined, ParsedCredential]>([
    ["no header", undefined, { kind: "none" }],
    ["an empty list", [], { kind: "none" }],
    ["an empty value", [""], { kind: "none" }],
    ["L402", [`L402 ${MACAROON}:${PREIMAGE}`], l402()],
    ["LSAT", [`LSAT ${MACAROON}:${PREIMAGE}`], l402("LSAT")],
    ["any scheme case", [`l402 ${MACAROON}:${PREIMAGE}`], l402()],
    ["upper-case preimage", [`L402 ${MACAROON}:${PREIMAGE.toUpperCase()}`], l402()],
    ["URL-safe macaroon", [`L402 ${URL_SAFE}:${PREIMAGE}`], l402()],
    ["surrounding spaces", [`  L402   ${MACAROON}:${PREIMAGE}  `], l402()],
    ["LSAT and L402 lines with one payload", [`LSAT ${MACAROON}:${PREIMAGE}`, `L402 ${URL_SAFE}:${PREIMAGE}`], l402()],
    ["both schemes joined on one line", [`LSAT ${MACAROON}:${PREIMAGE}, L402 ${MACAROON}:${PREIMAGE}`], l402()],
    ["a Bearer token", ["Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln"], { kind: "bearer", token: "eyJhbGciOiJIUzI1NiJ9.e30.c2ln" }],
    ["a scheme that is not ours", ["Basic dXNlcjpwYXNz"], { kind: "none" }],
    ["a foreign scheme beside L402", ["Basic dXNlcjpwYXNz", `L402 ${MACAROON}:${PREIMAGE}`], l402()],
  ])("accepts %s", (_name, values, expected) => {
    expect(parseAuthorization(values)).toEqual(expected);
  });

  it.each<[string, string[]]>([
    ["two different L402 credentials", [`L402 ${MACAROON}:${PREIMAGE}`, `L402 ${MACAROON}:${"cd".repeat(32)}`]],
    ["L402 and LSAT with different macaroons", [`L402 ${MACAROON}:${PREIMAGE}`, `LSAT QUJD:${PREIMAGE}`]],
    ["L402 beside a Bearer token", [`L402 ${MACAROON}:${PREIMAGE}`, "Bearer abc.def.ghi"]],
    ["two Bearer tokens", ["Bearer abc", "Bearer def"]],
    ["a scheme without payload", ["L402"]],
    ["no preimage", [`L402 ${MACAROON}`]],
    ["an empty preimage", [`L402 ${MACAROON}:`]],
    ["a short preimage", [`L402 ${MACAROON}:${PREIMAGE.slice(2)}`]],
    ["a non-hex preimage", [`L402 ${MACAROON}:${"zz".repeat(32)}`]],
    ["a macaroon that is not base64", [`L402 ma"caroon:${PREIMAGE}`]],
    ["an empty macaroon", [`L402 :${PREIMAGE}`]],
    ["extra tokens", [`L402 ${MACAROON}:${PREIMAGE} extra`]],
    ["a Bearer token with spaces", ["Bearer abc def"]],
    ["a header over 8 KB", [big]],
    ["too many lines", Array(17).fill(`L402 ${MACAROON}:${PREIMAGE}`)],
  ])("refuses %s as malformed", (_name, values) => {
    expect(parseAuthorization(values).kind).toBe("malformed");
  });

  it("never throws on arbitrary strings and arrays", () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: "binary", maxLength: 100 }),
      fc.constantFrom("L402 ", "LSAT ", "Bearer ", "l402\t", ":", ",", " ", "=", MACAROON, PREIMAGE),
    );
    const value = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.option(fc.array(value, { maxLength: 20 }), { nil: undefined }), (values) => {
        const parsed = parseAuthorization(values);
        expect(["l402", "bearer", "none", "malformed"]).toContain(parsed.kind);
        if (parsed.kind === "l402") {
          expect(parsed.preimage).toMatch(/^[0-9a-f]{64}$/);
          expect(parsed.macaroon).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("survives values that are not strings", () => {
    expect(parseAuthorization([42 as unknown as string]).kind).toBe("malformed");
    expect(parseAuthorization("L402 x:y" as unknown as string[]).kind).toBe("malformed");
  });

  it("reads back what credentialHeaderValue writes (property)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 400 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom("L402", "LSAT"),
        (mac, pre, scheme) => {
          const macaroon = Buffer.from(mac).toString("base64");
          const preimage = Buffer.from(pre).toString("hex");
          const parsed = parseAuthorization([credentialHeaderValue(macaroon, preimage, scheme as "L402" | "LSAT")]);
          expect(parsed).toEqual({ kind: "l402", scheme, macaroon, preimage });
        },
      ),
    );
  });
});

describe("parseChallenge", () => {
  it.each<[string, string, { macaroon: string; invoice: string } | null]>([
    ["our L402 line", `L402 macaroon="${MACAROON}", invoice="${INVOICE}"`, { macaroon: MACAROON, invoice: INVOICE }],
    ["the LSAT line alone", `LSAT macaroon="m1", invoice="i1"`, { macaroon: "m1", invoice: "i1" }],
    ["both lines joined, preferring L402", `LSAT macaroon="m1", invoice="i1", L402 macaroon="m2", invoice="i2"`, { macaroon: "m2", invoice: "i2" }],
    ["reversed parameters", `L402 invoice="i1", macaroon="m1"`, { macaroon: "m1", invoice: "i1" }],
    ["token= instead of macaroon=", `L402 token="m1", invoice="i1"`, { macaroon: "m1", invoice: "i1" }],
    ["unquoted values and extra parameters", `l402 macaroon=m1,invoice=i1, version="0"`, { macaroon: "m1", invoice: "i1" }],
    ["another challenge first", `Bearer realm="api", L402 macaroon="m1", invoice="i1"`, { macaroon: "m1", invoice: "i1" }],
    ["a challenge without invoice", `L402 macaroon="m1"`, null],
    ["another scheme only", `Bearer realm="api"`, null],
    ["empty values", `L402 macaroon="", invoice=""`, null],
    ["nothing", "", null],
  ])("reads %s", (_name, header, expected) => {
    expect(parseChallenge(header)).toEqual(expected);
  });

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (header) => {
        parseChallenge(header);
        parseChallenge(`L402 ${header}`);
      }),
      { numRuns: 1000 },
    );
    expect(parseChallenge(42 as unknown as string)).toBeNull();
  });
});
