import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attenuate } from "@/tests/helpers/attenuate.ts";
import { checkDelegation, foldDelegation, parseCaveatInteger, type ChainedCaveat } from "./delegation-caveats.ts";
import { mintL402Macaroon, verifyL402 } from "./macaroon.ts";

const SECRET = "delegation-test-app-secret-0123456789abcdef";
const NOW = Date.parse("2030-06-01T12:00:00.000Z");

function paidToken() {
  const preimage = randomBytes(32);
  const paymentHash = createHash("sha256").update(preimage).digest("hex");
  const { macaroon } = mintL402Macaroon({
    appSecret: SECRET,
    paymentHash,
    tenantId: "cmtenant0001",
    scope: { kind: "credit" },
    amountSats: 100,
    validUntil: new Date(NOW + 3_600_000),
  });
  return { macaroon, preimage: preimage.toString("hex") };
}

const caveat = (condition: string, value: string): ChainedCaveat => ({ condition, value, signatureAfter: randomBytes(32) });

describe("parseCaveatInteger (../shared/INTEROP.md integer grammar)", () => {
  it.each([
    ["1", 1],
    ["100", 100],
    ["4294967295", 4294967295],
  ])("%j → %d", (value, n) => {
    expect(parseCaveatInteger(value)).toBe(n);
  });

  it.each(["0", "-1", "+5", "abc", "5.0", "4294967296", "", "00", " 1", "1e3", "99999999999"])("refuses %j", (value) => {
    expect(parseCaveatInteger(value)).toBeNull();
  });
});

describe("foldDelegation / checkDelegation", () => {
  it("keeps every method and prefix, the earliest valid_until, and one counter per n_uses / max_sats caveat", () => {
    const folded = foldDelegation([
      caveat("method", "GET"),
      caveat("path_prefix", "/v1/"),
      caveat("path_prefix", "/v1/%73earch"),
      caveat("valid_until", String(NOW + 5_000)),
      caveat("valid_until", String(NOW + 1_000)),
      caveat("n_uses", "5"),
      caveat("n_uses", "3"),
      caveat("max_sats", "21"),
    ]);
    expect(folded).toMatchObject({ methods: ["GET"], pathPrefixes: ["/v1", "/v1/search"], validUntilMs: NOW + 1_000 });
    if (!folded || "problem" in folded) throw new Error("expected a delegation");
    expect(folded.useLimits.map((l) => l.limit)).toEqual([5, 3]);
    expect(folded.spendLimits.map((l) => l.limit)).toEqual([21]);
    expect(new Set([...folded.useLimits, ...folded.spendLimits].map((l) => l.key)).size).toBe(3);
    expect(checkDelegation(folded, { method: "GET", path: "/v1/search/deep", now: NOW + 1_000 })).toEqual({ ok: true });
    expect(checkDelegation(folded, { method: "GET", path: "/v1/search", now: NOW + 1_001 })).toMatchObject({ ok: false, caveat: "valid_until" });
    expect(checkDelegation(folded, { method: "POST", path: "/v1/search", now: NOW })).toMatchObject({ ok: false, caveat: "method" });
    expect(checkDelegation(folded, { method: "GET", path: "/v1/searchx", now: NOW })).toMatchObject({ ok: false, caveat: "path_prefix" });
  });

  it("keys a counter by the chain signature after its caveat, hashed (the signature itself is never stored)", () => {
    const signatureAfter = randomBytes(32);
    const folded = foldDelegation([{ condition: "n_uses", value: "1", signatureAfter }]);
    expect(folded).toMatchObject({ useLimits: [{ key: createHash("sha256").update(signatureAfter).digest("hex"), limit: 1 }] });
  });

  it("returns null without delegation caveats and names the caveat of a bad value", () => {
    expect(foldDelegation([])).toBeNull();
    expect(foldDelegation([caveat("n_uses", "0")])).toMatchObject({ caveat: "n_uses=0" });
    expect(foldDelegation([caveat("path_prefix", "/v1/../x")])).toMatchObject({ caveat: "path_prefix=/v1/../x" });
  });
});

// What a credential may do, as the gateway decides it: the request-scoped checks pass, and the
// counters it must take a share from. Attenuation may only narrow: whatever the child may do, its
// parent may do, and the child takes from every counter the parent takes from.
function allowance(macaroon: string, preimage: string, request: { method: string; path: string; now: number }) {
  const verified = verifyL402({ appSecret: SECRET, macaroon, preimage, now: new Date(request.now) });
  if (!verified.ok) return null;
  const delegation = verified.claims.delegation;
  if (!delegation) return { counters: new Map<string, number>() };
  if (!checkDelegation(delegation, request).ok) return null;
  return { counters: new Map([...delegation.useLimits, ...delegation.spendLimits].map((l) => [l.key, l.limit])) };
}

describe("attenuation can only narrow (property)", () => {
  const conditionValue = fc.oneof(
    fc.constantFrom("GET", "POST", "get", "", "GET POST").map((v) => `method=${v}`),
    fc.constantFrom("/", "/v1", "/v1/", "/v1/a", "/v1/a/b", "/v1/%61", "/v2", "/V1", "/v1/../x", "v1", "/v1//a").map((v) => `path_prefix=${v}`),
    fc.integer({ min: -2_000, max: 2_000 }).map((d) => `valid_until=${NOW + d}`),
    fc.integer({ min: -2_000, max: 2_000 }).map((d) => `valid_until=${NOW + d}`),
    fc.constantFrom("soon", "-1").map((v) => `valid_until=${v}`),
    fc.constantFrom("1", "2", "10", "0", "4294967295", "4294967296").map((v) => `n_uses=${v}`),
    fc.constantFrom("1", "5", "100", "abc").map((v) => `max_sats=${v}`),
    fc.constantFrom("foo=bar", "no equals", "amount_sats=50", "amount_sats=500", "cmtenant0001_valid_until=1"),
  );
  const request = fc.record({
    method: fc.constantFrom("GET", "POST", "DELETE"),
    path: fc.constantFrom("/", "/v1", "/v1/a", "/v1/a/b", "/v1/ab", "/v2/x", "/V1/a"),
    now: fc.integer({ min: NOW - 3_000, max: NOW + 3_000 }),
  });

  it("adding caveats never allows a request the credential without them refused, nor drops a counter", () => {
    const token = paidToken();
    fc.assert(
      fc.property(
        fc.array(conditionValue, { maxLength: 4 }),
        fc.array(conditionValue, { minLength: 1, maxLength: 4 }),
        fc.array(request, { minLength: 1, maxLength: 6 }),
        (parentCaveats, added, requests) => {
          const parent = parentCaveats.length ? attenuate(token.macaroon, parentCaveats) : token.macaroon;
          const child = attenuate(parent, added);
          for (const r of requests) {
            const childMay = allowance(child, token.preimage, r);
            if (!childMay) continue;
            const parentMay = allowance(parent, token.preimage, r);
            expect(parentMay, `${[...parentCaveats, "|", ...added].join(" ")} ${JSON.stringify(r)}`).not.toBeNull();
            for (const [key, limit] of parentMay!.counters) expect(childMay.counters.get(key)).toBe(limit);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
