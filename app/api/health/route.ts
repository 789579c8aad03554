// GET /api/health: liveness of the web app and its dependencies, for load balancers and uptime checks.
import packageJson from "@/package.json";
import { getServerContext, type ServerContext } from "@/lib/server-context.ts";

export const dynamic = "force-dynamic";

/** A check slower than this counts as down: a health endpoint must answer quickly. */
const checkTimeoutMs = 2_000;

/** "unchecked" when a check could not run because the server context itself is unavailable. */
type PartStatus = "ok" | "error" | "unchecked";

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${checkTimeoutMs} ms`)), checkTimeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function check(part: string, run: () => Promise<unknown>): Promise<PartStatus> {
  try {
    return (await withTimeout(run())) === false ? "error" : "ok";
  } catch (err) {
    console.error(`health: ${part} check failed`, err);
    return "error";
  }
}

export async function GET(): Promise<Response> {
  let ctx: ServerContext | null = null;
  try {
    ctx = await withTimeout(getServerContext());
  } catch (err) {
    // Opening the context means opening the database (and reading the configuration).
    console.error("health: server context unavailable", err);
  }
  const [database, store]: PartStatus[] = ctx
    ? await Promise.all([check("database", () => ctx.db.prisma.$queryRaw`SELECT 1`), check("store", () => ctx.store.ping())])
    : ["error", "unchecked"];
  const failing = [database === "ok" ? null : "database", store === "error" ? "store" : null].filter(Boolean);
  const ok = failing.length === 0 && store === "ok";
  // Without the store (Redis) the app serves on with per-process rate limits (lib/store/degrading.ts):
  // it stays in the balancer, reporting the degradation; only a missing database takes it out.
  const serving = database === "ok";
  return Response.json(
    {
      status: ok ? "ok" : serving ? "degraded" : "error",
      database,
      store,
      version: packageJson.version,
      ...(ok ? {} : { error: `${failing.join(" and ")} unavailable` }),
    },
    { status: serving ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
