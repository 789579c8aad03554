// An HTTPS front for the listing review tests: terminates TLS on loopback with the tests'
// self-signed certificate (tests/webhooks/https-receiver.ts) and relays every request to our real
// gateway over HTTP, streaming both ways, as a TLS-terminating load balancer in front of a
// self-hosted L402 gateway would. A test may script the answer for some paths instead (a gateway
// that misbehaves in ways ours never does: a non-L402 402, an expired invoice). Records what it saw.
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { selfSignedCertificate } from "@/tests/webhooks/https-receiver.ts";

export type FrontRequest = { method: string; path: string; authorization: string | undefined };
/** Answers a request itself (true) or lets it through to the gateway (false). */
export type FrontScript = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

export type HttpsFront = {
  port: number;
  /** `https://<host>:<port><path>`; host 127.0.0.1 unless given (the certificate also names localhost and rebind.test). */
  url(path: string, host?: string): string;
  seen: FrontRequest[];
  script(fn: FrontScript | null): void;
  close(): Promise<void>;
};

export async function startHttpsFront(gatewayUrl: string): Promise<HttpsFront> {
  const target = new URL(gatewayUrl);
  const seen: FrontRequest[] = [];
  let script: FrontScript | null = null;
  const server = https.createServer(selfSignedCertificate(), (req, res) => {
    seen.push({ method: req.method ?? "GET", path: req.url ?? "/", authorization: req.headers.authorization });
    if (script?.(req, res)) return;
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    // The review closes a stream after its first event: pass that on to the gateway.
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path, host = "127.0.0.1") => `https://${host}:${port}${path}`,
    seen,
    script: (fn) => void (script = fn),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
