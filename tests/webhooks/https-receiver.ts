// A real HTTPS webhook receiver on loopback for the tests and the benchmark: a self-signed
// certificate made with the openssl CLI, a scriptable answer per request, and a record of every
// request exactly as received (raw body bytes and headers).
import { mkdtempSync, readFileSync } from "node:fs";
import https from "node:https";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { writeSelfSignedCertificate } from "@/scripts/self-signed-certificate.ts";

/** A PEM certificate and key valid for localhost, hooks.test, 127.0.0.1 and ::1. */
export type TestCertificate = { cert: string; key: string };

let cached: TestCertificate | undefined;

/** Generates (once per process) a self-signed certificate with the openssl CLI. */
export function selfSignedCertificate(): TestCertificate {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(os.tmpdir(), "hub-webhook-cert-"));
  const { certFile, keyFile } = writeSelfSignedCertificate(dir, {
    commonName: "localhost",
    altNames: ["DNS:localhost", "DNS:hooks.test", "DNS:rebind.test", "IP:127.0.0.1", "IP:::1"],
  });
  cached = { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
  return cached;
}

/** One request as the receiver saw it. */
export type ReceivedRequest = { method: string; url: string; headers: IncomingHttpHeaders; rawBody: Buffer; receivedAt: number };

/** How to answer: a status (and headers/body), or "hang" to never answer (until the server closes). */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

/** A running receiver: where it listens, what it received, how it answers. */
export type HttpsReceiver = {
  port: number;
  /** https://127.0.0.1:<port><path> */
  url(pathname?: string): string;
  received: ReceivedRequest[];
  /** Replaces the answer function (default: 200 "ok"). */
  answer(fn: (req: ReceivedRequest, index: number) => ReceiverAnswer): void;
  close(): Promise<void>;
};

/** Starts a receiver on 127.0.0.1 with a random port, or `port` (a server coming back where it was). */
export async function startHttpsReceiver(options: { port?: number } = {}): Promise<HttpsReceiver> {
  const { cert, key } = selfSignedCertificate();
  const received: ReceivedRequest[] = [];
  let answerFn: (req: ReceivedRequest, index: number) => ReceiverAnswer = () => ({ status: 200, body: "ok" });
  const hanging = new Set<ServerResponse>();
  const server = https.createServer({ cert, key, keepAliveTimeout: 60_000 }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const record: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      received.push(record);
      const answer = answerFn(record, received.length - 1);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (pathname = "/hook") => `https://127.0.0.1:${port}${pathname}`,
    received,
    answer(fn) {
      answerFn = fn;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
