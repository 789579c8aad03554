// GET /api/tenants/slug-availability?slug=: whether a workspace slug is valid and free (signed-in users).
import { withSignedInUser } from "@/lib/api/handler.ts";
import { validationError } from "@/lib/errors/index.ts";
import { checkSlugAvailability } from "@/lib/workspaces/check-slug.ts";
import { slugAvailabilityQuerySchema, slugAvailabilitySchema } from "@/lib/workspaces/schemas.ts";

export const GET = withSignedInUser(async ({ ctx, req }) => {
  const query = slugAvailabilityQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!query.success) throw validationError(query.error);
  const result = await checkSlugAvailability({ prisma: ctx.db.prisma, slug: query.data.slug });
  return Response.json(slugAvailabilitySchema.parse(result));
});
