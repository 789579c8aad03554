// The soak's webhook receiver: HTTPS on loopback with a self-signed certificate (the workers trust it
// through NODE_EXTRA_CA_CERTS), counting every delivery by event id. It can go down for a while and
// come back on the same port, as a customer's endpoint does.
import { readFileSync } from "node:fs";
import type http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { writeSelfSignedCertificate } from "@/scripts/self-signed-certificate.ts";

/** One event as the receiver saw it: the envelope's id and event name, and how many times it came. */
export type ReceivedEvent = { id: string; event: string; data: Record<string, unknown>; deliveries: number };

export type SoakReceiver = {
  url: string;
  /** PEM file of the certificate, for NODE_EXTRA_CA_CERTS. */
  certFile: string;
  events: Map<string, ReceivedEvent>;
  up: boolean;
  /**
   * While set, each delivery is counted on arrival and answered only once this is cleared: the
   * sender is caught mid-delivery (the worker-kill fault). `heldFrom` lists the senders' local ports.
   */
  holding: boolean;
  heldFrom(): number[];
  release(): void;
  stop(): Promise<void>;
  start(): Promise<void>;
};

/** Starts the receiver on a free port; `stop()` / `start()` take it down and back on that port. */
export async function startSoakReceiver(dir: string): Promise<SoakReceiver> {
  const { certFile, keyFile } = writeSelfSignedCertificate(dir, { commonName: "localhost", altNames: ["DNS:localhost", "IP:127.0.0.1"] });
  const options = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
  const events = new Map<string, ReceivedEvent>();
  let port = 0;
  let server: https.Server | null = null;
  const held = new Map<http.ServerResponse, number>();

  const listen = async () => {
    server = https.createServer(options, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string; event: string; data: Record<string, unknown> };
          const seen = events.get(body.id);
          if (seen) seen.deliveries += 1;
          else events.set(body.id, { id: body.id, event: body.event, data: body.data, deliveries: 1 });
          if (receiver.holding) {
            held.set(res, req.socket.remotePort ?? 0);
            res.on("close", () => held.delete(res));
          } else res.writeHead(200).end("ok");
        } catch {
          res.writeHead(400).end("unreadable");
        }
      });
    });
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    port = (server!.address() as AddressInfo).port;
  };
  await listen();

  const receiver: SoakReceiver = {
    url: `https://127.0.0.1:${port}/hooks`,
    certFile,
    events,
    up: true,
    holding: false,
    heldFrom: () => [...held.values()],
    release() {
      receiver.holding = false;
      for (const res of held.keys()) if (!res.writableEnded && !res.destroyed) res.writeHead(200).end("ok");
      held.clear();
    },
    async stop() {
      const s = server;
      receiver.up = false;
      receiver.release();
      if (!s) return;
      server = null;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async start() {
      if (server) return;
      await listen();
      receiver.up = true;
    },
  };
  return receiver;
}
