// /dashboard/<slug>/api-keys: the workspace's API keys for the platform API (scripts, CI, the SDK).
import type { Metadata } from "next";
import { listApiKeys } from "@/lib/api-keys/list-api-keys.ts";
import { apiKeyListResponseSchema } from "@/lib/api-keys/schemas.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { ApiKeysPanel } from "./api-keys-panel.tsx";

export const metadata: Metadata = { title: "API keys" };

export default async function ApiKeysPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant, role } = await requireWorkspace(slug);
  const initial = apiKeyListResponseSchema.parse({ apiKeys: await listApiKeys({ prisma: ctx.db.prisma, tenantId: tenant.id }) });
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
        <p className="mt-1 text-sm text-muted">
          A key lets a script do what you do here, through the platform API: manage endpoints, pricing, webhooks and read analytics. Send it as{" "}
          <span className="font-mono">Authorization: Bearer …</span>; keep it secret, and revoke it when it leaks or is no longer needed.
        </p>
      </header>
      <ApiKeysPanel tenantId={tenant.id} apiUrl={ctx.config.apiUrl} initial={initial} isOwner={role === "owner"} />
    </div>
  );
}
