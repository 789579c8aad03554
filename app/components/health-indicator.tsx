// An API's health in words with a coloured dot (the words carry the meaning; the dot is decoration).
import type { HealthQuality } from "@/lib/directory/schemas.ts";

/** "100%", "99.5%": one decimal only when it says something. */
export function formatUptime(uptime: number): string {
  return `${Number.isInteger(uptime) ? uptime : uptime.toFixed(1)}%`;
}

type HealthState = { tone: "up" | "down" | "unknown"; label: string };

export function healthState(quality: HealthQuality): HealthState {
  if (quality.uptimePercentage === null) return { tone: "unknown", label: "Not checked yet" };
  const uptime = `${formatUptime(quality.uptimePercentage)} uptime`;
  return quality.isHealthy ? { tone: "up", label: uptime } : { tone: "down", label: `Failing now · ${uptime}` };
}

const dotTone = {
  up: "bg-emerald-500",
  down: "bg-rose-500",
  unknown: "bg-zinc-400 dark:bg-zinc-500",
} as const;

export function HealthIndicator({ quality, className = "" }: { quality: HealthQuality; className?: string }) {
  const state = healthState(quality);
  return (
    <span className={`inline-flex items-center gap-1.5 text-xs text-muted ${className}`}>
      <span className="relative flex size-2" aria-hidden="true">
        {state.tone === "up" ? (
          <span className="absolute inline-flex size-full rounded-full bg-emerald-500/40 motion-safe:animate-ping [animation-duration:3s]" />
        ) : null}
        <span className={`relative inline-flex size-2 rounded-full ${dotTone[state.tone]}`} />
      </span>
      <span>{state.label}</span>
    </span>
  );
}
