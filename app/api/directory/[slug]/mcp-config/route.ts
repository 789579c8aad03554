// GET /api/directory/:slug/mcp-config: a ready-to-paste MCP client config for one listed API.
import { withDirectoryApi } from "@/lib/api/directory-route.ts";
import { loadListedDocumentedApi } from "@/lib/directory/discovery.ts";
import { buildMcpConfig } from "@/lib/directory/mcp-config.ts";
import { AppError } from "@/lib/errors/index.ts";

export const dynamic = "force-dynamic";

// GET /api/directory/:slug/mcp-config: {mcpServers, tools, metadata} (spec 2.4); 404 when not listed.
export const GET = withDirectoryApi("/directory/:slug/mcp-config", async ({ ctx, params }) => {
  const api = await loadListedDocumentedApi({ prisma: ctx.db.prisma, config: ctx.config, slug: params.slug ?? "" });
  if (!api) throw new AppError("not_found", `No listed API named "${params.slug}"`);
  return Response.json(buildMcpConfig({ config: ctx.config, api }), { headers: { "cache-control": "public, max-age=60" } });
});
