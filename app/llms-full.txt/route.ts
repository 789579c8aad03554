// GET /llms-full.txt: every listed API with every endpoint, price, parameters and example.
import { streamLlmsFull } from "@/lib/directory/llms-txt.ts";
import { getServerContext } from "@/lib/server-context.ts";

export const dynamic = "force-dynamic";

// GET /llms-full.txt: streamed markdown, so thousands of APIs never sit in memory at once.
export async function GET(): Promise<Response> {
  const { config, db } = await getServerContext();
  const chunks = streamLlmsFull({ prisma: db.prisma, config });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(body, { headers: { "content-type": "text/markdown; charset=utf-8", "cache-control": "public, max-age=3600" } });
}
