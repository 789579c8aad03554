// Oversized request bodies on the platform API (issue 23, finding 12): the JSON body reader used to
// read the whole body (`req.text()`) and only then compare it with its 1 MB limit, so a chunked
// or falsely announced body cost its full size in memory and time before the 413. The reader must
// stop as the bytes arrive. The route handler is called the way Next calls it, with a streamed
// body that counts how much of it was pulled.
import { describe, expect, it } from "vitest";
import { POST as demoOrigin } from "@/app/api/demo/[...path]/route.ts";
import { POST } from "@/app/api/l402/settlement/route.ts";
import { MAX_JSON_BODY_BYTES } from "@/lib/api/handler.ts";
import { useApiContext } from "@/tests/api/helpers.ts";

useApiContext();

const CHUNK_BYTES = 64 * 1024;

/** A request body of `total` bytes produced chunk by chunk, counting what the server pulled. */
function streamedBody(total: number, fill = " ") {
  const counter = { pulled: 0 };
  const chunk = new TextEncoder().encode(fill.repeat(CHUNK_BYTES));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const size = Math.min(CHUNK_BYTES, total - counter.pulled);
      if (size <= 0) return controller.close();
      counter.pulled += size;
      controller.enqueue(size === CHUNK_BYTES ? chunk : chunk.slice(0, size));
    },
  });
  return { stream, counter };
}

async function post(body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) {
  const req = new Request("http://127.0.0.1:3000/api/l402/settlement", {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-client-ip": "192.0.2.10", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
  const res = await POST(req, { params: Promise.resolve({}) });
  return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
}

/** At most the limit plus what was already in flight when the reader stopped. */
const BOUND = MAX_JSON_BODY_BYTES + 2 * CHUNK_BYTES;

describe("the platform API's JSON body limit", () => {
  it("refuses a chunked 10 MB body with 413 after reading about 1 MB of it", async () => {
    const { stream, counter } = streamedBody(10 * 1024 * 1024);
    const res = await post(stream);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: "payload_too_large", message: expect.stringContaining(`${MAX_JSON_BODY_BYTES} bytes`) });
    expect(counter.pulled).toBeLessThanOrEqual(BOUND);
  });

  it("does not trust a Content-Length that understates the body", async () => {
    const { stream, counter } = streamedBody(3 * 1024 * 1024);
    const res = await post(stream, { "content-length": "20" });
    expect(res.status).toBe(413);
    expect(counter.pulled).toBeLessThanOrEqual(BOUND);
  });

  it("refuses a body announced above the limit before reading any of it", async () => {
    const { stream, counter } = streamedBody(2 * 1024 * 1024);
    const res = await post(stream, { "content-length": String(2 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(counter.pulled).toBeLessThanOrEqual(CHUNK_BYTES);
  });

  it("reads a body of exactly the limit (the limit is inclusive)", async () => {
    const json = '{"macaroon":"AgEEbHNhdAJCAAA="}';
    const res = await post(json + " ".repeat(MAX_JSON_BODY_BYTES - json.length));
    // Read and parsed: the macaroon is refused (401), not the size.
    expect(res.status).toBe(401);
  });

  it("names a multi-byte body's size in bytes, not characters", async () => {
    // 400,000 three-byte characters: 1.2 MB in UTF-8, fewer characters than the limit.
    const res = await post(`{"macaroon":"${"€".repeat(400_000)}"}`);
    expect(res.status).toBe(413);
  });

  it("bounds the demo origin's body the same way (it is reachable without the gateway)", async () => {
    const { stream, counter } = streamedBody(5 * 1024 * 1024);
    const req = new Request("http://127.0.0.1:3000/api/demo/v1/fortune", { method: "POST", body: stream, duplex: "half" } as RequestInit);
    const res = await demoOrigin(req);
    expect(res.status).toBe(413);
    expect(counter.pulled).toBeLessThanOrEqual(1024 * 1024 + 2 * CHUNK_BYTES);
  });
});
