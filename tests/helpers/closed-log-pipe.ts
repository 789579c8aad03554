// Runs one part of the hub (server.ts --only=<role>) as its own process whose stdout and stderr
// reader goes away once it is ready, then makes requests that log, then stops it with SIGTERM:
// what a process left behind by a dead log shipper or a closed terminal lives through (issue 24 item 5).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export interface ClosedLogPipeRun {
  /** Status of each request made after the pipes closed, or the error that request met. */
  answers: Array<number | string>;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

const root = path.resolve(import.meta.dirname, "../..");

export async function runWithClosedLogPipe(options: {
  role: "web" | "gateway";
  port: number;
  /** Requests (paths on `port`) made after the pipes closed; each one makes the process log. */
  paths: string[];
  env?: Record<string, string>;
}): Promise<ClosedLogPipeRun> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "closed-log-pipe-"));
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts", `--only=${options.role}`], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(options.port),
      GATEWAY_PORT: String(options.port),
      HOSTED_EXAMPLES: "none",
      SEED_DEMO: "false",
      LOG_LEVEL: "info",
      ...options.env,
    },
  });
  try {
    const ready = options.role === "web" ? "web app listening" : "gateway listening";
    let seen = "";
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`server.ts --only=${options.role} exited (${code}) before it was ready:\n${seen}`)));
      child.stdout.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes(ready)) resolve();
      });
      child.stderr.on("data", (chunk: Buffer) => (seen += chunk.toString()));
    });
    // The reader goes away: our ends of both pipes close, so every later write meets EPIPE.
    child.stdout.destroy();
    child.stderr.destroy();
    const answers: ClosedLogPipeRun["answers"] = [];
    for (const pathname of options.paths) {
      try {
        const response = await fetch(`http://127.0.0.1:${options.port}${pathname}`, { signal: AbortSignal.timeout(20_000) });
        await response.arrayBuffer();
        answers.push(response.status);
      } catch (err) {
        answers.push(err instanceof Error ? err.message : String(err));
      }
    }
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const [exitCode, signal] = await exited;
    clearTimeout(timer);
    return { answers, exitCode, signal };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await rm(dataDir, { recursive: true, force: true });
  }
}
