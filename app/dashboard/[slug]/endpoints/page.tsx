// /dashboard/<slug>/endpoints: every endpoint with its method, path, pricing in words, status,
// health from the latest probe and cache/stream badges; links to create and edit; OpenAPI import.
import type { Metadata } from "next";
import Link from "next/link";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { latestHealthByEndpoint, type LatestProbe } from "@/lib/endpoints/latest-health.ts";
import { listEndpoints } from "@/lib/endpoints/list-endpoints.ts";
import { endpointListResponseSchema } from "@/lib/endpoints/schemas.ts";
import { describePrice, pricingModelLabel } from "@/lib/pricing/describe-price.ts";
import { EmptyState } from "@/app/components/empty-state.tsx";
import { MethodBadge } from "@/app/components/method-badge.tsx";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { ActiveToggle } from "./active-toggle.tsx";
import { ImportPanel } from "./import-panel.tsx";

export const metadata: Metadata = { title: "Endpoints" };

function Badge({ children }: { children: string }) {
  return <span className="inline-flex items-center rounded-full border border-line-strong px-2 py-0.5 text-xs font-medium text-muted">{children}</span>;
}

function Health({ probe, active }: { probe: LatestProbe | undefined; active: boolean }) {
  if (!active) return <span className="text-xs text-muted">Not probed (inactive)</span>;
  if (!probe) return <span className="text-xs text-muted">Not checked yet</span>;
  const detail = [probe.statusCode !== null ? `HTTP ${probe.statusCode}` : probe.error, probe.latencyMs !== null ? `${probe.latencyMs} ms` : null]
    .filter(Boolean)
    .join(" · ");
  return (
    <span className="inline-flex flex-col text-xs">
      <span className={`font-medium ${probe.ok ? "text-success" : "text-danger"}`}>{probe.ok ? "Up" : "Failing"}</span>
      <span className="text-muted">
        {detail} · <time dateTime={probe.checkedAt.toISOString()}>{probe.checkedAt.toUTCString().slice(5, 22)} UTC</time>
      </span>
    </span>
  );
}

export default async function EndpointsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant } = await requireWorkspace(slug);
  const rows = await listEndpoints({ prisma: ctx.db.prisma, tenantId: tenant.id });
  const { endpoints } = endpointListResponseSchema.parse({ endpoints: rows });
  const health = await latestHealthByEndpoint({ prisma: ctx.db.prisma, tenantId: tenant.id, endpointIds: endpoints.map((e) => e.id) });
  const base = `/dashboard/${tenant.slug}/endpoints`;
  return (
    <div className="flex flex-col gap-8">
      <header className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Endpoints</h1>
          <p className="mt-1 text-sm text-muted">
            What consumers can call at <span className="font-mono">{gatewayUrlFor(ctx.config, tenant.slug)}</span>, and what each call costs.
          </p>
        </div>
        <Link href={`${base}/new`} className="btn-primary">
          Add endpoint
        </Link>
      </header>
      {endpoints.length === 0 ? (
        <EmptyState
          title="No endpoints yet"
          action={
            <Link href={`${base}/new`} className="btn-primary">
              Add your first endpoint
            </Link>
          }
        >
          An endpoint is a method and path of your origin with a price. Add one by hand, or import your OpenAPI document below.
        </EmptyState>
      ) : (
        <section aria-labelledby="list-heading" className="card overflow-x-auto p-0">
          <h2 id="list-heading" className="sr-only">
            All endpoints
          </h2>
          {/* Status sits under the path and health under the price on small screens: no sideways scrolling on a phone. */}
          <table className="w-full text-sm">
            <thead className="border-b border-line text-left text-xs text-muted">
              <tr>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Endpoint
                </th>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Price
                </th>
                <th scope="col" className="hidden px-4 py-2.5 font-medium md:table-cell">
                  Health
                </th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((e) => (
                <tr key={e.id} className="border-b border-line align-top last:border-0">
                  <td className="px-4 py-3">
                    <div className="flex flex-wrap items-center gap-2">
                      <MethodBadge method={e.method} />
                      <Link href={`${base}/${e.id}`} className="font-mono font-medium break-all hover:underline" aria-label={`Edit ${e.method} ${e.path}`}>
                        {e.path}
                      </Link>
                    </div>
                    {e.title ? <p className="mt-1 text-xs text-muted">{e.title}</p> : null}
                    <div className="mt-2 flex flex-wrap gap-1">
                      <ActiveToggle
                        key={`${e.id}-${e.isActive}`}
                        tenantId={tenant.id}
                        endpointId={e.id}
                        label={`${e.method} ${e.path}`}
                        initialActive={e.isActive}
                      />
                      {e.cacheTtlSeconds ? <Badge>{`Cached ${e.cacheTtlSeconds}s`}</Badge> : null}
                      {e.streaming ? <Badge>Streaming</Badge> : null}
                      {e.freeTryEnabled ? <Badge>Free try</Badge> : null}
                    </div>
                  </td>
                  <td className="px-4 py-3">
                    <p>{describePrice(e)}</p>
                    <p className="mt-0.5 text-xs text-muted">{pricingModelLabel(e.pricingModel)}</p>
                    <div className="mt-2 md:hidden">
                      <Health probe={health.get(e.id)} active={e.isActive} />
                    </div>
                  </td>
                  <td className="hidden px-4 py-3 md:table-cell">
                    <Health probe={health.get(e.id)} active={e.isActive} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <ImportPanel tenantId={tenant.id} />
    </div>
  );
}
