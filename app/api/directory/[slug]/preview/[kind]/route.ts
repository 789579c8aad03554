// GET /api/directory/:slug/preview/:kind: the API page's free chart (`chart`) or verdict card (`verdict`) of a hub-hosted API.
import { withDirectoryApi } from "@/lib/api/directory-route.ts";
import { AppError } from "@/lib/errors/index.ts";
import { loadPreview, PREVIEW_TTL_MS } from "@/lib/previews/load-preview.ts";

export const dynamic = "force-dynamic";

// The answer is the same for every visitor for PREVIEW_TTL_MS (lib/previews/load-preview.ts).
export const GET = withDirectoryApi("/directory/:slug/preview/:kind", async ({ ctx, params }) => {
  const kind = params.kind;
  if (kind !== "chart" && kind !== "verdict") throw new AppError("not_found", `No preview named "${kind}": chart or verdict`);
  const preview = await loadPreview({ prisma: ctx.db.prisma, config: ctx.config, slug: params.slug ?? "", kind });
  return Response.json(preview, { headers: { "cache-control": `public, max-age=${PREVIEW_TTL_MS / 1000}` } });
});
