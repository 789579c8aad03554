// How the dashboard writes billing instants: a UTC day, as cycles and due dates are counted in UTC.

const day = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const dayAndTime = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" });

/** "26 Nov 2026" (UTC). */
export function formatUtcDay(at: string | Date): string {
  return day.format(new Date(at));
}

/** "26 Nov 2026, 14:00 UTC". */
export function formatUtcDayAndTime(at: string | Date): string {
  return `${dayAndTime.format(new Date(at))} UTC`;
}
