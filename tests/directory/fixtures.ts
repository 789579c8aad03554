// Builds directory test data through the same createTenant the product uses, plus the rows a
// listed API needs (wallet, endpoints, health samples).
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/db/generated/client.ts";
import { createTenant } from "@/lib/tenants/create-tenant.ts";

export type ApiFixture = {
  slug: string;
  name?: string;
  description?: string;
  tags?: string[];
  listed?: boolean;
  status?: "active" | "inactive" | "suspended";
  wallet?: boolean;
  nodePubkey?: string | null;
  createdAt?: Date;
  endpoints?: Array<Partial<Prisma.EndpointCreateManyInput> & { path: string }>;
};

/** A listed-by-default API: active, with a dev wallet and one 1-sat GET endpoint. */
export async function createApi(prisma: PrismaClient, appSecret: string, fixture: ApiFixture): Promise<string> {
  const { tenantId } = await createTenant(prisma, appSecret, {
    slug: fixture.slug,
    name: fixture.name ?? `API ${fixture.slug}`,
    ownerEmail: `owner+${fixture.slug}@example.com`,
    description: fixture.description ?? "",
    tags: fixture.tags ?? [],
    listed: fixture.listed ?? true,
  });
  if (fixture.status || fixture.createdAt) {
    await prisma.tenant.update({
      where: { id: tenantId },
      data: { status: fixture.status, createdAt: fixture.createdAt },
    });
  }
  if (fixture.wallet ?? true) {
    await prisma.wallet.create({
      data: { tenantId, type: "dev", credentialsEnc: "sealed", nodePubkey: fixture.nodePubkey === undefined ? "02" + "ab".repeat(32) : fixture.nodePubkey },
    });
  }
  const endpoints = fixture.endpoints ?? [{ path: "/v1/thing", pricingModel: "per_request", priceSats: 1 }];
  // Distinct creation times (1 ms apart) so the display order is the fixture's order.
  const start = Date.now();
  for (const [i, endpoint] of endpoints.entries()) {
    await prisma.endpoint.create({ data: { method: "GET", createdAt: new Date(start + i), ...endpoint, tenantId } });
  }
  return tenantId;
}

/** Records a health probe result for one endpoint of a tenant. */
export async function addSample(
  prisma: PrismaClient,
  sample: { tenantId: string; path: string; ok: boolean; latencyMs?: number | null; checkedAt: Date },
): Promise<void> {
  const endpoint = await prisma.endpoint.findFirstOrThrow({ where: { tenantId: sample.tenantId, path: sample.path } });
  await prisma.healthSample.create({
    data: {
      tenantId: sample.tenantId,
      endpointId: endpoint.id,
      ok: sample.ok,
      statusCode: sample.ok ? 200 : 503,
      latencyMs: sample.latencyMs ?? null,
      checkedAt: sample.checkedAt,
    },
  });
}

export type ListingFixture = {
  slug: string;
  name?: string;
  description?: string;
  tags?: string[];
  status?: "pending" | "approved" | "rejected" | "suspended";
  gatewayUrl?: string;
  endpoints?: unknown;
  createdAt?: Date;
};

/** An external listing row (spec 2.5) as the review leaves it: approved by default. */
export async function createListing(prisma: PrismaClient, fixture: ListingFixture): Promise<string> {
  const listing = await prisma.externalListing.create({
    data: {
      slug: fixture.slug,
      name: fixture.name ?? `Listing ${fixture.slug}`,
      description: fixture.description ?? "",
      tags: fixture.tags ?? [],
      gatewayUrl: fixture.gatewayUrl ?? `https://${fixture.slug}.example.com`,
      contactEmail: `ops+${fixture.slug}@example.com`,
      endpoints: (fixture.endpoints ?? [
        { path: "/v1/quote", method: "GET", title: "Quote", description: "", pricingModel: "per_request", priceSats: 7 },
      ]) as Prisma.InputJsonValue,
      status: fixture.status ?? "approved",
      ...(fixture.createdAt ? { createdAt: fixture.createdAt } : {}),
    },
  });
  return listing.id;
}
