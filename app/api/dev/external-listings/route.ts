// POST /api/dev/external-listings: write an external listing in a chosen state (development features only; 404 otherwise).
import { withErrors } from "@/lib/api/handler.ts";
import { devListingSchema, seedExternalListing } from "@/lib/demo/seed-external-listing.ts";
import { AppError } from "@/lib/errors/index.ts";

export const POST = withErrors(
  async ({ ctx, body }) => {
    if (!ctx.config.devFeatures) throw new AppError("not_found", "Not found");
    return Response.json(await seedExternalListing({ prisma: ctx.db.prisma, listing: body }), { status: 201 });
  },
  { body: devListingSchema },
);
