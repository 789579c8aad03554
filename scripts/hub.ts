// Operator CLI for the platform API: `npm run hub -- tenant create --slug S --name N --email E`.
// Talks HTTP to a running platform (SITE_URL) with HUB_ADMIN_TOKEN, exactly like any other client.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { getConfig, type Config } from "@/lib/config/index.ts";

/** Printed by --help and after a usage error. */
export const USAGE = `Usage: npm run hub -- <command> [options]

Commands:
  tenant create --slug <slug> --name <name> --email <owner e-mail>
                [--description <text>] [--tags <a,b,c>] [--trial-days <days>]
      Creates a workspace with its owner and first API key; prints {tenantId, slug, apiKey}.
      --trial-days: free trial from the first published endpoint (default 30; 0 = none).

Environment:
  SITE_URL         platform address (default http://localhost:$PORT)
  HUB_ADMIN_TOKEN  admin token (embedded mode: read from DATA_DIR/admin-token)

Options:
  -h, --help       show this help
`;

export type HubCliIo = {
  fetch: typeof fetch;
  config: Pick<Config, "apiUrl" | "hubAdminToken">;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
};

/** Runs one CLI invocation and returns the process exit code (0 ok, 1 request failed, 2 usage). */
export async function runHubCli(argv: string[], io: HubCliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        slug: { type: "string" },
        name: { type: "string" },
        email: { type: "string" },
        description: { type: "string" },
        tags: { type: "string" },
        "trial-days": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.join(" ") !== "tenant create") {
    io.stderr(`Unknown command: ${positionals.join(" ") || "(none)"}\n\n${USAGE}`);
    return 2;
  }
  const missing = (["slug", "name", "email"] as const).filter((k) => !values[k]);
  if (missing.length) {
    io.stderr(`Missing ${missing.map((k) => `--${k}`).join(", ")}\n\n${USAGE}`);
    return 2;
  }
  if (!io.config.hubAdminToken) {
    io.stderr("HUB_ADMIN_TOKEN is not set (required in production; embedded installs keep it in DATA_DIR/admin-token)\n");
    return 1;
  }

  const body = {
    slug: values.slug,
    name: values.name,
    ownerEmail: values.email,
    ...(values.description !== undefined ? { description: values.description } : {}),
    ...(values.tags !== undefined
      ? {
          tags: values.tags
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        }
      : {}),
    // A number when it reads as one; anything else goes as given, and the route names the field.
    ...(values["trial-days"] !== undefined ? { trialDays: /^\d+$/.test(values["trial-days"]) ? Number(values["trial-days"]) : values["trial-days"] } : {}),
  };
  const url = `${io.config.apiUrl}/admin/tenants`;
  let res: Response;
  try {
    res = await io.fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${io.config.hubAdminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (err) {
    io.stderr(`Could not reach ${url}: ${(err as Error).message}\n`);
    return 1;
  }
  const text = await res.text();
  let pretty = text;
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON (a proxy error page, say): print it as received.
  }
  if (!res.ok) {
    io.stderr(`${res.status} ${res.statusText}\n${pretty}\n`);
    return 1;
  }
  io.stdout(`${pretty}\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const io: HubCliIo = {
    fetch,
    get config() {
      return getConfig();
    },
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  };
  runHubCli(process.argv.slice(2), io).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
