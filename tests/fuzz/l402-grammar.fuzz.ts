// Fuzz targets: the Authorization and WWW-Authenticate grammar (@l402-hub/sdk/client/l402-headers), macaroon V2
// decoding and verification (lib/l402/macaroon.ts) and the canonical request path
// (lib/l402/canonical-path.ts): the first things a request's bytes reach.
import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect } from "vitest";
// @ts-expect-error -- the macaroon package ships no type declarations.
import macaroonPackage from "macaroon";
import { canonicalRequestPath, isWithinPrefix, normalizePathPrefix } from "@/lib/l402/canonical-path.ts";
import { challengeHeaderValues, credentialHeaderValue, MAX_AUTHORIZATION_LENGTH, parseAuthorization, parseChallenge } from "@l402-hub/sdk/client/l402-headers";
import { mintL402Macaroon, parseBinaryV2, paymentHashFromMacaroon, verifyL402 } from "@/lib/l402/macaroon.ts";
import { FakeLightningNode } from "@/tests/fakes/lightning/fake-invoices.ts";
import { fuzzTarget, mutationsOf, textMutationsOf, tokenSoup } from "./harness.ts";

const APP_SECRET = "fuzz-app-secret-0123456789abcdef0123456789";
const NOW = new Date("2030-06-01T12:00:00.000Z");

function mintSample(scope: { kind: "endpoint"; endpointId: string } | { kind: "credit" }) {
  const preimage = randomBytes(32).toString("hex");
  const paymentHash = createHash("sha256").update(Buffer.from(preimage, "hex")).digest("hex");
  const { macaroon } = mintL402Macaroon({
    appSecret: APP_SECRET,
    paymentHash,
    tenantId: "cmfuzztenant",
    scope,
    amountSats: 21,
    validUntil: new Date("2030-06-02T00:00:00.000Z"),
  });
  return { macaroon, preimage };
}

const samples = [mintSample({ kind: "endpoint", endpointId: "cmfuzzendpoint" }), mintSample({ kind: "credit" })];
const invoice = new FakeLightningNode().issue({ amountMsat: 21_000n, description: "fuzz", expirySeconds: 600 }).paymentRequest;

const STANDARD_BASE64_PADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Words of the credential grammar, and pieces of real credentials. */
const credentialTokens = [
  "L402 ",
  "LSAT ",
  "Bearer ",
  "Basic ",
  "l402 ",
  " ",
  "\t",
  ":",
  ",",
  ", ",
  "=",
  "==",
  "-",
  "_",
  "+",
  "/",
  samples[0].macaroon,
  samples[0].preimage,
  samples[1].macaroon.slice(0, 40),
  "a".repeat(64),
  "\u0000",
  "é",
  "𝕃",
];

const authorizationInput = fc.oneof(
  fc.array(tokenSoup(credentialTokens), { maxLength: 4 }),
  fc.array(
    textMutationsOf(
      samples.flatMap((s) => [credentialHeaderValue(s.macaroon, s.preimage), credentialHeaderValue(s.macaroon, s.preimage, "LSAT")]),
      credentialTokens,
    ),
    { minLength: 1, maxLength: 3 },
  ),
);

describe("Authorization grammar", () => {
  fuzzTarget("parseAuthorization", authorizationInput, (values) => {
    const parsed = parseAuthorization(values);
    const total = values.reduce((n, v) => n + v.length, 0);
    if (total > MAX_AUTHORIZATION_LENGTH) expect(parsed.kind).toBe("malformed");
    switch (parsed.kind) {
      case "l402":
        expect(parsed.preimage).toMatch(/^[0-9a-f]{64}$/);
        expect(parsed.macaroon).toMatch(STANDARD_BASE64_PADDED);
        // What we read is what a client meant: writing it back reads the same.
        expect(parseAuthorization([credentialHeaderValue(parsed.macaroon, parsed.preimage, parsed.scheme)])).toEqual(parsed);
        break;
      case "bearer":
        expect(parsed.token).toMatch(/^[A-Za-z0-9\-._~+/]+=*$/);
        break;
      case "malformed":
        expect(parsed.reason.length).toBeGreaterThan(0);
        break;
      default:
        expect(parsed.kind).toBe("none");
    }
  });
});

const challengeTokens = ["L402 ", "LSAT ", "macaroon=", "invoice=", "token=", '"', ", ", ",", " ", "\t", "=", samples[0].macaroon, invoice, "é"];
const [l402Line, lsatLine] = challengeHeaderValues(samples[0].macaroon, invoice);

describe("WWW-Authenticate grammar", () => {
  fuzzTarget(
    "parseChallenge",
    fc.oneof(tokenSoup(challengeTokens), textMutationsOf([l402Line, lsatLine, `${lsatLine}, ${l402Line}`], challengeTokens)),
    (header) => {
      const parsed = parseChallenge(header);
      if (parsed === null) return;
      for (const value of [parsed.macaroon, parsed.invoice]) {
        expect(value.length).toBeGreaterThan(0);
        expect(value).not.toMatch(/["]/);
      }
    },
  );

  fuzzTarget(
    "parseChallenge reads both lines in any order and joining",
    fc.tuple(fc.boolean(), fc.constantFrom(", ", ",", " , "), fc.boolean()),
    ([lsatFirst, joiner, both]) => {
      const lines = both ? (lsatFirst ? [lsatLine, l402Line] : [l402Line, lsatLine]) : [lsatFirst ? lsatLine : l402Line];
      expect(parseChallenge(lines.join(joiner))).toEqual({ macaroon: samples[0].macaroon, invoice });
    },
  );
});

const macaroonBytes = samples.map((s) => new Uint8Array(Buffer.from(s.macaroon, "base64")));

/** The package's reading of V2 bytes in comparable form, or null when it refuses them. */
function packageRead(bytes: Uint8Array) {
  try {
    const m = macaroonPackage.importMacaroon(bytes);
    return {
      identifier: Buffer.from(m.identifier).toString("hex"),
      caveats: m.caveats.map((c: { identifier: Uint8Array; location?: string; vid?: Uint8Array }) => ({
        identifier: Buffer.from(c.identifier).toString("hex"),
        location: (c.vid && c.location) || undefined,
        vid: c.vid ? Buffer.from(c.vid).toString("hex") : undefined,
      })),
      signature: Buffer.from(m.signature).toString("hex"),
    };
  } catch {
    return null;
  }
}

/** What the HMAC chain covers: the identifier, each caveat's identifier and vid, the signature. */
function signedParts(bytes: Buffer) {
  const m = parseBinaryV2(bytes);
  return m && { identifier: m.identifier, caveats: m.caveats.map((c) => [c.identifier, c.vid]), signature: m.signature };
}

describe("macaroon V2", () => {
  fuzzTarget("parseBinaryV2 against the macaroon package", mutationsOf(macaroonBytes, ["\u0002", "\u0000", "\u0006 ", "lsat"]), (bytes) => {
    const ours = parseBinaryV2(Buffer.from(bytes));
    if (ours === null) return;
    // Whatever we accept, the reference implementation reads identically.
    expect({
      identifier: ours.identifier.toString("hex"),
      // The package keeps a caveat's location only on third-party caveats (those with a vid).
      caveats: ours.caveats.map((c) => ({
        identifier: c.identifier.toString("hex"),
        location: (c.vid && c.location) || undefined,
        vid: c.vid?.toString("hex"),
      })),
      signature: ours.signature.toString("hex"),
    }).toEqual(packageRead(bytes));
  });

  fuzzTarget(
    "verifyL402 accepts no mutated token",
    fc.tuple(fc.nat({ max: samples.length - 1 }), mutationsOf(macaroonBytes), fc.boolean()),
    ([index, bytes, urlSafe]) => {
      const sample = samples[index];
      const text = Buffer.from(bytes).toString(urlSafe ? "base64url" : "base64");
      const result = verifyL402({ appSecret: APP_SECRET, macaroon: text, preimage: sample.preimage, now: NOW });
      paymentHashFromMacaroon(text);
      // Locations are hints outside the HMAC chain (libmacaroons); everything signed must be unchanged.
      if (result.ok) expect(signedParts(Buffer.from(bytes))).toEqual(signedParts(Buffer.from(sample.macaroon, "base64")));
    },
  );

  fuzzTarget("verifyL402 on arbitrary text", fc.tuple(fc.string({ maxLength: 700, unit: "binary" }), fc.string({ maxLength: 80 })), ([macaroon, preimage]) => {
    expect(verifyL402({ appSecret: APP_SECRET, macaroon, preimage, now: NOW }).ok).toBe(false);
  });
});

const pathTokens = [
  "/",
  "//",
  ".",
  "..",
  "%2e",
  "%2E",
  "%2f",
  "%5c",
  "%00",
  "%25",
  "%7e",
  "%74",
  ";",
  "#",
  "?",
  "\\",
  "v1",
  "entity",
  "top",
  "é",
  "%C3%A9",
  "%",
  "%ZZ",
  "~",
];

describe("canonical request paths", () => {
  fuzzTarget(
    "canonicalRequestPath is idempotent and never lets a delimiter through",
    tokenSoup(pathTokens).map((s) => `/${s}`),
    (raw) => {
      const result = canonicalRequestPath(raw);
      if ("problem" in result) {
        expect(result.problem.length).toBeGreaterThan(0);
        return;
      }
      const { path } = result;
      expect(path.startsWith("/")).toBe(true);
      // One spelling: the canonical form of a canonical path is itself.
      expect(canonicalRequestPath(path)).toEqual({ path });
      for (const segment of path.split("/").slice(1)) expect([".", ".."]).not.toContain(decodeURIComponent(segment));
      expect(path).not.toMatch(/[;#\\?]|\/\/|%2F|%5C|%00|%2E/i);
    },
  );

  fuzzTarget("path_prefix covers exactly its canonical subtree", fc.tuple(tokenSoup(pathTokens), tokenSoup(pathTokens)), ([a, b]) => {
    const prefix = normalizePathPrefix(`/${a}`);
    const request = canonicalRequestPath(`/${a}/${b}`);
    if ("problem" in prefix || "problem" in request) return;
    // A request built under a prefix is covered by it, whatever its spelling was.
    if (!request.path.startsWith(`${prefix.path}/`) && request.path !== prefix.path) return;
    expect(isWithinPrefix(request.path, prefix.path)).toBe(true);
  });
});
