// When a hosted tenant appears in the public directory, written once in both query languages we
// use (a Prisma filter and a SQL fragment). tests/directory/listing-rules.test.ts holds both to it.
import { Prisma } from "../db/client.ts";

/**
 * A tenant is listed when it is active (not suspended or inactive), has not opted out
 * (listed=true), can be paid (has a wallet) and has at least one active endpoint to call.
 */
export const listedTenantWhere = {
  status: "active",
  listed: true,
  wallet: { isNot: null },
  endpoints: { some: { isActive: true } },
} satisfies Prisma.TenantWhereInput;

/** The same rule as listedTenantWhere, for raw queries aliasing "Tenant" as `t`. */
export const listedTenantSql = Prisma.sql`t."status" = 'active'
  AND t."listed" = true
  AND EXISTS (SELECT 1 FROM "Wallet" w WHERE w."tenantId" = t."id")
  AND EXISTS (SELECT 1 FROM "Endpoint" le WHERE le."tenantId" = t."id" AND le."isActive" = true)`;
