// Issue 24 item 5, on the production build: the web part (Next's router-server logs uncaught errors
// with console.error) once its stdout/stderr reader has gone away. Unguarded it went on answering
// but never exited on SIGTERM; lib/logging/safe-stdio.ts makes it shut down cleanly.
import { expect, test } from "@playwright/test";
import { freePort } from "@/tests/helpers/free-port.ts";
import { runWithClosedLogPipe } from "@/tests/helpers/closed-log-pipe.ts";

test("a web process whose log reader went away keeps serving and stops on SIGTERM", async ({ browserName: _browserName }, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "a process test: one browser project is enough");
  test.setTimeout(300_000);
  const run = await runWithClosedLogPipe({
    role: "web",
    port: await freePort(),
    // Pages and the health route answer while every log line meets a dead pipe.
    paths: ["/directory/no-such-api", "/api/health", "/api/health"],
  });
  expect(run.answers.slice(1)).toEqual([200, 200]);
  expect({ exitCode: run.exitCode, signal: run.signal }).toEqual({ exitCode: 0, signal: null });
});
