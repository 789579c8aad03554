// The overview checklist follows the workspace's real state step by step, ending "listed" when the
// directory's own rule (database triggers) lists the workspace.
import { describe, expect, it } from "vitest";
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import { getOnboardingState, onboardingSteps } from "@/lib/workspaces/onboarding.ts";
import { seedTenant, useApiContext } from "@/tests/api/helpers.ts";

const api = useApiContext();

describe("onboarding checklist", () => {
  it("ticks origin, wallet, endpoint and listing as they happen", async () => {
    const t = api.test();
    const { prisma } = t.db;
    const { tenantId } = await seedTenant(t);
    const done = async () =>
      onboardingSteps(await getOnboardingState({ prisma, tenantId }))
        .filter((s) => s.done)
        .map((s) => s.id);
    expect(await done()).toEqual([]);
    await prisma.tenant.update({ where: { id: tenantId }, data: { originUrl: "https://api.example.com" } });
    expect(await done()).toEqual(["origin"]);
    await prisma.wallet.create({ data: { tenantId, type: "dev", credentialsEnc: sealSecret(t.config.appSecret, "{}") } });
    expect(await done()).toEqual(["origin", "wallet"]);
    // An inactive endpoint does not count.
    const endpoint = await prisma.endpoint.create({ data: { tenantId, method: "GET", path: "/v1/x", isActive: false } });
    expect(await done()).toEqual(["origin", "wallet"]);
    await prisma.endpoint.update({ where: { id: endpoint.id }, data: { isActive: true } });
    expect(await done()).toEqual(["origin", "wallet", "endpoint", "listed"]);
    await prisma.tenant.update({ where: { id: tenantId }, data: { listed: false } });
    expect(await done()).toEqual(["origin", "wallet", "endpoint"]);
  });

  it("keeps the steps in the order a provider takes them", () => {
    const steps = onboardingSteps({ originSet: false, walletConnected: true, hasActiveEndpoint: false, listed: false });
    expect(steps.map((s) => [s.id, s.done])).toEqual([
      ["origin", false],
      ["wallet", true],
      ["endpoint", false],
      ["listed", false],
    ]);
  });
});
