// /api/tenants/:tenantId/wallet as the dashboard uses it: the last invoice issued through the
// wallet, the capacity monitor's verdict, disconnection (owners only) and the gateway being told.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { DELETE, GET, PUT } from "@/app/api/tenants/[tenantId]/wallet/route.ts";
import { getSignedInUserId } from "@/lib/auth/next-auth.ts";
import { configChangedChannel } from "@/lib/tenants/config-events.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

vi.mock("@/lib/auth/next-auth.ts", () => ({ getSignedInUserId: vi.fn(async () => null) }));

const api = useApiContext();
const COOKIE = { cookie: "authjs.session-token=opaque" };
let tenantId: string;
let key: string;
beforeEach(async () => {
  vi.mocked(getSignedInUserId).mockReset();
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});
const path = () => `/tenants/${tenantId}/wallet`;
const get = () => call(GET, { method: "GET", path: path(), params: { tenantId }, token: key });
const connect = () => call(PUT, { method: "PUT", path: path(), params: { tenantId }, token: key, body: { type: "dev" } });

describe("wallet state", () => {
  it("reports the newest invoice the gateway issued since the connection", async () => {
    const { prisma } = api.test().db;
    const connected = await connect();
    const connectedAt = new Date(connected.body.connectedAt);
    expect((await get()).body.lastInvoiceAt).toBe(connected.body.lastInvoiceAt);
    const invoice = (createdAt: Date, n: number) => ({
      tenantId,
      paymentHash: String(n).repeat(64).slice(0, 64),
      paymentRequest: `lnbcrt${n}`,
      amountSats: 10,
      purpose: "per_request" as const,
      expiresAt: new Date(createdAt.getTime() + 600_000),
      createdAt,
    });
    // An invoice from before this connection (an earlier wallet) does not count; a later one does.
    await prisma.invoice.create({ data: invoice(new Date(connectedAt.getTime() - 60_000), 1) });
    expect((await get()).body.lastInvoiceAt).toBe(connected.body.lastInvoiceAt);
    const later = new Date(connectedAt.getTime() + 90_000);
    await prisma.invoice.create({ data: invoice(later, 2) });
    expect((await get()).body.lastInvoiceAt).toBe(later.toISOString());
  });

  it("shows the capacity monitor's verdict once it has checked, and forgets it on reconnection", async () => {
    const { prisma } = api.test().db;
    await connect();
    expect((await get()).body.capacity).toBeNull();
    const checkedAt = new Date("2026-11-21T10:00:00.000Z");
    await prisma.wallet.update({ where: { tenantId }, data: { capacityStatus: "degraded", capacityReason: "receiving_low", capacityCheckedAt: checkedAt } });
    expect((await get()).body.capacity).toEqual({ status: "degraded", reason: "receiving_low", checkedAt: checkedAt.toISOString() });
    expect((await connect()).body.capacity).toBeNull();
    expect((await get()).body.capacity).toBeNull();
  });
});

describe("DELETE /api/tenants/:tenantId/wallet", () => {
  it("disconnects the wallet and tells the gateways; a second call is 404", async () => {
    const { prisma } = api.test().db;
    await connect();
    const published: string[] = [];
    const unsubscribe = await api.server().store.subscribe(configChangedChannel, (message) => published.push(message));
    try {
      const res = await call(DELETE, { method: "DELETE", path: path(), params: { tenantId }, token: key });
      expect(res.status).toBe(204);
      expect(await prisma.wallet.count({ where: { tenantId } })).toBe(0);
      await vi.waitFor(() => expect(published.map((m) => JSON.parse(m).tenantId)).toContain(tenantId));
    } finally {
      await unsubscribe();
    }
    expect((await get()).status).toBe(404);
    expect((await call(DELETE, { method: "DELETE", path: path(), params: { tenantId }, token: key })).status).toBe(404);
  });

  it("is for owners: a member gets 403 and the wallet stays; a non-member gets 404", async () => {
    const { prisma } = api.test().db;
    await connect();
    const member = await prisma.user.create({ data: { email: "member@example.com" } });
    await prisma.membership.create({ data: { tenantId, userId: member.id, role: "member" } });
    vi.mocked(getSignedInUserId).mockResolvedValue(member.id);
    const asMember = await call(DELETE, { method: "DELETE", path: path(), params: { tenantId }, headers: COOKIE });
    expect(asMember.status).toBe(403);
    // Members still see the state (GET is for every member).
    expect((await call(GET, { method: "GET", path: path(), params: { tenantId }, headers: COOKIE })).status).toBe(200);

    const other = await prisma.user.create({ data: { email: "other@example.com" } });
    vi.mocked(getSignedInUserId).mockResolvedValue(other.id);
    expect((await call(DELETE, { method: "DELETE", path: path(), params: { tenantId }, headers: COOKIE })).status).toBe(404);
    expect(await prisma.wallet.count({ where: { tenantId } })).toBe(1);
  });
});
