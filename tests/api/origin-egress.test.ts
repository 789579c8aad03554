// Origins are user-given URLs the platform calls: with ORIGIN_ALLOW_PRIVATE off (production), a
// private or reserved target is refused when saved (422 naming originUrl).
import { beforeEach, describe, expect, it } from "vitest";
import { PATCH } from "@/app/api/tenants/[tenantId]/route.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext({ ORIGIN_ALLOW_PRIVATE: "false" });
let tenantId: string;
let key: string;

beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});

const setOrigin = (originUrl: string) => call(PATCH, { method: "PATCH", path: `/tenants/${tenantId}`, params: { tenantId }, token: key, body: { originUrl } });

describe("origin URL egress rules", () => {
  it.each([
    ["loopback", "http://127.0.0.1:8080"],
    ["loopback by name", "http://localhost:3000/api"],
    ["private network", "http://10.1.2.3"],
    ["link-local metadata", "http://169.254.169.254/latest/meta-data"],
    ["IPv6 loopback", "http://[::1]:8080"],
    ["numeric trick", "http://2130706433/"],
    ["credentials", "https://user:pw@93.184.216.34/"],
  ])("refuses a %s origin and keeps the old one", async (_label, url) => {
    const res = await setOrigin(url);
    expect(res.status, url).toBe(422);
    expect(res.body.error.details.fields[0].field).toBe("originUrl");
    expect((await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).originUrl).toBeNull();
  });

  it("accepts a public address", async () => {
    const res = await setOrigin("https://93.184.216.34/api");
    expect(res.status).toBe(200);
    expect(res.body.originUrl).toBe("https://93.184.216.34/api");
  });
});
