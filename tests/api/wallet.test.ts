// /api/tenants/:tenantId/wallet: connect the dev wallet (test invoice first), read it back.
import { beforeEach, describe, expect, it } from "vitest";
import { GET, PUT } from "../../app/api/tenants/[tenantId]/wallet/route.ts";
import { openSecret } from "../../lib/crypto/secret-box.ts";
import { registerServerContext } from "../../lib/server-context.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
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
    expect(res.body).toEqual({ type: "dev", nodePubkey: api.server().devNode!.nodePubkey, connectedAt: expect.any(String), lastInvoiceAt: expect.any(String) });
    expect(res.body.nodePubkey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(await prisma.devNodeInvoice.count()).toBe(1);
    const row = await prisma.wallet.findUniqueOrThrow({ where: { tenantId } });
    expect(openSecret(api.test().config.appSecret, row.credentialsEnc)).toBe("{}");
    expect((await get()).body).toEqual(res.body);
    // Reconnecting replaces the row rather than adding one.
    expect((await put({ type: "dev" })).status).toBe(200);
    expect(await prisma.wallet.count()).toBe(1);
  });

  it("refuses types that are not supported yet, listing the supported ones", async () => {
    const res = await put({ type: "lnd" });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/not supported yet; supported types: dev/);
    expect(res.body.error.details.fields[0].field).toBe("type");
    expect((await put({ type: "bank" })).body.error.details.fields[0].field).toBe("type");
    expect(await api.test().db.prisma.wallet.count()).toBe(0);
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
