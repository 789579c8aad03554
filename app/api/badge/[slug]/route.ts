// GET /api/badge/:slug.svg: an embeddable shields.io-style badge with price and health (spec 4.3).
import { withDirectoryApi } from "@/lib/api/directory-route.ts";
import { badgeQuerySchema, renderBadge } from "@/lib/directory/badge.ts";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { AppError, validationError } from "@/lib/errors/index.ts";

export const dynamic = "force-dynamic";

// GET /api/badge/:slug.svg: the API's badge; an unlisted slug gets a grey "not listed" badge with 404.
export const GET = withDirectoryApi("/badge/:slug", async ({ req, ctx, params }) => {
  const name = params.slug ?? "";
  if (!name.endsWith(".svg")) throw new AppError("not_found", "Badges live at /api/badge/<slug>.svg");
  const parsed = badgeQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) throw new AppError("bad_request", validationError(parsed.error).message.replace("Invalid request", "Invalid query"));
  const entry = await getDirectoryEntry({ prisma: ctx.db.prisma, config: ctx.config, slug: name.slice(0, -".svg".length) });
  return new Response(renderBadge(entry, parsed.data), {
    status: entry ? 200 : 404,
    // Health changes every few minutes; README renderers cache images on their side anyway.
    headers: { "content-type": "image/svg+xml; charset=utf-8", "cache-control": "public, max-age=300" },
  });
});
