// GET /api/demo/*: the built-in demo origin behind the demo tenant's gateway (verifies signatures).
import { answerDemoOrigin } from "@/lib/demo/origin.ts";
import { demoTenant } from "@/lib/demo/seed-demo.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { readOriginSecrets } from "@/lib/tenants/secrets.ts";

export const dynamic = "force-dynamic";

async function handle(request: Request, { params }: { params: Promise<{ path: string[] }> }) {
  const ctx = await getServerContext();
  const tenant = await ctx.db.prisma.tenant.findUnique({ where: { slug: demoTenant.slug } });
  const { path } = await params;
  const result = await answerDemoOrigin(
    { method: request.method, path: `/${path.join("/")}`, headers: request.headers, rawBody: await request.text() },
    { secrets: tenant ? readOriginSecrets(ctx.config.appSecret, tenant) : null, store: ctx.store },
  );
  return Response.json(result.body, { status: result.status, headers: { "cache-control": "no-store" } });
}

export { handle as GET, handle as POST };
