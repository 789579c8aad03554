// The two views of the verdict (spec 2 §4.2 rule 3) and the summary's weak ETag. The ETag covers the
// published enums and the last transition only, so it stays the same from one transition to the
// next while the scalars move under it (a weak validator: the same verdict, not the same bytes).
import { createHash } from "node:crypto";
import type { Verdict, VerdictEngine, VerdictTransition } from "./engine.ts";

export type VerdictView = "full" | "summary";

/** The summary: the verdict's enums and scalars and `changed`; no evidence, no headline. */
export function summaryView(verdict: Verdict) {
  return {
    state: verdict.state,
    bias: verdict.bias,
    risk: verdict.risk,
    bias_score: verdict.bias_score,
    confidence: verdict.confidence,
    conviction: verdict.conviction,
    changed: verdict.changed,
  };
}

/** Everything: the summary plus completeness, the raw reading and what is pending, the ranked evidence and the headline. */
export function fullView(verdict: Verdict) {
  return {
    ...summaryView(verdict),
    data_completeness: verdict.data_completeness,
    risk_score: verdict.risk_score,
    reading: verdict.reading,
    pending: verdict.pending,
    evidence: verdict.evidence,
    headline: verdict.headline,
    computed_at: verdict.computed_at,
  };
}

/** `W/"…"`: a hash of the published enums and the last transition. */
export function verdictEtag(verdict: Verdict): string {
  const basis = JSON.stringify({ state: verdict.state, bias: verdict.bias, risk: verdict.risk, changed: verdict.changed });
  return `W/"${createHash("sha256").update(basis).digest("base64url").slice(0, 22)}"`;
}

/**
 * If-None-Match by weak comparison (RFC 9110 13.1.2): any listed tag whose opaque part equals the
 * current one matches, `W/` or not; `*` matches any current verdict.
 */
export function matchesIfNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.replace(/^W\//, "");
  const tags =
    [header]
      .flat()
      .join(",")
      .match(/\*|(?:W\/)?"[^"]*"/g) ?? [];
  return tags.some((tag) => tag === "*" || tag.replace(/^W\//, "") === opaque);
}

/** The verdict part of /v1/market/intelligence: the summary view, or the full one. */
export async function verdictSection(deps: { verdict: VerdictEngine }, { detail }: { detail: "full" | "summary" }): Promise<Record<string, unknown>> {
  const verdict = await deps.verdict.ready();
  return detail === "summary" ? summaryView(verdict) : fullView(verdict);
}

/**
 * A transition as an alert of the alerts stream (event `verdict`), in the alert bus's shape: critical
 * when the new verdict reads HIGH risk, capitulation or deleveraging; warning for ELEVATED risk or a
 * leveraged state; info otherwise. Wire it with `engine.onTransition((t, v) => bus.publish(transitionAlert(t, v)))`.
 */
export function transitionAlert(transition: VerdictTransition, verdict: Verdict) {
  const to = transition.to;
  const severity: "info" | "warning" | "critical" =
    to.risk === "HIGH" || to.state === "CAPITULATION" || to.state === "DELEVERAGING"
      ? "critical"
      : to.risk === "ELEVATED" || to.state === "LEVERAGED_RALLY" || to.state === "LEVERAGED_CHOP"
        ? "warning"
        : "info";
  const moves = transition.fields.map((field) => `${field} ${transition.from[field]} → ${to[field]}`).join(", ");
  return {
    id: `verdict-${transition.compute}`,
    type: "verdict" as const,
    severity,
    title: `Verdict: ${moves}`,
    time: transition.at,
    data: { ...summaryView(verdict), changed: transition, headline: verdict.headline },
  };
}
