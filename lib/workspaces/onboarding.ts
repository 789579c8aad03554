// The overview's onboarding checklist, computed from the workspace's real state: origin set,
// wallet connected, a first active endpoint, and listed in the public directory.
import type { PrismaClient } from "@/lib/db/client.ts";

export type OnboardingStepId = "origin" | "wallet" | "endpoint" | "listed";

export type OnboardingStep = { id: OnboardingStepId; title: string; hint: string; done: boolean };

export type OnboardingState = { originSet: boolean; walletConnected: boolean; hasActiveEndpoint: boolean; listed: boolean };

/** Reads the four facts in one round trip. */
export async function getOnboardingState({ prisma, tenantId }: { prisma: PrismaClient; tenantId: string }): Promise<OnboardingState> {
  const tenant = await prisma.tenant.findUniqueOrThrow({
    where: { id: tenantId },
    select: { originUrl: true, directoryListed: true, wallet: { select: { id: true } }, _count: { select: { endpoints: { where: { isActive: true } } } } },
  });
  return {
    originSet: Boolean(tenant.originUrl),
    walletConnected: Boolean(tenant.wallet),
    hasActiveEndpoint: tenant._count.endpoints > 0,
    listed: tenant.directoryListed,
  };
}

/** The steps in the order a provider takes them (pure). */
export function onboardingSteps(state: OnboardingState): OnboardingStep[] {
  return [
    { id: "origin", title: "Set your origin", hint: "Where the gateway forwards paid requests, and the secrets your origin checks.", done: state.originSet },
    { id: "wallet", title: "Connect a wallet", hint: "Payments go straight to your own Lightning wallet.", done: state.walletConnected },
    { id: "endpoint", title: "Publish a first endpoint", hint: "A method, a path and a price.", done: state.hasActiveEndpoint },
    {
      id: "listed",
      title: "Appear in the directory",
      hint: "Listed automatically once the workspace has an origin, a wallet and an active endpoint, unless you opt out.",
      done: state.listed,
    },
  ];
}
