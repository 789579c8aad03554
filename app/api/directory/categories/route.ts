// GET /api/directory/categories: every tag of the listed APIs with how many carry it (spec 2.4).
import { withDirectoryApi } from "@/lib/api/directory-route.ts";
import { listDirectoryTags } from "@/lib/directory/list-tags.ts";
import { directoryCategoriesSchema } from "@/lib/directory/schemas.ts";

export const dynamic = "force-dynamic";

// GET /api/directory/categories: {categories: [{tag, count}], total}, most used first.
export const GET = withDirectoryApi("/directory/categories", async ({ ctx }) => {
  const categories = await listDirectoryTags({ prisma: ctx.db.prisma });
  return Response.json(directoryCategoriesSchema.parse({ categories, total: categories.length }), {
    headers: { "cache-control": "public, max-age=60" },
  });
});
