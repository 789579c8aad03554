// GET /api/demo/*: the built-in demo origin behind the demo tenant's gateway (verifies signatures).
import { readBoundedBody } from "@/lib/api/read-bounded-body.ts";
import { answerDemoOrigin } from "@/lib/demo/origin.ts";
import { toErrorResponse } from "@/lib/errors/index.ts";
import { demoTenant } from "@/lib/demo/seed-demo.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { readOriginSecrets } from "@/lib/tenants/secrets.ts";

export const dynamic = "force-dynamic";

/** What the gateway forwards at most (spec 8: 1 MB); the demo route is reachable directly too, so it counts. */
const MAX_DEMO_BODY_BYTES = 1024 * 1024;

async function handle(request: Request) {
  const ctx = await getServerContext();
  const tenant = await ctx.db.prisma.tenant.findUnique({ where: { slug: demoTenant.slug } });
  // The path as the gateway signed it (still percent-encoded): Next's decoded params would not verify.
  const url = new URL(request.url);
  const path = url.pathname.slice("/api/demo".length) || "/";
  let rawBody: string;
  try {
    rawBody = (await readBoundedBody(request, MAX_DEMO_BODY_BYTES)).toString("utf8");
  } catch (err) {
    const { status, body } = toErrorResponse(err);
    return Response.json(body, { status, headers: { "cache-control": "no-store" } });
  }
  const result = await answerDemoOrigin(
    { method: request.method, path, search: url.search, headers: request.headers, rawBody },
    { secrets: tenant ? readOriginSecrets(ctx.config.appSecret, tenant) : null, store: ctx.store },
  );
  if ("body" in result) return Response.json(result.body, { status: result.status, headers: { "cache-control": "no-store" } });
  const frames = result.events(request.signal);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await frames.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await frames.return(undefined);
    },
  });
  // no-transform: nothing between here and the client may compress (and so buffer) the stream.
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
  });
}

export { handle as GET, handle as POST };
