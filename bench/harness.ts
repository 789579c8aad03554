// What bench/gateway.ts and bench/gateway-ab.ts share: the process under test (bench/gateway-target.ts)
// started in its own process, one autocannon run, and the median of a series.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

export const repoRoot = path.resolve(import.meta.dirname, "..");

/** What the target prints once it listens. */
export type Ready = { originPort: number; proxyPort: number; gatewayPort: number; controlPort: number; slug: string; streamSlug: string; store: string };
export type Target = { ready: Ready; pid: number; proofs: string[]; sessions: { bucket: string[]; pass: string }; stop: () => Promise<void> };

export type TargetOptions = {
  /** Pre-paid proofs to mint (0: none, and no selling history either). */
  proofs: number;
  /** Session tokens for the token_bucket endpoint: one per load-generator connection. */
  sessions: number;
  /** The SSE origin of the streaming endpoint. */
  sseOrigin: string;
  /** The checkout to run the target from (default this one). */
  dir?: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
};

/** Starts bench/gateway-target.ts in its own process and waits until it listens. */
export async function startTarget(options: TargetOptions): Promise<Target> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "hub-bench-"));
  const proofsFile = path.join(scratch, "proofs.json");
  const sessionsFile = path.join(scratch, "sessions.json");
  const child = spawn(process.execPath, ["--expose-gc", ...(options.nodeArgs ?? []), "--import", "tsx", "bench/gateway-target.ts"], {
    cwd: options.dir ?? repoRoot,
    env: {
      ...process.env,
      ...options.env,
      BENCH_PROOFS: String(options.proofs),
      BENCH_PROOFS_FILE: proofsFile,
      BENCH_SESSIONS_FILE: sessionsFile,
      BENCH_SSE_ORIGIN: options.sseOrigin,
      BENCH_SESSIONS: String(options.sessions),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`target exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line)));
  });
  return {
    ready,
    pid: child.pid!,
    proofs: JSON.parse(readFileSync(proofsFile, "utf8")),
    sessions: JSON.parse(readFileSync(sessionsFile, "utf8")),
    stop: async () => {
      child.removeAllListeners("exit");
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

export type LoadResult = { name: string; rps: number; requests: number; credentialsUsed: number; p50: number; p99: number; errors: number; non2xx: number };

export type LoadOptions = {
  connections: number;
  duration: number;
  /** A different value of one header on each request, round robin. */
  credentials?: { header: string; values: string[] };
  /** Requests per second in all (default: as fast as the server answers). */
  rate?: number;
};

/** One autocannon run. */
export async function runLoad(name: string, url: string, options: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const credentials = options.credentials;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    overallRate: options.rate,
    requests: credentials
      ? [
          {
            setupRequest: (req: autocannon.Request) => ({
              ...req,
              headers: { ...req.headers, [credentials.header]: credentials.values[next++ % credentials.values.length] },
            }),
          },
        ]
      : undefined,
  });
  if (credentials?.header === "authorization" && next > credentials.values.length) {
    console.warn(`  note: ${next} requests used ${credentials.values.length} proofs (some were reused and refused)`);
  }
  return {
    name,
    rps: result.requests.total / result.duration,
    requests: result.requests.total,
    credentialsUsed: next,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/**
 * Pre-paid proofs handed out across runs, so that none is presented twice: each run gets the ones
 * the runs before it left (all of them again once every one was used; runLoad warns then).
 */
export class ProofSupply {
  private used = 0;

  constructor(private readonly proofs: string[]) {}

  /** The Authorization values of the next run. */
  credentials(): { header: "authorization"; values: string[] } {
    return { header: "authorization", values: this.used < this.proofs.length ? this.proofs.slice(this.used) : this.proofs };
  }

  /** Counts the proofs a run presented. */
  consumed(result: LoadResult): void {
    this.used += result.credentialsUsed;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
