// GET /api/external-listings/:slug/status: a listing's status, and the review's findings once decided (spec 2.5).
import { withErrors } from "@/lib/api/handler.ts";
import { getListingStatus } from "@/lib/listings/listing-status.ts";
import { listingStatusSchema } from "@/lib/listings/schemas.ts";

// GET /api/external-listings/:slug/status: public, no credentials (the submitter polls it after POST).
export const GET = withErrors(async ({ ctx, params }) => {
  const view = await getListingStatus({ prisma: ctx.db.prisma, slug: params.slug ?? "" });
  return Response.json(listingStatusSchema.parse(view));
});
