// The model speaks camelCase, the API snake_case (examples/market-intelligence/endpoint.ts): snapshot
// payloads are stored already in the API's shape, so a history answer returns them as recorded.

/** camelCase keys only: names such as a macro series' `DXY` stay as they are. */
const snake = (key: string) => (/^[a-z]/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/([a-z])(\d)/g, "$1_$2") : key);

/** Instants by name (`time`, `first_seen`, `next_funding_time`, `ended_at`, `expiry`): epoch ms in the model, ISO 8601 in the API. */
const isInstant = (key: string) => key === "time" || key === "expiry" || /_(time|seen|at)$/.test(key);

/**
 * A deep copy in the API's shape: every camelCase key in snake_case (`volume24h` → `volume_24h`,
 * `atmIv` → `atm_iv`) and every instant as an ISO 8601 string, like the history's own times.
 */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        const key = snake(k);
        return [key, isInstant(key) && typeof v === "number" && Number.isFinite(v) ? new Date(v).toISOString() : snakeCaseKeys(v)];
      }),
    );
  return value;
}
