// Issue 24 item 5, on the production build: the web part (Next's router-server logs uncaught errors
// with console.error) once its stdout/stderr reader has gone away. Unguarded it went on answering
// but never exited on SIGTERM; lib/logging/safe-stdio.ts makes it shut down cleanly.
import { expect, test } from "@playwright/test";
import { freePort } from "@/tests/helpers/free-port.ts";
import { runWithClosedLogPipe } from "@/tests/helpers/closed-log-pipe.ts";

test("a web process whose log reader went away keeps serving and stops on SIGTERM", async ({ browserName: _browserName }, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "a process test: one browser project is enough");
  test.setTimeout(120_000);
  const run = await runWithClosedLogPipe({
    role: "web",
    port: await freePort(),
    // A malformed path makes Next log an error; the health route answers after it.
    paths: ["/directory/%ZZ", "/api/health", "/api/health"],
  });
  expect(run.answers.slice(1)).toEqual([200, 200]);
  expect({ exitCode: run.exitCode, signal: run.signal }).toEqual({ exitCode: 0, signal: null });
});
