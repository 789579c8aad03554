// Structured one-line JSON logs to stdout/stderr; the level comes from LOG_LEVEL.

export type Logger = {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
};

const order = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof order;

/** A logger writing JSON lines at or above `level`; `silent` drops everything (tests). */
export function createLogger(level: Level | "silent" = "info", base: Record<string, unknown> = {}): Logger {
  const write = (at: Level, message: string, fields?: Record<string, unknown>) => {
    if (level === "silent" || order[at] < order[level]) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: at, msg: message, ...base, ...fields }, (_k, v) =>
      v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v,
    );
    (at === "error" || at === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }),
  };
}
