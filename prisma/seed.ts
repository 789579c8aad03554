// `npm run db:seed`: creates the demo tenant in the configured database (idempotent).
import { getConfig } from "@/lib/config/index.ts";
import { openDatabase, databaseOptionsFrom } from "@/lib/db/client.ts";
import { seedDemoTenant } from "@/lib/demo/seed-demo.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";

const config = getConfig();
const db = await openDatabase(databaseOptionsFrom(config));
try {
  const created = await seedDemoTenant({ prisma: db.prisma, config, devNode: new DevLightningNode({ prisma: db.prisma, appSecret: config.appSecret }) });
  console.log(created ? "Seeded the demo tenant (slug: demo)." : "The demo tenant already exists.");
} finally {
  await db.close();
}
