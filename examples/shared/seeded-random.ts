// mulberry32: a tiny seeded generator, shared by the example APIs. Route planning's optimizers and
// clustering restart from fixed seeds, so every answer to one input repeats exactly; the simulated
// market draws each block, hour and minute from it; benchmarks and tests draw reproducible inputs.
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
