// GET|PATCH|DELETE /api/tenants/:tenantId/endpoints/:endpointId: read, update or delete an endpoint.
import { withWorkspace } from "@/lib/api/handler.ts";
import { deleteEndpoint } from "@/lib/endpoints/delete-endpoint.ts";
import { getEndpoint } from "@/lib/endpoints/get-endpoint.ts";
import { endpointResponseSchema, endpointUpdateSchema } from "@/lib/endpoints/schemas.ts";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint.ts";

// GET /api/tenants/:tenantId/endpoints/:endpointId: one endpoint.
export const GET = withWorkspace(async ({ ctx, tenantId, params }) => {
  const endpoint = await getEndpoint({ prisma: ctx.db.prisma, tenantId, endpointId: params.endpointId });
  return Response.json(endpointResponseSchema.parse(endpoint));
});

// PATCH /api/tenants/:tenantId/endpoints/:endpointId: change fields; the merged result is validated.
export const PATCH = withWorkspace(
  async ({ ctx, tenantId, params, body }) => {
    const endpoint = await updateEndpoint({ prisma: ctx.db.prisma, store: ctx.store, tenantId, endpointId: params.endpointId, patch: body });
    return Response.json(endpointResponseSchema.parse(endpoint));
  },
  { body: endpointUpdateSchema },
);

// DELETE /api/tenants/:tenantId/endpoints/:endpointId: delete (409 while paid sessions are live).
export const DELETE = withWorkspace(async ({ ctx, tenantId, params }) => {
  await deleteEndpoint({ prisma: ctx.db.prisma, store: ctx.store, tenantId, endpointId: params.endpointId });
  return new Response(null, { status: 204 });
});
