// /dashboard/<slug>/origin: the origin URL with a connection test, the gateway address, and (for
// owners) the origin-protection secrets with rotation and verification snippets.
import type { Metadata } from "next";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { getOriginSecrets } from "@/lib/tenants/get-origin-secrets.ts";
import { originSecretsResponseSchema } from "@/lib/tenants/schemas.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { OriginForm } from "./origin-form.tsx";
import { SecretsPanel } from "./secrets-panel.tsx";

export const metadata: Metadata = { title: "Origin & secrets" };

export default async function OriginPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant, role } = await requireWorkspace(slug);
  const secrets =
    role === "owner"
      ? originSecretsResponseSchema.parse(await getOriginSecrets({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret, tenantId: tenant.id }))
      : null;
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Origin &amp; secrets</h1>
        <p className="mt-1 text-sm text-muted">
          The gateway forwards paid requests to your origin and signs each one, so your origin can refuse anything that did not come through the gateway.
        </p>
      </header>
      <section aria-labelledby="origin-heading" className="card flex flex-col gap-4">
        <h2 id="origin-heading" className="text-lg font-semibold">
          Origin
        </h2>
        <OriginForm tenantId={tenant.id} initialOriginUrl={tenant.originUrl} allowPrivate={ctx.config.originAllowPrivate} isOwner={role === "owner"} />
      </section>
      <section aria-labelledby="gateway-address-heading" className="flex flex-col gap-2">
        <h2 id="gateway-address-heading" className="text-lg font-semibold">
          Gateway address
        </h2>
        <p className="text-sm text-muted">Consumers call your endpoints here; the gateway adds the payment step and forwards to your origin.</p>
        <CodeBlock code={gatewayUrlFor(ctx.config, tenant.slug)} copyLabel="Copy gateway address" wrap />
      </section>
      {secrets ? (
        <SecretsPanel tenantId={tenant.id} initialSecrets={secrets} graceHours={ctx.config.secretRotationGraceHours} />
      ) : (
        <section aria-labelledby="secrets-heading" className="card">
          <h2 id="secrets-heading" className="text-lg font-semibold">
            Secrets
          </h2>
          <p className="mt-2 text-sm text-muted">Only workspace owners can see and rotate the origin secrets.</p>
        </section>
      )}
    </div>
  );
}
