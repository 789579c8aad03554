// When a hosted tenant appears in the public directory, in both query languages we use (a Prisma
// filter and a SQL fragment). tests/directory/listing-rules.test.ts holds both to the rule below.
import { Prisma } from "@/lib/db/client.ts";

/**
 * A tenant is listed when it is active (not suspended or inactive), has not opted out
 * (listed=true), can be paid (has a wallet) and has at least one active endpoint to call.
 *
 * The database decides it: triggers (migration directory_listed) keep Tenant.directoryListed equal
 * to that rule whenever the tenant's status or opt-out, its wallet or its endpoints change, so
 * every directory query filters on one indexed column instead of two joins per tenant.
 */
export const listedTenantWhere = {
  directoryListed: true,
} satisfies Prisma.TenantWhereInput;

/** The same rule as listedTenantWhere, for raw queries aliasing "Tenant" as `t`. */
export const listedTenantSql = Prisma.sql`t."directoryListed" = true`;

/**
 * An external listing (spec 2.5) is listed while its status is `approved`: pending, rejected and
 * suspended listings never appear (docs/listings-directory.md).
 */
export const listedListingWhere = { status: "approved" } satisfies Prisma.ExternalListingWhereInput;

/** The same rule as listedListingWhere, for raw queries aliasing "ExternalListing" as `t`. */
export const listedListingSql = Prisma.sql`t."status" = 'approved'`;
