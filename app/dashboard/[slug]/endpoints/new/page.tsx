// /dashboard/<slug>/endpoints/new: the endpoint form, empty (a free GET until a model is chosen).
import type { Metadata } from "next";
import Link from "next/link";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { EndpointForm } from "@/app/dashboard/[slug]/endpoints/endpoint-form.tsx";

export const metadata: Metadata = { title: "New endpoint" };

export default async function NewEndpointPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant } = await requireWorkspace(slug);
  return (
    <div className="flex flex-col gap-6">
      <header>
        <Link href={`/dashboard/${tenant.slug}/endpoints`} className="text-sm text-muted hover:underline">
          ← Endpoints
        </Link>
        <h1 className="mt-1 text-2xl font-semibold tracking-tight">New endpoint</h1>
      </header>
      <EndpointForm tenantId={tenant.id} slug={tenant.slug} gatewayUrl={gatewayUrlFor(ctx.config, tenant.slug)} endpoint={null} />
    </div>
  );
}
