// Prisma CLI configuration. The CLI is used only for `prisma generate`; migrations are
// generated and applied offline by our own scripts (see docs/development.md).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
