// On-chain activity of the curated address corpus: every hour since the simulation epoch a few
// whale transfers move coins between labelled entities (exchanges, funds, miners, governments,
// custodians) and unlabelled addresses, leaning toward exchange inflows when the market sells off
// and outflows when it trends up. Balances are the corpus's starting balances plus those transfers,
// so an address's balance history and the transfers that touch it always agree.
import corpusFile from "./address-corpus.json" with { type: "json" };
import type { EntityLabel, Regime, WhaleTransfer } from "../types.ts";
import { HOUR_MS, SIM_EPOCH, type MarketPath, hourStart } from "./market-path.ts";
import { STREAM, gaussian, hash32, seededRandom } from "./random.ts";

export interface CorpusEntry extends EntityLabel {
  role: string;
  /** True when the exact address is a stand-in (the label and the role are what matter). */
  illustrative: boolean;
  initialBalanceBtc: number;
}

export const ADDRESS_CORPUS: readonly CorpusEntry[] = corpusFile.entries as CorpusEntry[];
const byAddress = new Map(ADDRESS_CORPUS.map((e) => [e.address, e]));
const DAY_MS = 86_400_000;
const exchanges = ADDRESS_CORPUS.filter((e) => e.category === "exchange");
const others = ADDRESS_CORPUS.filter((e) => e.category !== "exchange");

export function corpusEntry(address: string): CorpusEntry | undefined {
  return byAddress.get(address);
}

function label(entry: CorpusEntry | undefined): EntityLabel | null {
  return entry ? { address: entry.address, entity: entry.entity, category: entry.category } : null;
}

const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
/** A synthetic, unlabelled bc1q address (not a real one) for the other side of a transfer. */
function unlabelledAddress(seed: number, hour: number, i: number): string {
  const random = seededRandom(hash32(seed, STREAM.whales, hour, i, 7));
  return `bc1q${Array.from({ length: 38 }, () => BECH32[Math.floor(random() * 32)]).join("")}`;
}

function txid(seed: number, hour: number, i: number): string {
  let out = "";
  for (let k = 0; k < 8; k++)
    out += hash32(seed, STREAM.whales, hour, i, 100 + k)
      .toString(16)
      .padStart(8, "0");
  return out;
}

const INFLOW_SHARE: Record<Regime, number> = {
  quiet: 0.3,
  trending_up: 0.2,
  trending_down: 0.4,
  leveraged_rally: 0.25,
  deleveraging: 0.5,
  capitulation: 0.6,
};
const OUTFLOW_SHARE: Record<Regime, number> = {
  quiet: 0.3,
  trending_up: 0.45,
  trending_down: 0.2,
  leveraged_rally: 0.35,
  deleveraging: 0.15,
  capitulation: 0.15,
};

type Transfer = Omit<WhaleTransfer, "valueUsd" | "from" | "to"> & { from: string; to: string };

export class OnchainLedger {
  private readonly balances = new Map<string, number>(ADDRESS_CORPUS.map((e) => [e.address, e.initialBalanceBtc]));
  /** Balances at each day's start (00:00 UTC), by address: daily[address][day index since epoch]. */
  private readonly daily = new Map<string, number[]>(ADDRESS_CORPUS.map((e) => [e.address, []]));
  /** Transfers of the last 30 days, oldest first. */
  private readonly recent: Transfer[] = [];
  private walkedHour = -1;

  constructor(
    private readonly path: MarketPath,
    private readonly seed: number,
  ) {}

  /** Applies every hour's transfers up to and including `hour` (hours since SIM_EPOCH). */
  advanceTo(hour: number) {
    for (let h = this.walkedHour + 1; h <= hour; h++) {
      if (h % 24 === 0) for (const [address, balance] of this.balances) this.daily.get(address)![h / 24] = balance;
      // Only the last 31 days' transfers are kept, so only theirs need ids and addresses spelled out.
      for (const t of this.transfersOfHour(h, h >= hour - 31 * 24)) {
        if (this.balances.has(t.from)) this.balances.set(t.from, this.balances.get(t.from)! - t.amountBtc);
        if (this.balances.has(t.to)) this.balances.set(t.to, this.balances.get(t.to)! + t.amountBtc);
        this.recent.push(t);
      }
    }
    this.walkedHour = Math.max(this.walkedHour, hour);
    const cutoff = hourStart(hour) - 30 * DAY_MS;
    let drop = 0;
    while (drop < this.recent.length && this.recent[drop].time < cutoff) drop++;
    if (drop) this.recent.splice(0, drop);
  }

  private transfersOfHour(hour: number, spelled: boolean): Transfer[] {
    const time = hourStart(hour);
    const regime = this.path.regimeAt(time);
    const random = seededRandom(hash32(this.seed, STREAM.whales, hour));
    const count = [0, 0, 1, 1, 1, 2, 2, 3][Math.floor(random() * 8)] + (regime === "capitulation" || regime === "deleveraging" ? 1 : 0);
    const out: Transfer[] = [];
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
    for (let i = 0; i < count; i++) {
      const amountBtc = Math.round(Math.min(20_000, Math.max(100, Math.exp(Math.log(450) + 0.9 * gaussian(random)))) * 1e4) / 1e4;
      const u = random();
      const kind: WhaleTransfer["kind"] =
        u < INFLOW_SHARE[regime] ? "exchange_inflow" : u < INFLOW_SHARE[regime] + OUTFLOW_SHARE[regime] ? "exchange_outflow" : "transfer";
      const funded = (candidates: readonly CorpusEntry[]) => candidates.filter((c) => this.balances.get(c.address)! >= amountBtc + 1);
      const unlabelled = spelled ? unlabelledAddress(this.seed, hour, i) : "";
      const labelledOther = random() < 0.5;
      let from: string;
      let to: string;
      if (kind === "exchange_inflow") {
        const senders = labelledOther ? funded(others) : [];
        from = senders.length ? pick(senders).address : unlabelled;
        to = pick(exchanges).address;
      } else if (kind === "exchange_outflow") {
        const senders = funded(exchanges);
        if (!senders.length) continue;
        from = pick(senders).address;
        to = labelledOther ? pick(others).address : unlabelled;
      } else {
        const senders = labelledOther ? funded(others) : [];
        from = senders.length ? pick(senders).address : unlabelled;
        to = senders.length ? unlabelled : pick(others).address;
      }
      if (from === to) continue;
      out.push({ txid: spelled ? txid(this.seed, hour, i) : "", time: time + Math.floor(random() * HOUR_MS), amountBtc, from, to, kind });
    }
    return out.sort((a, b) => a.time - b.time);
  }

  /** Transfers in [since, until), oldest first, labelled and valued at the minute's price. */
  transfers(since: number, until: number): WhaleTransfer[] {
    return this.recent
      .filter((t) => t.time >= since && t.time < until)
      .map((t) => {
        const price = this.path.price(Math.floor((t.time - SIM_EPOCH) / 60_000));
        return {
          ...t,
          valueUsd: Math.round(t.amountBtc * price),
          from: { address: t.from, entity: label(byAddress.get(t.from)) },
          to: { address: t.to, entity: label(byAddress.get(t.to)) },
        };
      });
  }

  balance(address: string): number | undefined {
    return this.balances.get(address);
  }

  /** Daily balances of a corpus address for the last `days` days up to `time`, oldest first. */
  balanceHistory(address: string, days: number, time: number) {
    const series = this.daily.get(address);
    if (!series) return { tracked: false, points: [] as Array<{ time: number; balanceBtc: number }> };
    const today = Math.floor((time - SIM_EPOCH) / DAY_MS);
    const points: Array<{ time: number; balanceBtc: number }> = [];
    for (let d = Math.max(0, today - days + 1); d <= today; d++) {
      if (series[d] !== undefined) points.push({ time: SIM_EPOCH + d * DAY_MS, balanceBtc: Math.round(series[d] * 1e4) / 1e4 });
    }
    return { tracked: true, points };
  }
}
