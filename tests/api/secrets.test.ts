// GET /api/tenants/:tenantId/secrets and POST .../secrets/rotate
import { beforeEach, describe, expect, it } from "vitest";
import { POST as rotate } from "@/app/api/tenants/[tenantId]/secrets/rotate/route.ts";
import { GET as read } from "@/app/api/tenants/[tenantId]/secrets/route.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;
beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});
const get = () => call(read, { method: "GET", path: `/tenants/${tenantId}/secrets`, params: { tenantId }, token: key });
const post = () => call(rotate, { method: "POST", path: `/tenants/${tenantId}/secrets/rotate`, params: { tenantId }, token: key });

describe("origin secrets", () => {
  it("reads the decrypted pair, stored encrypted", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ gatewaySecret: expect.stringMatching(/^gws_/), hmacSecret: expect.stringMatching(/^hmac_/) });
    const row = await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } });
    expect(row.gatewaySecretEnc).not.toContain(res.body.gatewaySecret);
    expect(row.hmacSecretEnc).not.toContain(res.body.hmacSecret);
  });

  it("rotates: new pair, the old one kept as previous until now + grace hours", async () => {
    const before = (await get()).body;
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.body.gatewaySecret).not.toBe(before.gatewaySecret);
    expect(res.body.hmacSecret).not.toBe(before.hmacSecret);
    expect(res.body.previous).toMatchObject({ gatewaySecret: before.gatewaySecret, hmacSecret: before.hmacSecret });
    const expected = Date.now() + api.test().config.secretRotationGraceHours * 3_600_000;
    expect(api.test().config.secretRotationGraceHours).toBe(24);
    expect(Math.abs(new Date(res.body.previous.validUntil).getTime() - expected)).toBeLessThan(10_000);
    expect((await get()).body).toEqual(res.body);
  });

  it("a second rotation replaces the previous pair with the one it retires", async () => {
    const first = (await post()).body;
    const second = (await post()).body;
    expect(second.previous).toMatchObject({ gatewaySecret: first.gatewaySecret, hmacSecret: first.hmacSecret });
  });
});
