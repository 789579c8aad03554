// `npm run bench:webhooks`: webhook delivery throughput on loopback through the real pipeline
// (outbox -> fan-out -> claim with SKIP LOCKED + lease -> signed HTTPS POST -> outcome recorded).
//   A: healthy HTTPS receivers only: deliveries per second.
//   B: the same plus one receiver that accepts the connection and never answers: the healthy
//      receivers' rate must hold (the hanging one may hold only its per-subscription share of slots).
// A and B alternate (ABABAB) and the medians are compared, so load from other processes on the
// machine falls on both alike.
// The receivers run in a child process (they are other people's servers, not ours to share a CPU
// with). Database: PostgreSQL at DATABASE_URL (default the local service, a scratch database is
// created and dropped), or the embedded PGlite with BENCH_DB=pglite. Bounded: each segment stops
// after BENCH_SECONDS (default 4) or when every delivery is done; the whole run takes under a minute.
import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { startHttpsReceiver, selfSignedCertificate } from "@/tests/webhooks/https-receiver.ts";

const self = fileURLToPath(import.meta.url);

if (process.argv.includes("--receivers")) {
  // Child: N healthy receivers and one that hangs; reports how many requests each healthy one got.
  const count = Number(process.env.BENCH_RECEIVERS ?? 4);
  const healthy = await Promise.all(Array.from({ length: count }, () => startHttpsReceiver()));
  const hanging = await startHttpsReceiver();
  hanging.answer(() => "hang");
  process.send!({ ready: true, urls: healthy.map((r) => r.url()), hangingUrl: hanging.url(), cert: selfSignedCertificate().cert });
  const report = () => process.send!({ received: healthy.reduce((sum, r) => sum + r.received.length, 0), hanging: hanging.received.length });
  setInterval(report, 50).unref();
  process.on("message", (msg: { reset?: boolean }) => {
    if (msg.reset) {
      for (const r of [...healthy, hanging]) r.received.length = 0;
      report();
    }
  });
  process.on("disconnect", () => process.exit(0));
} else {
  await main();
}

async function main() {
  if (process.env.BENCH_DB === "pglite") delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
  const { createTestContext } = await import("@/tests/helpers/context.ts");
  const { WebhookSender } = await import("@/lib/webhooks/deliver.ts");
  const { dispatchOutbox } = await import("@/lib/webhooks/dispatch-outbox.ts");
  const { createWebhook } = await import("@/lib/webhooks/create-webhook.ts");
  const { eventExamples } = await import("@/lib/events/catalogue.ts");
  const { tenantFactory } = await import("@/prisma/factories.ts");

  const seconds = Number(process.env.BENCH_SECONDS ?? 4);
  const pairs = Number(process.env.BENCH_PAIRS ?? 3);
  const eventsPerRun = Number(process.env.BENCH_EVENTS ?? 1000);
  const concurrency = Number(process.env.WEBHOOK_CONCURRENCY ?? 32);
  const perSubscription = Number(process.env.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION ?? 4);

  const ctx = await createTestContext({ LOG_LEVEL: "error" });
  const prisma = ctx.db.prisma;
  const policy = { resolver: async () => [{ address: "127.0.0.1", family: 4 }], allowedTargets: ["127.0.0.0/8"] };

  const child: ChildProcess = fork(self, ["--receivers"], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let counts = { received: 0, hanging: 0 };
  // The receivers' self-signed certificate is the one CA the sender trusts.
  const ready = await new Promise<{ urls: string[]; hangingUrl: string; cert: string }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`receivers exited with ${code}`)));
    child.on("message", (msg: { ready?: boolean; urls: string[]; hangingUrl: string; cert: string; received?: number; hanging?: number }) => {
      if (msg.ready) resolve(msg);
      else counts = { received: msg.received ?? 0, hanging: msg.hanging ?? 0 };
    });
  });

  type RunResult = { name: string; delivered: number; expected: number; seconds: number; rate: number; hangingAttempts: number };

  /** Queues events for a fresh tenant subscribed by the given receivers, then delivers until done or out of time. */
  async function run(name: string, urls: string[], withHanging: boolean): Promise<RunResult> {
    await ctx.reset();
    child.send({ reset: true });
    await new Promise((resolve) => setTimeout(resolve, 120));
    const { tenantId } = await tenantFactory(prisma, ctx.config.appSecret);
    for (const url of [...urls, ...(withHanging ? [ready.hangingUrl] : [])]) {
      await createWebhook({ prisma, appSecret: ctx.config.appSecret, policy, tenantId, input: { url, events: ["*"] } });
    }
    // Events in bulk: the producers' one-row inserts are not what is measured here.
    const data = eventExamples["invoice.settled"];
    for (let i = 0; i < eventsPerRun; i += 500) {
      await prisma.outboxEvent.createMany({
        data: Array.from({ length: Math.min(500, eventsPerRun - i) }, () => ({ tenantId, type: "invoice.settled", data })),
      });
    }
    await dispatchOutbox({ prisma, maxBatches: 1000 });
    const expected = eventsPerRun * urls.length;

    const sender = new WebhookSender({ prisma, appSecret: ctx.config.appSecret, policy, ca: ready.cert, maxInFlight: concurrency, perSubscription });
    const started = performance.now();
    const deadline = started + seconds * 1000;
    // What the worker's job does every second; the sender also re-pumps as attempts finish.
    while (counts.received < expected && performance.now() < deadline) {
      await sender.pump();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const elapsed = (performance.now() - started) / 1000;
    const result = { name, delivered: counts.received, expected, seconds: elapsed, rate: counts.received / elapsed, hangingAttempts: counts.hanging };
    await sender.close({ abandon: true });
    return result;
  }

  const dbLabel = ctx.db.kind === "postgres" ? "PostgreSQL" : "PGlite (embedded)";
  console.log(
    `webhook delivery benchmark: ${dbLabel}, ${ready.urls.length} healthy HTTPS receivers (child process), ${eventsPerRun} events per segment, ` +
      `concurrency ${concurrency} (${perSubscription} per subscription), ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}, ` +
      `${pairs} x (A, B) segments of at most ${seconds} s\n`,
  );
  await run("warm-up", ready.urls.slice(0, 1), false);
  const a: RunResult[] = [];
  const b: RunResult[] = [];
  for (let i = 0; i < pairs; i += 1) {
    a.push(await run("A healthy receivers only", ready.urls, false));
    b.push(await run("B healthy + 1 hanging receiver", ready.urls, true));
  }
  for (const r of a.flatMap((x, i) => [x, b[i]])) {
    const hangingNote = r.name.startsWith("B") ? ` (hanging receiver: ${r.hangingAttempts} requests open, none answered)` : "";
    console.log(
      `${r.name.padEnd(32)} ${String(r.delivered).padStart(5)}/${r.expected} in ${r.seconds.toFixed(2)} s = ${r.rate.toFixed(0).padStart(4)} deliveries/s${hangingNote}`,
    );
  }
  const median = (xs: RunResult[]) => [...xs.map((x) => x.rate)].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
  const [rateA, rateB] = [median(a), median(b)];
  console.log(
    `\nmedian A (healthy only): ${rateA.toFixed(0)} deliveries/s; median B (with a hanging receiver): ${rateB.toFixed(0)} deliveries/s; B/A = ${((rateB / rateA) * 100).toFixed(0)}%`,
  );
  const ok = rateA >= 200 && rateB >= 200 && rateB / rateA >= 0.8;
  console.log(
    ok
      ? "PASS: >= 200 deliveries/s, and the hanging receiver does not lower the others' rate"
      : "FAIL: below 200 deliveries/s, or the hanging receiver lowered the others' rate by more than 20%",
  );
  child.disconnect();
  child.kill();
  await ctx.close();
  process.exit(ok ? 0 : 1);
}
