// GET|POST /api/tenants/:tenantId/endpoints: list or create the workspace's endpoints.
import { withWorkspace } from "@/lib/api/handler.ts";
import { createEndpoint } from "@/lib/endpoints/create-endpoint.ts";
import { listEndpoints } from "@/lib/endpoints/list-endpoints.ts";
import { endpointCreateSchema, endpointListResponseSchema, endpointResponseSchema } from "@/lib/endpoints/schemas.ts";

// GET /api/tenants/:tenantId/endpoints: every endpoint of the workspace.
export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  const endpoints = await listEndpoints({ prisma: ctx.db.prisma, tenantId });
  return Response.json(endpointListResponseSchema.parse({ endpoints }));
});

// POST /api/tenants/:tenantId/endpoints: create an endpoint (pricing rules validated).
export const POST = withWorkspace(
  async ({ ctx, tenantId, body }) => {
    const endpoint = await createEndpoint({ prisma: ctx.db.prisma, store: ctx.store, tenantId, endpoint: body });
    return Response.json(endpointResponseSchema.parse(endpoint), { status: 201 });
  },
  { body: endpointCreateSchema },
);
