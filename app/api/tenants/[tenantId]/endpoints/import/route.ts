// POST /api/tenants/:tenantId/endpoints/import: create endpoints from an OpenAPI 3.x document.
import { withWorkspace } from "@/lib/api/handler.ts";
import { importOpenApi, importQuerySchema, importResponseSchema, openApiImportSchema } from "@/lib/endpoints/import-openapi.ts";

// POST /api/tenants/:tenantId/endpoints/import: all operations or none; 422 names failing operations, 409 duplicates
// (with ?existing=skip, existing ones are left alone and listed in `skipped`).
export const POST = withWorkspace(
  async ({ ctx, tenantId, body, req }) => {
    const skipExisting = importQuerySchema.parse(Object.fromEntries(new URL(req.url).searchParams)).existing === "skip";
    const { created, skipped } = await importOpenApi({ prisma: ctx.db.prisma, store: ctx.store, tenantId, document: body, skipExisting });
    return Response.json(importResponseSchema.parse({ endpoints: created, skipped }), { status: 201 });
  },
  { body: openApiImportSchema },
);
