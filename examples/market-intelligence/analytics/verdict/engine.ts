// The verdict engine: computed once a minute by the origin's scheduler (`tick(now)`), kept in
// memory, read by /v1/verdict and /v1/market/intelligence (`current()`), and announcing each
// transition to the alerts stream (`onTransition`). Each compute reads the market (evidence.ts),
// classifies a raw reading (classify.ts) and feeds it through the hysteresis (hysteresis.ts): the
// published state, bias and risk flip only after the new reading held for 3 consecutive computes.
// Scalars (bias_score, confidence, conviction) and the evidence follow every compute.
import type { MarketSource } from "../../model/types.ts";
import type { RiskLevel } from "../risk.ts";
import { classifyBias, classifyRisk, classifyState, type Bias, type VerdictState } from "./classify.ts";
import { completenessOf, gatherEvidence, OI_WINDOW_MS, rankEvidence, type Evidence, type MarketFeatures, type OpenInterestSample } from "./evidence.ts";
import { Debounced } from "./hysteresis.ts";

/** Spec 2 §3 / §8: the enums need about 3 consecutive computes, about 3 minutes. */
export const VERDICT_PERSISTENCE = 3;
export const VERDICT_INTERVAL_MS = 60_000;

export type VerdictField = "state" | "bias" | "risk";
export interface VerdictEnums {
  state: VerdictState;
  bias: Bias;
  risk: RiskLevel;
}

/** The last transition: which enums flipped, from and to what, when, and after how many computes of the new reading. */
export interface VerdictTransition {
  fields: VerdictField[];
  from: VerdictEnums;
  to: VerdictEnums;
  at: string;
  after_computes: number;
  /** How many computes the previous verdict was published for before this transition. */
  held_computes: number;
  /** The engine's compute count at the transition. */
  compute: number;
}

export interface Verdict extends VerdictEnums {
  bias_score: number;
  confidence: number;
  conviction: number;
  data_completeness: number;
  risk_score: number | null;
  /** This compute's raw reading, before the hysteresis. */
  reading: VerdictEnums;
  /** Readings waiting to persist: the published value flips when `computes` reaches `needed`. */
  pending: Array<{ field: VerdictField; reading: string; computes: number; needed: number }>;
  changed: VerdictTransition | null;
  evidence: Evidence[];
  headline: string;
  computed_at: string;
  computes: number;
}

export interface VerdictEngineOptions {
  source: MarketSource;
  /** The clock `tick()` uses when the scheduler passes no time; defaults to the source's. */
  clock?: () => number;
  persistence?: number;
}

type TransitionListener = (transition: VerdictTransition, verdict: Verdict) => void;

export class VerdictEngine {
  private readonly source: MarketSource;
  private readonly clock: () => number;
  private readonly persistence: number;
  private readonly state: Debounced<VerdictState>;
  private readonly bias: Debounced<Bias>;
  private readonly risk: Debounced<RiskLevel>;
  private readonly oiHistory: OpenInterestSample[] = [];
  private readonly listeners = new Set<TransitionListener>();
  private latest: Verdict | null = null;
  private lastTransition: VerdictTransition | null = null;
  /** The compute at which the published enums last changed (the first compute publishes them). */
  private publishedSince = 1;
  private count = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: VerdictEngineOptions) {
    this.source = options.source;
    this.clock = options.clock ?? (() => options.source.now());
    this.persistence = options.persistence ?? VERDICT_PERSISTENCE;
    this.state = new Debounced(this.persistence);
    this.bias = new Debounced(this.persistence);
    this.risk = new Debounced(this.persistence);
  }

  /** The last computed verdict, or null before the first compute. */
  current(): Verdict | null {
    return this.latest;
  }

  /** The last verdict, computing one first if the scheduler has not run yet (a request right after start). */
  async ready(): Promise<Verdict> {
    return this.latest ?? (await this.queue.then(() => this.latest)) ?? this.tick();
  }

  /** Calls `listener` after each transition (the alerts stream's `verdict` event); returns the unsubscribe function. */
  onTransition(listener: TransitionListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Runs `tick` every interval (unref'd, so it never holds the process open); returns the stop function. */
  start(intervalMs = VERDICT_INTERVAL_MS, onError: (error: unknown) => void = () => {}): () => void {
    const timer = setInterval(() => void this.tick().catch(onError), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** One compute at `now`. Computes never overlap: a tick called during another runs after it. */
  tick(now: number = this.clock()): Promise<Verdict> {
    const run = this.queue.then(() => this.compute(now));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async compute(now: number): Promise<Verdict> {
    const { features, drafts } = await gatherEvidence(this.source, now, this.oiHistory);
    this.rememberOpenInterest(now, features.openInterestBtc);
    const { evidence, biasScore, agreement } = rankEvidence(drafts);
    const completeness = completenessOf(evidence);
    const { risk, riskScore } = classifyRisk(evidence, completeness);
    const reading: VerdictEnums = { state: classifyState(features), bias: classifyBias(biasScore), risk };
    this.count += 1;

    const before = this.enums();
    const flips: Array<[VerdictField, number]> = [];
    for (const [field, debounced] of [
      ["state", this.state],
      ["bias", this.bias],
      ["risk", this.risk],
    ] as const) {
      const flip = (debounced as Debounced<string>).feed(reading[field]);
      if (flip) flips.push([field, flip.after]);
    }
    const after = this.enums()!;
    if (before && flips.length) {
      this.lastTransition = {
        fields: flips.map(([field]) => field),
        from: before,
        to: after,
        at: new Date(now).toISOString(),
        after_computes: Math.max(...flips.map(([, computes]) => computes)),
        held_computes: this.count - this.publishedSince,
        compute: this.count,
      };
      this.publishedSince = this.count;
    }

    const confidence = completeness * agreement;
    const verdict: Verdict = {
      ...after,
      bias_score: round(biasScore, 3),
      confidence: round(confidence, 3),
      conviction: round(Math.min(1, Math.abs(biasScore) / 0.5) * confidence, 3),
      data_completeness: round(completeness, 3),
      risk_score: riskScore === null ? null : round(riskScore, 3),
      reading,
      pending: this.pendingReadings(),
      changed: this.lastTransition,
      evidence,
      headline: headline(after, features, evidence),
      computed_at: new Date(now).toISOString(),
      computes: this.count,
    };
    this.latest = verdict;
    if (before && flips.length) this.announce(this.lastTransition!, verdict);
    return verdict;
  }

  private enums(): VerdictEnums | null {
    const state = this.state.value;
    const bias = this.bias.value;
    const risk = this.risk.value;
    return state && bias && risk ? { state, bias, risk } : null;
  }

  private pendingReadings(): Verdict["pending"] {
    const pending: Verdict["pending"] = [];
    for (const [field, debounced] of [
      ["state", this.state],
      ["bias", this.bias],
      ["risk", this.risk],
    ] as const) {
      const candidate = (debounced as Debounced<string>).candidate;
      if (candidate) pending.push({ field, reading: candidate.reading, computes: candidate.computes, needed: this.persistence });
    }
    return pending;
  }

  private rememberOpenInterest(now: number, size: number | null): void {
    if (size !== null) this.oiHistory.push({ time: now, size });
    while (this.oiHistory.length && this.oiHistory[0].time < now - OI_WINDOW_MS) this.oiHistory.shift();
  }

  /** Every listener hears every transition; a throwing listener is reported after the others ran. */
  private announce(transition: VerdictTransition, verdict: Verdict): void {
    const errors: unknown[] = [];
    for (const listener of this.listeners) {
      try {
        listener(transition, verdict);
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length) throw new AggregateError(errors, "a verdict transition listener failed");
  }
}

const STATE_WORDS: Record<VerdictState, string> = {
  QUIET: "Quiet market",
  SPOT_ACCUMULATION: "Spot accumulation",
  LEVERAGED_RALLY: "Leveraged rally",
  LEVERAGED_CHOP: "Leveraged chop",
  DELEVERAGING: "Deleveraging",
  CAPITULATION: "Capitulation",
};

/** Templated prose (not part of the stable contract): the state with its telling figures, bias, risk and the strongest evidence. */
export function headline(enums: VerdictEnums, f: MarketFeatures, evidence: Evidence[]): string {
  const pct = (value: number | null, digits = 1) => (value === null ? "n/a" : `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(digits)} %`);
  const usd = (value: number | null) => (value === null ? "n/a" : `$${(value / 1_000_000).toFixed(1)}M`);
  const funding = f.fundingRate === null ? "n/a" : `${(f.fundingRate * 100).toFixed(3)} %`;
  const detail: Record<VerdictState, string> = {
    QUIET: `BTC ${pct(f.return24hPct)} in 24 h on a ${f.trendDirection ?? "unread"} trend`,
    SPOT_ACCUMULATION: `coins leaving exchanges (${f.exchangeNetflowBtc === null ? "n/a" : Math.round(f.exchangeNetflowBtc).toLocaleString("en-US")} BTC in 24 h) while leverage stays flat`,
    LEVERAGED_RALLY: `BTC ${pct(f.return24hPct)} in 24 h with funding at ${funding} per 8 h and open interest ${pct(f.oiChangePct)}`,
    LEVERAGED_CHOP: `open interest ${pct(f.oiChangePct)} and funding at ${funding} per 8 h without direction (BTC ${pct(f.return24hPct)} in 24 h)`,
    DELEVERAGING: `open interest ${pct(f.oiChangePct)} with ${usd((f.longLiquidationsUsd ?? 0) + (f.shortLiquidationsUsd ?? 0))} liquidated in the last hour`,
    CAPITULATION: `BTC ${pct(f.return24hPct)} in 24 h, ${usd(f.longLiquidationsUsd)} of longs liquidated in the last hour, fear & greed at ${f.fearGreed ?? "n/a"}`,
  };
  const top = evidence.find((item) => item.available && item.contribution !== 0);
  const risk = enums.risk === "UNKNOWN" ? "risk unknown (too few inputs)" : `risk ${enums.risk.toLowerCase()}`;
  return `${STATE_WORDS[enums.state]}: ${detail[enums.state]}; bias ${enums.bias}, ${risk}.${top ? ` Strongest evidence: ${top.summary}.` : ""}`;
}

function round(value: number, digits: number): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}
