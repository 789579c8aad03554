// POST /api/external-listings: submit a self-hosted L402 gateway for the directory (spec 4.4).
import { withPublicLimit } from "@/lib/api/handler.ts";
import { requestClientIp } from "@/lib/directory/rate-limit.ts";
import { listingSubmitSchema, listingSubmittedSchema } from "@/lib/listings/schemas.ts";
import { countListingSubmission } from "@/lib/listings/submission-rate-limit.ts";
import { submitListing } from "@/lib/listings/submit-listing.ts";
import { targetPolicyFor } from "@/lib/origin/ssrf.ts";

// POST /api/external-listings: unauthenticated, LISTING_SUBMISSIONS_PER_HOUR per client IP; 202 while the review runs.
export const POST = withPublicLimit(
  (req, ctx) => countListingSubmission({ store: ctx.store, ip: requestClientIp(req.headers), perHour: ctx.config.listingSubmissionsPerHour }),
  async ({ ctx, body }) => {
    const submitted = await submitListing({ prisma: ctx.db.prisma, policy: targetPolicyFor(ctx.config), apiUrl: ctx.config.apiUrl, input: body });
    return Response.json(listingSubmittedSchema.parse(submitted), { status: 202 });
  },
  { body: listingSubmitSchema },
);
