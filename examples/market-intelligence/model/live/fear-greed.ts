// alternative.me's Fear & Greed Index (`/fng/?limit=N`): `data[]` newest first, each with string
// `value`, `value_classification` and `timestamp` (epoch seconds), `metadata.error` on failure.
import type { FearGreed } from "../types.ts";
import { asArray, asNumber, asObject } from "./decode.ts";
import { UpstreamProtocolError, type UpstreamClient } from "./upstream-client.ts";

/** The index is published once a day; ten minutes keeps a day's calls to a handful of requests. */
export const FEAR_GREED_TTL_MS = 600_000;
const CLASSES: ReadonlyArray<FearGreed["classification"]> = ["Extreme Fear", "Fear", "Neutral", "Greed", "Extreme Greed"];

/** The last `days` daily readings, oldest first. */
export async function fetchFearGreed(client: UpstreamClient, days: number): Promise<FearGreed[]> {
  const limit = Math.max(1, Math.min(3650, Math.floor(days)));
  return client.get(
    "/fng/",
    { limit },
    {
      ttlMs: FEAR_GREED_TTL_MS,
      decode: (answer) => {
        const body = asObject(answer.body, "fng answer");
        const error = body.metadata && typeof body.metadata === "object" ? (body.metadata as { error?: unknown }).error : null;
        if (error || answer.status >= 400) throw new UpstreamProtocolError(`error: ${String(error ?? `HTTP ${answer.status}`)}`);
        return asArray(body.data, "data")
          .map((value, index): FearGreed => {
            const row = asObject(value, `data[${index}]`);
            const classification = String(row.value_classification) as FearGreed["classification"];
            if (!CLASSES.includes(classification)) throw new UpstreamProtocolError(`unknown value_classification "${classification}"`);
            return { time: asNumber(row.timestamp, "timestamp") * 1000, value: asNumber(row.value, "value"), classification };
          })
          .sort((a, b) => a.time - b.time);
      },
    },
  );
}
