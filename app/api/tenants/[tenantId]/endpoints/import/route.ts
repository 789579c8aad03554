// POST /api/tenants/:tenantId/endpoints/import: create endpoints from an OpenAPI 3.x document.
import { withWorkspace } from "../../../../../../lib/api/handler.ts";
import { importOpenApi, openApiImportSchema } from "../../../../../../lib/endpoints/import-openapi.ts";
import { endpointListResponseSchema } from "../../../../../../lib/endpoints/schemas.ts";

// POST /api/tenants/:tenantId/endpoints/import: all operations or none; 422 names failing operations, 409 duplicates.
export const POST = withWorkspace(
  async ({ ctx, tenantId, body }) => {
    const endpoints = await importOpenApi({ prisma: ctx.db.prisma, store: ctx.store, tenantId, document: body });
    return Response.json(endpointListResponseSchema.parse({ endpoints }), { status: 201 });
  },
  { body: openApiImportSchema },
);
