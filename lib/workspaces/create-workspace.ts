// A signed-in user creates a workspace and becomes its owner (the dashboard's path; the operator's
// POST /api/admin/tenants uses createTenant). No API key is made: the owner creates keys when needed.
import { isUniqueViolation, type PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { refuseListingSlug } from "@/lib/tenants/listing-slugs.ts";
import { newSealedSecretPair } from "@/lib/tenants/secrets.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import type { WorkspaceCreate } from "./schemas.ts";

export type CreateWorkspaceOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  appSecret: string;
  userId: string;
  input: WorkspaceCreate;
};

/** Creates the tenant with its origin secrets and the owner's membership; 409 when the slug is taken. */
export async function createWorkspace({ prisma, store, appSecret, userId, input }: CreateWorkspaceOptions) {
  await refuseListingSlug(prisma, input.slug);
  try {
    const tenant = await prisma.tenant.create({
      data: {
        slug: input.slug,
        name: input.name,
        description: input.description ?? "",
        tags: input.tags ?? [],
        ...newSealedSecretPair(appSecret),
        memberships: { create: { userId, role: "owner" } },
      },
    });
    // A gateway may have cached "no such slug" for this address.
    await publishConfigChanged({ store, tenantId: tenant.id });
    return tenant;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("conflict", `The slug "${input.slug}" is already taken`, { fields: [{ field: "slug", message: "is already taken" }] });
    }
    throw err;
  }
}
