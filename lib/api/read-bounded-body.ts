// Reads a request body while counting its bytes as they arrive, and stops at the limit: a chunked
// body, or one whose Content-Length understates it, costs at most the limit (plus the chunk in
// flight) before the 413, never its full size. A Content-Length above the limit is refused before
// any byte is read.
import { AppError } from "@/lib/errors/index.ts";

/** The 413 every bounded reader answers, naming the limit. */
export function bodyTooLarge(maxBytes: number): AppError {
  return new AppError("payload_too_large", `Request body exceeds ${maxBytes} bytes`, { limitBytes: maxBytes });
}

/** The body's bytes, at most `maxBytes` of them; AppError payload_too_large (413) beyond. */
export async function readBoundedBody(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    await req.body?.cancel().catch(() => {});
    throw bodyTooLarge(maxBytes);
  }
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Stop pulling: the rest of the body is never read (the connection's remainder is discarded).
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
