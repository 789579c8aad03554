// /api/tenants/:tenantId/wallet: connect the dev wallet (test invoice first), read it back.
import { beforeEach, describe, expect, it } from "vitest";
import { GET, PUT } from "@/app/api/tenants/[tenantId]/wallet/route.ts";
import { openSecret } from "@/lib/crypto/secret-box.ts";
import { FakeLnbits } from "@/tests/fakes/lightning/lnbits.ts";
import { FakeLnd, LND_RECOMMENDED_PERMISSIONS } from "@/tests/fakes/lightning/lnd.ts";
import { LOOPBACK_WALLET_TARGETS } from "@/tests/fakes/lightning/loopback-policy.ts";
import { registerServerContext } from "@/lib/server-context.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

// The wallet fakes listen on loopback: allowed here as a self-hoster would (tests/security/wallet-ssrf.test.ts covers the refusal).
const api = useApiContext({ WALLET_ALLOWED_TARGETS: LOOPBACK_WALLET_TARGETS });
let tenantId: string;
let key: string;
beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});
const put = (body: unknown) => call(PUT, { method: "PUT", path: `/tenants/${tenantId}/wallet`, params: { tenantId }, token: key, body });
const get = () => call(GET, { method: "GET", path: `/tenants/${tenantId}/wallet`, params: { tenantId }, token: key });

describe("wallet", () => {
  it("is 404 before a wallet is connected", async () => {
    expect((await get()).status).toBe(404);
  });

  it("connects the dev wallet after creating a test invoice", async () => {
    const { prisma } = api.test().db;
    const res = await put({ type: "dev" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      type: "dev",
      label: "Dev Lightning node (regtest, built in)",
      host: null,
      nodePubkey: api.server().devNode!.nodePubkey,
      connectedAt: expect.any(String),
      lastInvoiceAt: expect.any(String),
      capacity: null,
    });
    expect(res.body.nodePubkey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(await prisma.devNodeInvoice.count()).toBe(1);
    const row = await prisma.wallet.findUniqueOrThrow({ where: { tenantId } });
    expect(openSecret(api.test().config.appSecret, row.credentialsEnc)).toBe("{}");
    expect((await get()).body).toEqual(res.body);
    // Reconnecting replaces the row rather than adding one.
    expect((await put({ type: "dev" })).status).toBe(200);
    expect(await prisma.wallet.count()).toBe(1);
  });

  it("names the missing credentials of each type and unknown types", async () => {
    const lnd = await put({ type: "lnd" });
    expect(lnd.status).toBe(422);
    expect(lnd.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(expect.arrayContaining(["restUrl", "macaroonHex"]));
    expect((await put({ type: "nwc", connectionUri: "nostr+walletconnect://nope" })).status).toBe(422);
    expect((await put({ type: "lnbits", url: "http://10.0.0.5", invoiceKey: "k" })).body.error.message).toMatch(/url/);
    expect((await put({ type: "bank" })).status).toBe(422);
    expect(await api.test().db.prisma.wallet.count()).toBe(0);
  });

  it("connects LND REST and LNbits after a test invoice, storing the credentials sealed", async () => {
    const lnd = await FakeLnd.start();
    const lnbits = await FakeLnbits.start();
    try {
      const macaroonHex = lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS);
      const res = await put({ type: "lnd", restUrl: lnd.url, macaroonHex });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ type: "lnd", nodePubkey: lnd.node.nodePubkey, label: expect.stringContaining("LND at 127.0.0.1") });
      expect(JSON.stringify(res.body)).not.toContain(macaroonHex);
      const row = await api.test().db.prisma.wallet.findUniqueOrThrow({ where: { tenantId } });
      expect(row.credentialsEnc).not.toContain(macaroonHex);
      expect(JSON.parse(openSecret(api.test().config.appSecret, row.credentialsEnc))).toMatchObject({ restUrl: lnd.url, macaroonHex });
      expect((await get()).body).toMatchObject({ type: "lnd", host: expect.stringMatching(/^127\.0\.0\.1:/) });

      expect((await put({ type: "lnbits", url: lnbits.url, invoiceKey: lnbits.invoiceKey })).body).toMatchObject({ type: "lnbits" });
      const refused = await put({ type: "lnbits", url: lnbits.url, invoiceKey: "0".repeat(32) });
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body.error.details.walletError, JSON.stringify(refused.body)).toBe("unauthorized");
      expect((await get()).body.type).toBe("lnbits");
    } finally {
      await lnd.close();
      await lnbits.close();
    }
  });

  it("refuses the dev wallet with a clear 422 when the dev node is off", async () => {
    const server = api.server();
    registerServerContext({ ...server, devNode: null });
    try {
      const res = await put({ type: "dev" });
      expect(res.status).toBe(422);
      expect(res.body.error.message).toMatch(/dev Lightning node is off/);
      expect(await api.test().db.prisma.wallet.count()).toBe(0);
    } finally {
      registerServerContext(server);
    }
  });
});
