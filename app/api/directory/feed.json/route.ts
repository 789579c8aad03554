// GET /api/directory/feed.json: JSON Feed 1.1 of newly listed APIs, with the `_hub` extension.
import { withDirectoryApi } from "@/lib/api/directory-route.ts";
import { buildDirectoryFeed, jsonFeedContentType } from "@/lib/directory/feed.ts";

export const dynamic = "force-dynamic";

// GET /api/directory/feed.json: application/feed+json, newest listings first.
export const GET = withDirectoryApi("/directory/feed.json", async ({ ctx }) => {
  const feed = await buildDirectoryFeed({ prisma: ctx.db.prisma, config: ctx.config });
  return new Response(JSON.stringify(feed, null, 2), {
    headers: { "content-type": jsonFeedContentType, "cache-control": "public, max-age=300" },
  });
});
