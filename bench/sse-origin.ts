// Child process of bench/gateway.ts: the SSE origin of the stream test (bench/sse-origin-server.ts)
// in a process of its own, as a real origin is (never inside its clients' process). Prints one JSON
// line with its port once it listens.
import type { AddressInfo } from "node:net";
import { createSseOrigin } from "./sse-origin-server.ts";

const { server } = createSseOrigin();
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
process.on("SIGTERM", () => process.exit(0));
