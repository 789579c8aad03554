// Contraction hierarchies (Geisberger et al. 2008): nodes contracted in order of edge difference
// (+ contracted neighbours + level), witness searches bounded by a settle limit, shortcuts that
// remember the two edges they replace. Queries search upward from both ends; matrices use buckets.
import FlatQueue from "flatqueue";

/** A directed edge of the base graph for one profile and metric (parallel edges already reduced to the cheapest). */
export interface BaseEdges {
  nodeCount: number;
  from: Int32Array;
  to: Int32Array;
  weight: Float64Array;
  distance: Float64Array;
  duration: Float64Array;
  /** The base graph's directed edge id (2 * segment + direction). */
  baseEdge: Int32Array;
}

/** The prepared hierarchy: every edge (original and shortcut) and the two upward adjacency lists. */
export interface ContractionHierarchy {
  nodeCount: number;
  rank: Int32Array;
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  edgeWeight: Float64Array;
  edgeDistance: Float64Array;
  edgeDuration: Float64Array;
  /** For a shortcut u→w via v: the edges u→v and v→w; -1 for an original edge. */
  edgeChildA: Int32Array;
  edgeChildB: Int32Array;
  /** For an original edge: its base directed edge id; -1 for a shortcut. */
  edgeBase: Int32Array;
  /** Node u's edges u→w with rank[w] > rank[u]: upEdge[upStart[u] .. upStart[u+1]). */
  upStart: Int32Array;
  upEdge: Int32Array;
  /** Node w's edges u→w with rank[u] > rank[w] (searched backwards from targets). */
  downStart: Int32Array;
  downEdge: Int32Array;
}

export interface ContractOptions {
  /** Settled nodes after which a witness search gives up (a missed witness only adds a shortcut). */
  witnessSettleLimit?: number;
}

/** Contracts every node of the graph; deterministic for a given input. */
export function buildContractionHierarchy(base: BaseEdges, options: ContractOptions = {}): ContractionHierarchy {
  const n = base.nodeCount;
  const settleLimit = options.witnessSettleLimit ?? 200;
  const from: number[] = Array.from(base.from);
  const to: number[] = Array.from(base.to);
  const weight: number[] = Array.from(base.weight);
  const distance: number[] = Array.from(base.distance);
  const duration: number[] = Array.from(base.duration);
  const childA: number[] = new Array(from.length).fill(-1);
  const childB: number[] = new Array(from.length).fill(-1);
  const baseEdge: number[] = Array.from(base.baseEdge);
  const alive: boolean[] = new Array(from.length).fill(true);
  const outAdj: number[][] = Array.from({ length: n }, () => []);
  const inAdj: number[][] = Array.from({ length: n }, () => []);
  for (let e = 0; e < from.length; e++) {
    outAdj[from[e]].push(e);
    inAdj[to[e]].push(e);
  }
  const contracted = new Uint8Array(n);
  const deletedNeighbours = new Int32Array(n);
  const level = new Int32Array(n);

  // Witness search state, reset through `touched` after each search.
  const dist = new Float64Array(n).fill(Infinity);
  const touched: number[] = [];
  const heap = new FlatQueue<number>();

  /** Shortest distances from `source` avoiding `skip`, up to `limit`, at most settleLimit nodes. */
  function witnessSearch(source: number, skip: number, limit: number) {
    for (const t of touched) dist[t] = Infinity;
    touched.length = 0;
    heap.clear();
    dist[source] = 0;
    touched.push(source);
    heap.push(source, 0);
    let settled = 0;
    while (heap.length) {
      const d = heap.peekValue()!;
      const u = heap.pop()!;
      if (d > dist[u]) continue;
      if (d > limit || ++settled > settleLimit) break;
      for (const e of outAdj[u]) {
        const w = to[e];
        if (w === skip || contracted[w]) continue;
        const nd = d + weight[e];
        if (nd < dist[w]) {
          if (dist[w] === Infinity) touched.push(w);
          dist[w] = nd;
          heap.push(w, nd);
        }
      }
    }
  }

  function addShortcut(u: number, w: number, e1: number, e2: number) {
    const wgt = weight[e1] + weight[e2];
    for (let i = 0; i < outAdj[u].length; i++) {
      const e = outAdj[u][i];
      if (to[e] !== w) continue;
      if (weight[e] <= wgt) return;
      alive[e] = false;
      outAdj[u].splice(i, 1);
      inAdj[w].splice(inAdj[w].indexOf(e), 1);
      break;
    }
    const id = from.length;
    from.push(u);
    to.push(w);
    weight.push(wgt);
    distance.push(distance[e1] + distance[e2]);
    duration.push(duration[e1] + duration[e2]);
    childA.push(e1);
    childB.push(e2);
    baseEdge.push(-1);
    alive.push(true);
    outAdj[u].push(id);
    inAdj[w].push(id);
  }

  /** Counts (or, with apply, adds) the shortcuts contracting v needs. */
  function contract(v: number, apply: boolean): number {
    let shortcuts = 0;
    const ins = inAdj[v];
    const outs = outAdj[v];
    for (const e1 of ins) {
      const u = from[e1];
      let limit = -Infinity;
      for (const e2 of outs) if (to[e2] !== u) limit = Math.max(limit, weight[e1] + weight[e2]);
      if (limit === -Infinity) continue;
      witnessSearch(u, v, limit);
      for (const e2 of outs) {
        const w = to[e2];
        if (w === u) continue;
        if (dist[w] <= weight[e1] + weight[e2]) continue;
        shortcuts++;
        if (apply) addShortcut(u, w, e1, e2);
      }
    }
    return shortcuts;
  }

  const priority = (v: number) => 2 * (contract(v, false) - inAdj[v].length - outAdj[v].length) + deletedNeighbours[v] + level[v];

  const queue = new FlatQueue<number>();
  for (let v = 0; v < n; v++) queue.push(v, priority(v));
  const rank = new Int32Array(n);
  let next = 0;
  while (queue.length) {
    const v = queue.pop()!;
    if (contracted[v]) continue;
    const p = priority(v);
    if (queue.length && p > queue.peekValue()!) {
      queue.push(v, p);
      continue;
    }
    contract(v, true);
    contracted[v] = 1;
    rank[v] = next++;
    // v leaves the remaining graph: drop its edges from its neighbours' lists.
    const neighbours = new Set<number>();
    for (const e of inAdj[v]) {
      const u = from[e];
      neighbours.add(u);
      outAdj[u] = outAdj[u].filter((x) => to[x] !== v);
    }
    for (const e of outAdj[v]) {
      const w = to[e];
      neighbours.add(w);
      inAdj[w] = inAdj[w].filter((x) => from[x] !== v);
    }
    for (const u of neighbours) {
      deletedNeighbours[u]++;
      level[u] = Math.max(level[u], level[v] + 1);
      queue.push(u, priority(u));
    }
  }

  // Upward adjacency in CSR form: each live edge is stored once, at its lower-ranked end.
  const m = from.length;
  const upCount = new Int32Array(n + 1);
  const downCount = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) {
    if (!alive[e]) continue;
    if (rank[from[e]] < rank[to[e]]) upCount[from[e] + 1]++;
    else downCount[to[e] + 1]++;
  }
  for (let i = 0; i < n; i++) {
    upCount[i + 1] += upCount[i];
    downCount[i + 1] += downCount[i];
  }
  const upEdge = new Int32Array(upCount[n]);
  const downEdge = new Int32Array(downCount[n]);
  const upFill = upCount.slice(0, n);
  const downFill = downCount.slice(0, n);
  for (let e = 0; e < m; e++) {
    if (!alive[e]) continue;
    if (rank[from[e]] < rank[to[e]]) upEdge[upFill[from[e]]++] = e;
    else downEdge[downFill[to[e]]++] = e;
  }
  return {
    nodeCount: n,
    rank,
    edgeFrom: Int32Array.from(from),
    edgeTo: Int32Array.from(to),
    edgeWeight: Float64Array.from(weight),
    edgeDistance: Float64Array.from(distance),
    edgeDuration: Float64Array.from(duration),
    edgeChildA: Int32Array.from(childA),
    edgeChildB: Int32Array.from(childB),
    edgeBase: Int32Array.from(baseEdge),
    upStart: upCount,
    upEdge,
    downStart: downCount,
    downEdge,
  };
}

/** A node a search starts (or ends) at, with what reaching it from the snapped point already cost. */
export interface SearchEndpoint {
  node: number;
  weight: number;
  distance: number;
  duration: number;
}

export interface ChPath {
  weight: number;
  distance: number;
  duration: number;
  /** Which source and target endpoint the path uses (index into the arrays given). */
  source: number;
  target: number;
  /** Base directed edge ids, in travel order. */
  baseEdges: number[];
}

/** One search direction's state, reused across queries (typed arrays reset through `touched`). */
class SearchSpace {
  weight: Float64Array;
  distance: Float64Array;
  duration: Float64Array;
  parentEdge: Int32Array;
  origin: Int32Array;
  touched: number[] = [];
  heap = new FlatQueue<number>();
  constructor(n: number) {
    this.weight = new Float64Array(n).fill(Infinity);
    this.distance = new Float64Array(n);
    this.duration = new Float64Array(n);
    this.parentEdge = new Int32Array(n);
    this.origin = new Int32Array(n);
  }
  reset(endpoints: SearchEndpoint[]) {
    for (const t of this.touched) this.weight[t] = Infinity;
    this.touched.length = 0;
    this.heap.clear();
    endpoints.forEach((p, i) => {
      if (!(p.weight < this.weight[p.node])) return;
      if (this.weight[p.node] === Infinity) this.touched.push(p.node);
      this.weight[p.node] = p.weight;
      this.distance[p.node] = p.distance;
      this.duration[p.node] = p.duration;
      this.parentEdge[p.node] = -1;
      this.origin[p.node] = i;
      this.heap.push(p.node, p.weight);
    });
  }
  relax(node: number, e: number, w: number, ch: ContractionHierarchy, via: number) {
    if (!(w < this.weight[node])) return;
    if (this.weight[node] === Infinity) this.touched.push(node);
    this.weight[node] = w;
    this.distance[node] = this.distance[via] + ch.edgeDistance[e];
    this.duration[node] = this.duration[via] + ch.edgeDuration[e];
    this.parentEdge[node] = e;
    this.origin[node] = this.origin[via];
    this.heap.push(node, w);
  }
}

/** Queries over one hierarchy: point to point (bidirectional upward search) and many-to-many (buckets). */
export class ChQuery {
  private forward: SearchSpace;
  private backward: SearchSpace;
  constructor(readonly ch: ContractionHierarchy) {
    this.forward = new SearchSpace(ch.nodeCount);
    this.backward = new SearchSpace(ch.nodeCount);
  }

  /** The cheapest path from any source endpoint to any target endpoint, or null when none exists. */
  shortestPath(sources: SearchEndpoint[], targets: SearchEndpoint[]): ChPath | null {
    const { ch, forward: f, backward: b } = this;
    f.reset(sources);
    b.reset(targets);
    let best = Infinity;
    let meet = -1;
    for (const t of f.touched)
      if (b.weight[t] < Infinity && f.weight[t] + b.weight[t] < best) {
        best = f.weight[t] + b.weight[t];
        meet = t;
      }
    while (f.heap.length || b.heap.length) {
      const fTop = f.heap.length ? f.heap.peekValue()! : Infinity;
      const bTop = b.heap.length ? b.heap.peekValue()! : Infinity;
      if (Math.min(fTop, bTop) >= best) break;
      const useForward = fTop <= bTop;
      const space = useForward ? f : b;
      const other = useForward ? b : f;
      const u = space.heap.pop()!;
      const d = useForward ? fTop : bTop;
      if (d > space.weight[u]) continue;
      if (other.weight[u] < Infinity && d + other.weight[u] < best) {
        best = d + other.weight[u];
        meet = u;
      }
      if (useForward) {
        for (let i = ch.upStart[u]; i < ch.upStart[u + 1]; i++) {
          const e = ch.upEdge[i];
          f.relax(ch.edgeTo[e], e, d + ch.edgeWeight[e], ch, u);
        }
      } else {
        for (let i = ch.downStart[u]; i < ch.downStart[u + 1]; i++) {
          const e = ch.downEdge[i];
          b.relax(ch.edgeFrom[e], e, d + ch.edgeWeight[e], ch, u);
        }
      }
    }
    if (meet < 0) return null;
    const chEdges: number[] = [];
    for (let v = meet; f.parentEdge[v] >= 0; v = ch.edgeFrom[f.parentEdge[v]]) chEdges.push(f.parentEdge[v]);
    chEdges.reverse();
    for (let v = meet; b.parentEdge[v] >= 0; v = ch.edgeTo[b.parentEdge[v]]) chEdges.push(b.parentEdge[v]);
    const baseEdges: number[] = [];
    for (const e of chEdges) unpackEdge(ch, e, baseEdges);
    return {
      weight: best,
      distance: f.distance[meet] + b.distance[meet],
      duration: f.duration[meet] + b.duration[meet],
      source: f.origin[meet],
      target: b.origin[meet],
      baseEdges,
    };
  }

  /**
   * Many-to-many (Knopp et al. 2007): each target's backward upward search leaves (target, weight)
   * in a bucket at every node it settles; each source's forward upward search scans the buckets.
   * Unreachable pairs stay Infinity.
   */
  manyToMany(sources: SearchEndpoint[][], targets: SearchEndpoint[][]): { weight: Float64Array[]; distance: Float64Array[]; duration: Float64Array[] } {
    const { ch, forward: f, backward: b } = this;
    const bucketNode: number[] = [];
    const bucketTarget: number[] = [];
    const bucketWeight: number[] = [];
    const bucketDistance: number[] = [];
    const bucketDuration: number[] = [];
    targets.forEach((endpoints, j) => {
      b.reset(endpoints);
      while (b.heap.length) {
        const d = b.heap.peekValue()!;
        const u = b.heap.pop()!;
        if (d > b.weight[u]) continue;
        bucketNode.push(u);
        bucketTarget.push(j);
        bucketWeight.push(d);
        bucketDistance.push(b.distance[u]);
        bucketDuration.push(b.duration[u]);
        for (let i = ch.downStart[u]; i < ch.downStart[u + 1]; i++) {
          const e = ch.downEdge[i];
          b.relax(ch.edgeFrom[e], e, d + ch.edgeWeight[e], ch, u);
        }
      }
    });
    // Buckets by node in CSR form.
    const n = ch.nodeCount;
    const start = new Int32Array(n + 1);
    for (const v of bucketNode) start[v + 1]++;
    for (let i = 0; i < n; i++) start[i + 1] += start[i];
    const fill = start.slice(0, n);
    const order = new Int32Array(bucketNode.length);
    for (let k = 0; k < bucketNode.length; k++) order[fill[bucketNode[k]]++] = k;

    const weight = sources.map(() => new Float64Array(targets.length).fill(Infinity));
    const distance = sources.map(() => new Float64Array(targets.length).fill(NaN));
    const duration = sources.map(() => new Float64Array(targets.length).fill(NaN));
    sources.forEach((endpoints, i) => {
      f.reset(endpoints);
      const row = weight[i];
      while (f.heap.length) {
        const d = f.heap.peekValue()!;
        const u = f.heap.pop()!;
        if (d > f.weight[u]) continue;
        for (let k = start[u]; k < start[u + 1]; k++) {
          const entry = order[k];
          const j = bucketTarget[entry];
          const total = d + bucketWeight[entry];
          if (total < row[j]) {
            row[j] = total;
            distance[i][j] = f.distance[u] + bucketDistance[entry];
            duration[i][j] = f.duration[u] + bucketDuration[entry];
          }
        }
        for (let k = ch.upStart[u]; k < ch.upStart[u + 1]; k++) {
          const e = ch.upEdge[k];
          f.relax(ch.edgeTo[e], e, d + ch.edgeWeight[e], ch, u);
        }
      }
    });
    return { weight, distance, duration };
  }
}

/** Appends the base edges a CH edge stands for, in travel order (iterative: hierarchies are deep). */
export function unpackEdge(ch: ContractionHierarchy, edge: number, out: number[]) {
  const stack = [edge];
  while (stack.length) {
    const e = stack.pop()!;
    if (ch.edgeBase[e] >= 0) out.push(ch.edgeBase[e]);
    else stack.push(ch.edgeChildB[e], ch.edgeChildA[e]);
  }
}

const CH_FIELDS = [
  "rank",
  "edgeFrom",
  "edgeTo",
  "edgeWeight",
  "edgeDistance",
  "edgeDuration",
  "edgeChildA",
  "edgeChildB",
  "edgeBase",
  "upStart",
  "upEdge",
  "downStart",
  "downEdge",
] as const;

/** The hierarchy as one buffer (for the DATA_DIR cache): a JSON header line, then the arrays, 8-byte aligned. */
export function serializeHierarchy(ch: ContractionHierarchy): Buffer {
  const head = Buffer.from(
    JSON.stringify({ nodeCount: ch.nodeCount, arrays: CH_FIELDS.map((f) => ({ field: f, type: ch[f].constructor.name, length: ch[f].length })) }) + "\n",
  );
  const parts: Buffer[] = [head, Buffer.alloc((8 - (head.length % 8)) % 8, 0x20)];
  for (const f of CH_FIELDS) {
    const a = ch[f];
    parts.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.alloc((8 - (a.byteLength % 8)) % 8));
  }
  return Buffer.concat(parts);
}

export function deserializeHierarchy(file: Buffer): ContractionHierarchy {
  const newline = file.indexOf(0x0a);
  const header = JSON.parse(file.subarray(0, newline).toString("utf8"));
  let offset = newline + 1;
  offset += (8 - (offset % 8)) % 8;
  const copy = new Uint8Array(file.byteLength - offset);
  copy.set(file.subarray(offset));
  let at = 0;
  const out: Record<string, unknown> = { nodeCount: header.nodeCount };
  for (const { field, type, length } of header.arrays as { field: string; type: string; length: number }[]) {
    const Ctor = type === "Int32Array" ? Int32Array : Float64Array;
    out[field] = new Ctor(copy.buffer, at, length);
    at += length * Ctor.BYTES_PER_ELEMENT;
    at += (8 - (at % 8)) % 8;
  }
  return out as unknown as ContractionHierarchy;
}
