// Time-bounded fuzzing of the parsers that face the internet, on fast-check. Each target runs for
// FUZZ_SECONDS (default 3) of generated and mutated inputs, then reports how many it tried. Inputs
// come from grammar-aware generators and from mutations of valid samples (byte flips, insertions of
// grammar tokens, deletions, duplications, splices), which reach deeper than random bytes do.
// Why not coverage-guided: docs/security.md ("Fuzzing").
import fc from "fast-check";
import { afterAll, it } from "vitest";

/** Seconds each target runs; `npm run fuzz` sets a longer budget than a plain test run. */
const seconds = Number(process.env.FUZZ_SECONDS ?? "3");

type Outcome = { target: string; inputs: number; seconds: number; failures: number };
const outcomes: Outcome[] = [];

afterAll(() => {
  for (const o of outcomes) {
    console.log(`fuzz ${o.target}: ${o.inputs.toLocaleString("en-US")} inputs in ${o.seconds.toFixed(1)} s, ${o.failures} failures`);
  }
});

/**
 * Registers one fuzz target: `check` must return (or resolve) for every input; it throws (or
 * rejects) to report a failure, which fast-check then shrinks to a minimal input.
 */
export function fuzzTarget<T>(target: string, input: fc.Arbitrary<T>, check: (value: T) => void | Promise<void>): void {
  it(`fuzz: ${target}`, { timeout: seconds * 1000 + 60_000 }, async () => {
    let inputs = 0;
    const started = performance.now();
    const property = fc.asyncProperty(input, async (value) => {
      inputs++;
      await check(value);
    });
    const outcome: Outcome = { target, inputs: 0, seconds: 0, failures: 0 };
    outcomes.push(outcome);
    try {
      await fc.assert(property, {
        numRuns: Number.MAX_SAFE_INTEGER,
        interruptAfterTimeLimit: seconds * 1000,
        markInterruptAsFailure: false,
        // Each run reports its seed on failure, so a crash found in CI replays locally.
        seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
      });
    } catch (err) {
      outcome.failures = 1;
      throw err;
    } finally {
      outcome.inputs = inputs;
      outcome.seconds = (performance.now() - started) / 1000;
    }
  });
}

/** One edit a mutator applies to a byte string. */
type Edit =
  | { kind: "flip"; at: number; value: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "delete"; at: number; length: number }
  | { kind: "duplicate"; at: number; length: number }
  | { kind: "splice"; at: number; other: number; from: number };

/**
 * Inputs made by editing valid samples: up to eight edits of the kinds libFuzzer's mutators use,
 * with `tokens` (grammar words such as `L402 `, `=`, `"`) as insertions.
 */
export function mutationsOf(samples: Uint8Array[], tokens: string[] = []): fc.Arbitrary<Uint8Array> {
  const encoded = tokens.map((t) => new TextEncoder().encode(t));
  const position = fc.nat({ max: 1 << 16 });
  const insertion = encoded.length
    ? fc.oneof(fc.constantFrom(...encoded), fc.uint8Array({ minLength: 1, maxLength: 8 }))
    : fc.uint8Array({ minLength: 1, maxLength: 8 });
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({ kind: fc.constant("flip" as const), at: position, value: fc.nat({ max: 255 }) }),
    fc.record({ kind: fc.constant("insert" as const), at: position, bytes: insertion }),
    fc.record({ kind: fc.constant("delete" as const), at: position, length: fc.integer({ min: 1, max: 16 }) }),
    fc.record({ kind: fc.constant("duplicate" as const), at: position, length: fc.integer({ min: 1, max: 16 }) }),
    fc.record({ kind: fc.constant("splice" as const), at: position, other: fc.nat({ max: samples.length - 1 }), from: position }),
  );
  return fc.tuple(fc.nat({ max: samples.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 8 })).map(([index, edits]) => {
    let bytes = samples[index];
    for (const e of edits) bytes = applyEdit(bytes, e, samples);
    return bytes;
  });
}

function applyEdit(bytes: Uint8Array, e: Edit, samples: Uint8Array[]): Uint8Array {
  const at = bytes.length === 0 ? 0 : e.at % (bytes.length + 1);
  switch (e.kind) {
    case "flip": {
      if (bytes.length === 0) return bytes;
      const copy = Uint8Array.from(bytes);
      copy[at % bytes.length] = e.value;
      return copy;
    }
    case "insert":
      return concat(bytes.subarray(0, at), e.bytes, bytes.subarray(at));
    case "delete":
      return concat(bytes.subarray(0, at), bytes.subarray(at + e.length));
    case "duplicate":
      return concat(bytes.subarray(0, at + e.length), bytes.subarray(at, at + e.length), bytes.subarray(at + e.length));
    case "splice": {
      const other = samples[e.other];
      return concat(bytes.subarray(0, at), other.subarray(other.length === 0 ? 0 : e.from % other.length));
    }
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Text inputs: mutations of text samples, read back as UTF-8 (invalid bytes become U+FFFD). */
export function textMutationsOf(samples: string[], tokens: string[] = []): fc.Arbitrary<string> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return mutationsOf(
    samples.map((s) => encoder.encode(s)),
    tokens,
  ).map((bytes) => decoder.decode(bytes));
}

/** Grammar-shaped text: 0-40 words drawn from `tokens`, mixed with arbitrary (also unicode) strings. */
export function tokenSoup(tokens: string[]): fc.Arbitrary<string> {
  const word = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...tokens) }, { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: "grapheme" }) });
  return fc.array(word, { maxLength: 40 }).map((words) => words.join(""));
}
