// POST /api/external-listings (spec 4.4): checks that the slug is free in the one namespace the
// directory shares with hosted workspaces, that the gateway URL passes the webhooks' SSRF rules
// (https, no credentials, every resolved address public unless WEBHOOK_ALLOWED_TARGETS allows it),
// and stores the listing as `pending`, due for review at once (the worker's listing-reviews job).
import type { PrismaClient } from "@/lib/db/client.ts";
import { isUniqueViolation } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { checkTargetUrl, type TargetPolicy } from "@/lib/origin/ssrf.ts";
import { RESERVED_SLUGS } from "@/lib/tenants/schemas.ts";
import type { ListingSubmission } from "./schemas.ts";
import { toListingStatusView, type ListingStatusRow } from "./listing-status.ts";

export type SubmitListingOptions = {
  prisma: PrismaClient;
  /** The webhooks' target policy (targetPolicyFor(config)): the same rules and allow-list. */
  policy: TargetPolicy;
  /** `{api_url}`, for the status URL in the answer. */
  apiUrl: string;
  input: ListingSubmission;
};

function slugTaken(slug: string, why: string): AppError {
  return new AppError("conflict", `The slug "${slug}" ${why}; choose another`, { field: "slug" });
}

/** Stores a valid submission as a pending listing; 409 when the slug is taken or reserved, 422 for a refused gateway URL. */
export async function submitListing({ prisma, policy, apiUrl, input }: SubmitListingOptions) {
  if (RESERVED_SLUGS.has(input.slug)) throw slugTaken(input.slug, "is reserved by the platform");
  const tenant = await prisma.tenant.findUnique({ where: { slug: input.slug }, select: { id: true } });
  if (tenant) throw slugTaken(input.slug, "is taken by a hosted API");
  const listing = await prisma.externalListing.findUnique({ where: { slug: input.slug }, select: { id: true } });
  if (listing) throw slugTaken(input.slug, "is taken by another listing");

  const problem = await checkTargetUrl(input.gatewayUrl, policy, { requireHttps: true });
  if (problem) {
    throw new AppError("validation_failed", `Invalid request: gatewayUrl: ${problem.message} (rule ${problem.rule})`, {
      fields: [{ field: "gatewayUrl", message: problem.message, rule: problem.rule }],
    });
  }

  let row: ListingStatusRow;
  try {
    row = await prisma.externalListing.create({
      data: {
        slug: input.slug,
        name: input.name,
        description: input.description,
        tags: input.tags,
        gatewayUrl: input.gatewayUrl,
        contactEmail: input.contactEmail,
        // [] (a submission lists at least one): discover them from the gateway at review time.
        endpoints: input.endpoints ?? [],
        status: "pending",
      },
    });
  } catch (err) {
    // Two submissions of one slug at once: the unique index decides, the loser gets the same 409.
    if (isUniqueViolation(err)) throw slugTaken(input.slug, "is taken by another listing");
    throw err;
  }
  return { ...toListingStatusView(row), statusUrl: `${apiUrl}/external-listings/${row.slug}/status` };
}
