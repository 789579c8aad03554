// JSON for people: examples on API pages read like hand-written docs, with short arrays and
// objects kept on one line ([57.7, 11.96]) instead of one number per line. Output is valid JSON.

/** Lines longer than this (including indentation) are broken up. */
const maxLineWidth = 72;

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => inline(item ?? null)).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    return `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(", ")} }`;
  }
  return JSON.stringify(value) ?? "null";
}

function pretty(value: unknown, indent: string, keyWidth: number, topLevel: boolean): string {
  const flat = inline(value);
  const isContainer = value !== null && typeof value === "object";
  const nonEmpty = isContainer && Object.keys(value as object).length > 0;
  if (!isContainer || !nonEmpty || (!topLevel && indent.length + keyWidth + flat.length <= maxLineWidth)) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => `${inner}${pretty(item ?? null, inner, 0, false)}`).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const lines = entries.map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return `${inner}${key}${pretty(v, inner, key.length, false)}`;
  });
  return `{\n${lines.join(",\n")}\n${indent}}`;
}

/**
 * Formats a JSON value for reading: a non-empty top-level object or array is always expanded,
 * nested values stay on one line while they fit in 72 columns. A string is returned as it is
 * (it already is the body text).
 */
export function prettyJson(value: unknown): string {
  if (typeof value === "string") return value;
  return pretty(value, "", 0, true);
}
