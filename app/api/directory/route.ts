// GET /api/directory: the public directory list (spec 4.3) with search, tag, page, limit and sort.
import { withDirectoryApi } from "@/lib/api/directory-route.ts";
import { listDirectory } from "@/lib/directory/list-directory.ts";
import { directoryListSchema, parseDirectoryQueryStrict } from "@/lib/directory/schemas.ts";
import { AppError } from "@/lib/errors/index.ts";

export const dynamic = "force-dynamic";

// GET /api/directory: listed APIs; 400 naming every out-of-range or repeated parameter.
export const GET = withDirectoryApi("/directory", async ({ req, ctx }) => {
  const parsed = parseDirectoryQueryStrict(new URL(req.url).searchParams);
  if (!parsed.ok) {
    const summary = parsed.problems.map((p) => `${p.field}: ${p.message}`).join("; ");
    throw new AppError("bad_request", `Invalid query: ${summary}`, { fields: parsed.problems });
  }
  const result = await listDirectory({ prisma: ctx.db.prisma, config: ctx.config, ...parsed.query });
  return Response.json(directoryListSchema.parse(result), { headers: { "cache-control": "public, max-age=30" } });
});
