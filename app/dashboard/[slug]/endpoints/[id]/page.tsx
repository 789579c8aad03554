// /dashboard/<slug>/endpoints/<id>: edit or delete one endpoint (404 for another workspace's id).
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { getEndpoint } from "@/lib/endpoints/get-endpoint.ts";
import { endpointResponseSchema } from "@/lib/endpoints/schemas.ts";
import { AppError } from "@/lib/errors/index.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { EndpointForm } from "@/app/dashboard/[slug]/endpoints/endpoint-form.tsx";

export const metadata: Metadata = { title: "Edit endpoint" };

export default async function EditEndpointPage({ params }: { params: Promise<{ slug: string; id: string }> }) {
  const { slug, id } = await params;
  const { ctx, tenant } = await requireWorkspace(slug);
  let row;
  try {
    row = await getEndpoint({ prisma: ctx.db.prisma, tenantId: tenant.id, endpointId: id });
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  }
  const endpoint = endpointResponseSchema.parse(row);
  return (
    <div className="flex flex-col gap-6">
      <header>
        <Link href={`/dashboard/${tenant.slug}/endpoints`} className="text-sm text-muted hover:underline">
          ← Endpoints
        </Link>
        <h1 className="mt-1 flex flex-wrap items-center gap-2 text-2xl font-semibold tracking-tight">
          <span className="font-mono text-xl break-all">
            {endpoint.method} {endpoint.path}
          </span>
        </h1>
        {endpoint.title ? <p className="mt-1 text-sm text-muted">{endpoint.title}</p> : null}
      </header>
      <EndpointForm key={endpoint.updatedAt} tenantId={tenant.id} slug={tenant.slug} gatewayUrl={gatewayUrlFor(ctx.config, tenant.slug)} endpoint={endpoint} />
    </div>
  );
}
