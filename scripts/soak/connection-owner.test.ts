// The soak's mid-delivery fault finds the worker by the sending port of a connection it holds.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { holdsLocalPort } from "./connection-owner.ts";

describe.runIf(process.platform === "linux")("holdsLocalPort", () => {
  it("finds this process's side of a TCP connection by its local port, and not a port nobody holds", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    await new Promise((resolve) => client.once("connect", resolve));
    const serverSide = await accepted;
    try {
      expect(holdsLocalPort(process.pid, client.localPort!)).toBe(true);
      // The parent of this test process holds no such connection.
      expect(holdsLocalPort(process.ppid, client.localPort!)).toBe(false);
    } finally {
      client.destroy();
      serverSide.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
