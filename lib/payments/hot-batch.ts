// Group commit for the money statements of paid calls on PostgreSQL. Concurrent calls of one
// gateway process each need one single-row statement (claim a proof, debit a session, finish a
// claim); sent one by one, every call pays a round trip, a transaction and a WAL flush of its own
// (every money statement commits durably: lib/payments/debit-session.ts). A StatementBatcher gathers
// the calls that arrive while the loop is busy and sends them as ONE statement over arrays
// (`unnest`), which PostgreSQL executes row by row with the same conditions as the single
// statement, so every guarantee stays PostgreSQL's:
//   - a key (payment hash, session token hash) is in at most one batch in flight per process, so a
//     batch never touches a row twice and two batches of this process never wait on each other's
//     row locks. Another call for a key already taken runs at once as its own single statement:
//     it locks one row and holds nothing while it waits, so it cannot deadlock with a batch, and
//     many calls on one busy session queue on its row in PostgreSQL as they did before batching;
//   - rows are sent sorted by key, so batches of different gateway instances lock shared rows in
//     the same order;
//   - if PostgreSQL refuses a batch (a deadlock with another instance, a row violating a
//     constraint), the statement was rolled back whole, so each of its calls runs again as its own
//     single statement: one bad call costs the others nothing but a retry. Any other failure (the
//     connection broke) may have come after the commit, so the calls fail as a single statement's
//     would, never run twice: a debit retried after an unseen commit would charge twice.
// At low load a batch holds one call and waits for nothing but the next turn of the event loop.

/** A queued call: its key, its input and how to answer it. */
type Pending<Item, Row> = { key: string; item: Item; resolve: (row: Row | null) => void; reject: (err: unknown) => void };

export type StatementBatcherOptions<Item, Row> = {
  /** The row a call is about; at most one call per key per batch. */
  keyOf(item: Item): string;
  /** Runs one batch (items sorted by key, keys distinct); returns the matched rows by key. */
  runBatch(items: Item[]): Promise<Map<string, Row>>;
  /** The same call alone: for a call whose key is taken, and after PostgreSQL refused a batch. */
  runOne(item: Item): Promise<Row | null>;
  /** Most calls in one statement (default 64). */
  maxBatch?: number;
  /**
   * Most batches in flight at once, each on its own pooled connection (default 4). Fewer means
   * bigger batches and fewer statements; more keeps calls moving while one batch waits on a row
   * lock (a session many connections share).
   */
  maxInFlight?: number;
};

export class StatementBatcher<Item, Row> {
  private readonly queue: Pending<Item, Row>[] = [];
  private readonly busyKeys = new Set<string>();
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  constructor(private readonly options: StatementBatcherOptions<Item, Row>) {
    this.maxBatch = options.maxBatch ?? 64;
    this.maxInFlight = options.maxInFlight ?? 4;
  }

  /** The call's matched row, or null when its statement matched nothing (the caller explains why). */
  submit(item: Item): Promise<Row | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key: this.options.keyOf(item), item, resolve, reject });
      this.schedule();
    });
  }

  /** Flushes on the loop's next turn, so the calls parsed in this one join the same batch. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch: Pending<Item, Row>[] = [];
    const keys = new Set<string>();
    let taken = 0;
    for (; taken < this.queue.length && batch.length < this.maxBatch; taken++) {
      const call = this.queue[taken];
      if (keys.has(call.key) || this.busyKeys.has(call.key)) {
        this.options.runOne(call.item).then(call.resolve, call.reject);
        continue;
      }
      keys.add(call.key);
      batch.push(call);
    }
    this.queue.splice(0, taken);
    if (batch.length === 0) return;
    batch.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const key of keys) this.busyKeys.add(key);
    this.inFlight += 1;
    void this.run(batch).finally(() => {
      for (const key of keys) this.busyKeys.delete(key);
      this.inFlight -= 1;
      this.schedule();
    });
    this.schedule();
  }

  private async run(batch: Pending<Item, Row>[]): Promise<void> {
    let rows: Map<string, Row>;
    try {
      rows = await this.options.runBatch(batch.map((call) => call.item));
    } catch (err) {
      if (!refusedByDatabase(err)) {
        for (const call of batch) call.reject(err);
        return;
      }
      // Rolled back whole: each call alone, for its own answer or its own error.
      await Promise.all(batch.map((call) => this.options.runOne(call.item).then(call.resolve, call.reject)));
      return;
    }
    for (const call of batch) call.resolve(rows.get(call.key) ?? null);
  }
}

/**
 * An error PostgreSQL answered (it carries a SQLSTATE and a severity): the statement did not
 * commit. Connection errors (ECONNRESET, a pool timeout) carry neither, and prove nothing.
 */
export function refusedByDatabase(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown } | null;
  return typeof e?.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === "string";
}

/** One batcher per pool and statement kind: batches never mix databases. */
export function batcherPerPool<Pool extends object, Item, Row>(
  create: (pool: Pool) => StatementBatcher<Item, Row>,
): (pool: Pool) => StatementBatcher<Item, Row> {
  const batchers = new WeakMap<Pool, StatementBatcher<Item, Row>>();
  return (pool) => {
    let batcher = batchers.get(pool);
    if (!batcher) batchers.set(pool, (batcher = create(pool)));
    return batcher;
  };
}
