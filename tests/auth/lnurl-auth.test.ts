// LNURL-auth (LUD-04) sign-in: k1 challenges, secp256k1 DER signature checks (good, wrong key,
// wrong k1, malformed, high-S), single use (replay, racing callbacks), browser binding of the claim,
// expiry, and that the session a claim writes is one Auth.js's Prisma adapter reads. Also the three
// routes as a wallet and a browser call them, and the dev wallet.
import { PrismaAdapter } from "@auth/prisma-adapter";
import { getPublicKey, signAsync, utils as secp } from "@noble/secp256k1";
import { describe, expect, it } from "vitest";
import { GET as callbackRoute } from "@/app/api/lnurl-auth/callback/route.ts";
import { POST as challengeRoute } from "@/app/api/lnurl-auth/challenge/route.ts";
import { GET as statusRoute } from "@/app/api/lnurl-auth/status/route.ts";
import { POST as devSignRoute } from "@/app/api/dev/lnurl-auth/route.ts";
import { compactToDer, derToCompact } from "@/lib/auth/der-signature.ts";
import { devLinkingKey, signK1 } from "@/lib/auth/dev-lnurl-wallet.ts";
import { CHALLENGE_TTL_MS, claimLoginChallenge, createLoginChallenge, isValidK1Signature, verifyLoginSignature } from "@/lib/auth/lnurl-auth.ts";
import { bech32Encode } from "@/lib/auth/lnurl.ts";
import { useApiContext } from "@/tests/api/helpers.ts";

const api = useApiContext();
const apiUrl = "http://127.0.0.1:3000/api";

function wallet() {
  const secretKey = secp.randomSecretKey();
  return { secretKey, key: Buffer.from(getPublicKey(secretKey, true)).toString("hex"), sign: (k1: string) => signK1(secretKey, k1) };
}

/** Decodes an LNURL back to its URL (bech32 words → bytes), to check what the QR code carries. */
function decodeLnurl(lnurl: string): string {
  const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
  const data = lnurl.toLowerCase().slice("lnurl1".length, -6);
  let acc = 0;
  let bits = 0;
  const bytes: number[] = [];
  for (const c of data) {
    acc = (acc << 5) | CHARSET.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >>> bits) & 0xff);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

describe("LNURL-auth challenges and signatures", () => {
  it("encodes the callback URL with tag=login and k1 in the LNURL", async () => {
    const challenge = await createLoginChallenge({ prisma: api.test().db.prisma, apiUrl });
    expect(challenge.k1).toMatch(/^[0-9a-f]{64}$/);
    expect(challenge.lnurl).toMatch(/^LNURL1[0-9A-Z]+$/);
    expect(decodeLnurl(challenge.lnurl)).toBe(`${apiUrl}/lnurl-auth/callback?tag=login&k1=${challenge.k1}&action=login`);
    expect(bech32Encode("lnurl", new TextEncoder().encode(challenge.callbackUrl)).toUpperCase()).toBe(challenge.lnurl);
  });

  it("accepts the linking key's DER signature of k1 and refuses wrong keys, wrong k1 and garbage", async () => {
    const w = wallet();
    const other = wallet();
    const k1 = "11".repeat(32);
    const sig = await w.sign(k1);
    expect(await isValidK1Signature(k1, sig, w.key)).toBe(true);
    expect(await isValidK1Signature(k1, sig, other.key)).toBe(false);
    expect(await isValidK1Signature("22".repeat(32), sig, w.key)).toBe(false);
    expect(await isValidK1Signature(k1, `${sig.slice(0, -2)}00`, w.key)).toBe(false);
    expect(await isValidK1Signature(k1, "30deadbeef", w.key)).toBe(false);
    expect(await isValidK1Signature(k1, sig, `04${w.key.slice(2)}`)).toBe(false);
    // A signature over sha256(k1) (a wallet that hashes again) is not a signature of k1.
    const hashed = Buffer.from(compactToDer(await signAsync(Buffer.from(k1, "hex"), w.secretKey, { prehash: true }))).toString("hex");
    expect(await isValidK1Signature(k1, hashed, w.key)).toBe(false);
  });

  it("round-trips DER and refuses non-strict encodings", () => {
    const compact = Uint8Array.from({ length: 64 }, (_, i) => (i === 0 || i === 32 ? 0x80 : i === 33 ? 0 : i));
    const der = compactToDer(compact);
    expect(derToCompact(der)).toEqual(compact);
    // r with its high bit set carries a 0x00 sign byte; dropping it makes r negative.
    expect(der[3]).toBe(33);
    const negative = Uint8Array.from([0x30, der[1] - 1, 0x02, 32, ...der.subarray(5)]);
    expect(derToCompact(negative)).toBeNull();
    // A padded (non-minimal) s, a wrong total length and trailing bytes are refused.
    const small = compactToDer(new Uint8Array(64).fill(1));
    const padded = Uint8Array.from([0x30, small[1] + 1, ...small.subarray(2, 36), 0x02, 33, 0x00, ...small.subarray(38)]);
    expect(derToCompact(padded)).toBeNull();
    expect(derToCompact(Uint8Array.from([...small, 0]))).toBeNull();
    expect(derToCompact(small.subarray(0, 20))).toBeNull();
  });

  it("accepts a high-S signature (some wallets do not normalize)", async () => {
    const w = wallet();
    const k1 = "33".repeat(32);
    const low = await signAsync(Buffer.from(k1, "hex"), w.secretKey, { prehash: false, format: "compact" });
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const r = BigInt(`0x${Buffer.from(low.slice(0, 32)).toString("hex")}`);
    const s = n - BigInt(`0x${Buffer.from(low.slice(32)).toString("hex")}`);
    const der = (x: bigint) => {
      let hex = x
        .toString(16)
        .padStart(64, "0")
        .replace(/^(00)+/, "");
      if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
      return `02${(hex.length / 2).toString(16).padStart(2, "0")}${hex}`;
    };
    const body = der(r) + der(s);
    const highS = `30${(body.length / 2).toString(16).padStart(2, "0")}${body}`;
    expect(await isValidK1Signature(k1, highS, w.key)).toBe(true);
  });

  it("signs a user in once: a second callback with the same k1 is a replay", async () => {
    const { prisma } = api.test().db;
    const w = wallet();
    const { k1 } = await createLoginChallenge({ prisma, apiUrl });
    const sig = await w.sign(k1);
    const { userId } = await verifyLoginSignature({ prisma, k1, sig, key: w.key });
    await expect(verifyLoginSignature({ prisma, k1, sig, key: w.key })).rejects.toMatchObject({ code: "conflict" });
    // The same wallet signing a new k1 is the same user (one Account per linking key).
    const second = await createLoginChallenge({ prisma, apiUrl });
    expect((await verifyLoginSignature({ prisma, k1: second.k1, sig: await w.sign(second.k1), key: w.key })).userId).toBe(userId);
    expect(await prisma.account.count({ where: { provider: "lnurl-auth", providerAccountId: w.key } })).toBe(1);
  });

  it("lets exactly one of two racing callbacks win", async () => {
    const { prisma } = api.test().db;
    const w = wallet();
    const { k1 } = await createLoginChallenge({ prisma, apiUrl });
    const sig = await w.sign(k1);
    const results = await Promise.allSettled([1, 2, 3].map(() => verifyLoginSignature({ prisma, k1, sig, key: w.key })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("refuses a bad signature without marking the challenge, and unknown or expired k1", async () => {
    const { prisma } = api.test().db;
    const w = wallet();
    const intruder = wallet();
    const { k1 } = await createLoginChallenge({ prisma, apiUrl });
    await expect(verifyLoginSignature({ prisma, k1, sig: await intruder.sign(k1), key: w.key })).rejects.toMatchObject({ code: "unauthorized" });
    expect((await prisma.lnurlAuthChallenge.findUniqueOrThrow({ where: { k1 } })).signedAt).toBeNull();
    expect(await prisma.user.count()).toBe(0);
    await expect(verifyLoginSignature({ prisma, k1: "44".repeat(32), sig: await w.sign("44".repeat(32)), key: w.key })).rejects.toMatchObject({
      code: "not_found",
    });
    const later = new Date(Date.now() + CHALLENGE_TTL_MS + 1000);
    await expect(verifyLoginSignature({ prisma, k1, sig: await w.sign(k1), key: w.key, now: later })).rejects.toMatchObject({ code: "not_found" });
  });

  it("hands the session to the asking browser once; the adapter reads it", async () => {
    const { prisma } = api.test().db;
    const w = wallet();
    const challenge = await createLoginChallenge({ prisma, apiUrl });
    const claim = (browserSecret: string) => claimLoginChallenge({ prisma, k1: challenge.k1, browserSecret });
    expect(await claim(challenge.browserSecret)).toEqual({ status: "pending" });
    const { userId } = await verifyLoginSignature({ prisma, k1: challenge.k1, sig: await w.sign(challenge.k1), key: w.key });
    expect(await claim("another-browser")).toEqual({ status: "unknown" });
    expect(await claim("")).toEqual({ status: "unknown" });
    const won = await claim(challenge.browserSecret);
    expect(won.status).toBe("signed");
    expect(await claim(challenge.browserSecret)).toEqual({ status: "expired" });
    const token = won.status === "signed" ? won.sessionToken : "";
    const adapter = PrismaAdapter(prisma as unknown as Parameters<typeof PrismaAdapter>[0]);
    const read = await adapter.getSessionAndUser!(token);
    expect(read?.user.id).toBe(userId);
    expect(read!.session.expires.getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600_000);
  });
});

describe("LNURL-auth routes", () => {
  it("challenge → wallet callback → browser poll sets the Auth.js session cookie", async () => {
    const { prisma } = api.test().db;
    const res = await challengeRoute(new Request(`${apiUrl}/lnurl-auth/challenge`, { method: "POST" }), { params: Promise.resolve({}) });
    expect(res.status).toBe(200);
    const challenge = await res.json();
    const browserCookie = res.headers.get("set-cookie")!;
    expect(browserCookie).toMatch(/^hub-lnurl-auth=[^;]+; Path=\/api\/lnurl-auth; HttpOnly; SameSite=Lax/);
    const cookie = browserCookie.split(";")[0];

    const poll = () => statusRoute(new Request(`${apiUrl}/lnurl-auth/status?k1=${challenge.k1}`, { headers: { cookie } }), { params: Promise.resolve({}) });
    expect(await (await poll()).json()).toEqual({ status: "pending" });

    const w = wallet();
    const url = new URL(decodeLnurl(challenge.lnurl));
    url.searchParams.set("sig", await w.sign(challenge.k1));
    url.searchParams.set("key", w.key);
    const ok = await callbackRoute(new Request(url));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: "OK" });
    const replay = await callbackRoute(new Request(url));
    expect(replay.status).toBe(409);
    expect(await replay.json()).toEqual({ status: "ERROR", reason: expect.stringContaining("already used") });

    const signed = await poll();
    expect(await signed.json()).toEqual({ status: "signed" });
    const cookies = signed.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith("authjs.session-token="))!;
    expect(session).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
    const token = session.split(";")[0].split("=")[1];
    expect(await prisma.session.count({ where: { sessionToken: token } })).toBe(1);
    expect(cookies.some((c) => c.startsWith("hub-lnurl-auth=;"))).toBe(true);
  });

  it("answers LUD-04 errors for malformed calls and bad signatures", async () => {
    const { prisma } = api.test().db;
    const bad = await callbackRoute(new Request(`${apiUrl}/lnurl-auth/callback?tag=withdraw&k1=zz`));
    expect(bad.status).toBe(422);
    expect((await bad.json()).status).toBe("ERROR");
    const { k1 } = await createLoginChallenge({ prisma, apiUrl });
    const w = wallet();
    const forged = await callbackRoute(new Request(`${apiUrl}/lnurl-auth/callback?tag=login&k1=${k1}&sig=${await wallet().sign(k1)}&key=${w.key}`));
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ status: "ERROR", reason: "The signature does not verify with this key" });
  });

  it("the dev wallet signs with its APP_SECRET-derived key, as one stable user", async () => {
    const t = api.test();
    const { prisma } = t.db;
    const expected = devLinkingKey(t.config.appSecret, "127.0.0.1:3000").publicKey;
    for (let i = 0; i < 2; i++) {
      const { k1 } = await createLoginChallenge({ prisma, apiUrl });
      const res = await devSignRoute(
        new Request(`${apiUrl}/dev/lnurl-auth`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ k1 }) }),
        { params: Promise.resolve({}) },
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "OK", key: expected });
    }
    expect(await prisma.account.count({ where: { provider: "lnurl-auth" } })).toBe(1);
  });
});

describe("the dev wallet route without the dev node", () => {
  const off = useApiContext({ LIGHTNING_DEV_NODE: "false" });
  it("is not found", async () => {
    const { k1 } = await createLoginChallenge({ prisma: off.test().db.prisma, apiUrl });
    const res = await devSignRoute(
      new Request(`${apiUrl}/dev/lnurl-auth`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ k1 }) }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(404);
  });
});
