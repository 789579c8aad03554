// GET /api/directory/:slug: one listed API in full (spec 2.4 detail view).
import { withDirectoryApi } from "@/lib/api/directory-route.ts";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { directoryDetailSchema } from "@/lib/directory/schemas.ts";
import { AppError } from "@/lib/errors/index.ts";

export const dynamic = "force-dynamic";

// GET /api/directory/:slug: the detail view with walletPubkey and isExternal; 404 when not listed.
export const GET = withDirectoryApi("/directory/:slug", async ({ ctx, params }) => {
  const entry = await getDirectoryEntry({ prisma: ctx.db.prisma, config: ctx.config, slug: params.slug ?? "" });
  if (!entry) throw new AppError("not_found", `No listed API named "${params.slug}"`);
  return Response.json(directoryDetailSchema.parse(entry), { headers: { "cache-control": "public, max-age=30" } });
});
