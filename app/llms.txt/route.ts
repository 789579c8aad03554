// GET /llms.txt: what the platform is, how to pay, the pricing models and the top 20 APIs (llmstxt.org).
import { listTopApis } from "@/lib/directory/top-apis.ts";
import { buildLlmsTxt, llmsTopCount } from "@/lib/directory/llms-txt.ts";
import { countListedApis } from "@/lib/directory/list-directory.ts";
import { getServerContext } from "@/lib/server-context.ts";

export const dynamic = "force-dynamic";

// GET /llms.txt: markdown for crawlers and agents, regenerated per request and cached an hour.
export async function GET(): Promise<Response> {
  const { config, db } = await getServerContext();
  const [top, total] = await Promise.all([listTopApis({ prisma: db.prisma, config, limit: llmsTopCount }), countListedApis({ prisma: db.prisma })]);
  return new Response(buildLlmsTxt({ config, top, total }), {
    headers: { "content-type": "text/markdown; charset=utf-8", "cache-control": "public, max-age=3600" },
  });
}
