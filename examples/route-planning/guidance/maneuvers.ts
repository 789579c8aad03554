// Turn an engine Route into OSRM-style steps: consecutive edges on one road (same name and ref, or
// the same class when unnamed) form a step; where the road changes, or the route turns off a road it
// stays on, a maneuver is classified from the bearings at the junction and the roads that meet there
// (docs/route-planning-guidance.md lists the rules). Pure: the network and the route in, steps out.
import { buildAdjacency, type Adjacency } from "../engine/edge-costs.ts";
import { type Profile, type Route, type RouteEdge, type RoadNetwork, U_TURN_SECONDS } from "../engine/index.ts";
import { wayAccess } from "../engine/profiles.ts";
import { haversineMeters } from "../engine/road-network.ts";
import { segmentGeometry } from "../engine/snap.ts";

export const MANEUVER_TYPES = [
  "depart",
  "turn",
  "new name",
  "continue",
  "merge",
  "on ramp",
  "off ramp",
  "fork",
  "end of road",
  "roundabout",
  "rotary",
  "arrive",
] as const;
export type ManeuverType = (typeof MANEUVER_TYPES)[number];

export const MODIFIERS = ["uturn", "sharp right", "right", "slight right", "straight", "slight left", "left", "sharp left"] as const;
export type Modifier = (typeof MODIFIERS)[number];

export interface Maneuver {
  type: ManeuverType;
  modifier?: Modifier;
  /** [lng, lat] where the maneuver happens. */
  location: [number, number];
  /** Degrees clockwise from north of the travel direction just before (0 at a departure). */
  bearing_before: number;
  /** ... and just after the maneuver (0 at an arrival). */
  bearing_after: number;
  /** Roundabouts and rotaries: the number of the exit taken, counting exits the vehicle may use. */
  exit?: number;
}

/** One junction a step passes (OSRM's intersection object). */
export interface Intersection {
  location: [number, number];
  /** Bearings of every road leaving the junction, ascending. */
  bearings: number[];
  /** Whether the profile may enter each of them (one-way and access tags; dimensions aside). */
  entry: boolean[];
  /** Index into bearings of the road the route arrives by (absent at a departure). */
  in?: number;
  /** Index into bearings of the road the route leaves by (absent at an arrival). */
  out?: number;
}

export interface GuidanceStep {
  maneuver: Maneuver;
  /** The road's name ("" when unnamed). For a roundabout step: the road it exits onto. */
  name: string;
  ref?: string;
  /** A named roundabout or rotary's name. */
  rotaryName?: string;
  /** Signposted destinations of the road taken, OSRM's format: "ref: place, place" (destination:ref, destination). */
  destinations?: string;
  mode: "driving" | "cycling";
  /** Meters and seconds from this maneuver to the next (U-turn costs included where they happen). */
  distance: number;
  duration: number;
  /** [lng, lat] from this maneuver to the next. */
  coordinates: [number, number][];
  intersections: Intersection[];
  /** OSM highway class of the step's road. */
  highway: string;
  /** Roundabouts left: the turn from the way in to the way out, degrees (positive right). */
  roundaboutTurn?: number;
}

export interface GuidanceLeg {
  steps: GuidanceStep[];
}

/** Straight ahead within ±STRAIGHT°, slight up to SLIGHT°, a plain turn up to TURN°, sharp up to UTURN°. */
const STRAIGHT = 15;
const SLIGHT = 45;
const TURN = 135;
const UTURN = 170;
/** A road within this of straight ahead continues the way in (fork and end-of-road decisions). */
const AHEAD = 35;
/** Turning at least this much off a road the route stays on is a "continue" maneuver, when another road meets there. */
const STAY_TURN = 40;

/** The initial great-circle bearing from a to b, integer degrees 0..359. */
export function bearing(a: readonly [number, number], b: readonly [number, number]): number {
  const rad = Math.PI / 180;
  const φ1 = a[1] * rad,
    φ2 = b[1] * rad,
    Δλ = (b[0] - a[0]) * rad;
  const y = Math.sin(Δλ) * Math.cos(φ2);
  const x = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ);
  return ((Math.round(Math.atan2(y, x) / rad) % 360) + 360) % 360;
}

/** Signed turn from bearing `from` to bearing `to`, (-180, 180]: positive turns right. */
export function turnAngle(from: number, to: number): number {
  const d = (((to - from) % 360) + 360) % 360;
  return d > 180 ? d - 360 : d;
}

/** The modifier of a turn by `angle` degrees (positive right). */
export function modifierFor(angle: number): Modifier {
  const a = Math.abs(angle);
  if (a <= STRAIGHT) return "straight";
  if (a >= UTURN) return "uturn";
  const side = angle > 0 ? "right" : "left";
  if (a <= SLIGHT) return `slight ${side}`;
  if (a <= TURN) return side;
  return `sharp ${side}`;
}

/** Bearing leaving the first vertex of a line (the first vertex pair that is apart). */
function startBearing(coords: [number, number][]): number {
  for (let i = 1; i < coords.length; i++)
    if (haversineMeters(coords[0][0], coords[0][1], coords[i][0], coords[i][1]) > 0.5) return bearing(coords[0], coords[i]);
  return 0;
}

/** Bearing arriving at the last vertex of a line. */
function endBearing(coords: [number, number][]): number {
  const last = coords[coords.length - 1];
  for (let i = coords.length - 2; i >= 0; i--) if (haversineMeters(coords[i][0], coords[i][1], last[0], last[1]) > 0.5) return bearing(coords[i], last);
  return 0;
}

const isRing = (tags: Record<string, string>) => tags.junction === "roundabout" || tags.junction === "circular";
const isLink = (highway: string) => highway.endsWith("_link");
const isHighSpeed = (highway: string) => highway === "motorway" || highway === "trunk";

/** A road leaving a junction: the segment, the direction it is left by, its bearing and whether the profile may enter it. */
interface Exit {
  segment: number;
  forward: boolean;
  bearing: number;
  enterable: boolean;
  tags: Record<string, string>;
}

/** What guidance needs of a network beyond the engine's: node → segments, built once per network. */
class JunctionIndex {
  private readonly adjacency: Adjacency;
  /** Per profile and way: 0 not yet known, else 4 | 1 (may go along) | 2 (may go against). */
  private readonly access = new Map<Profile, Uint8Array>();
  /** Bearing leaving each directed edge's tail (2s: along segment s, 2s+1: against it), -1 until first asked. */
  private readonly bearings: Int16Array;

  constructor(private readonly network: RoadNetwork) {
    this.adjacency = buildAdjacency(network);
    this.bearings = new Int16Array(2 * network.segmentCount).fill(-1);
  }

  /** The bearing a directed edge leaves its tail node by: toward its first vertex more than half a meter away. */
  private edgeBearing(e: number): number {
    if (this.bearings[e] >= 0) return this.bearings[e];
    const { geometry: g, geometryStart } = this.network;
    const s = e >> 1;
    const first = geometryStart[s],
      last = geometryStart[s + 1] - 1;
    const [from, step, end] = e & 1 ? [last, -1, first] : [first, 1, last];
    const origin: [number, number] = [g[2 * from], g[2 * from + 1]];
    let b = 0;
    for (let k = from + step; step > 0 ? k <= end : k >= end; k += step) {
      if (haversineMeters(origin[0], origin[1], g[2 * k], g[2 * k + 1]) > 0.5 || k === end) {
        b = bearing(origin, [g[2 * k], g[2 * k + 1]]);
        break;
      }
    }
    this.bearings[e] = b;
    return b;
  }

  /** Every road leaving `node`, with its bearing and whether `profile` may take it. */
  exits(node: number, profile: Profile): Exit[] {
    const net = this.network;
    const out: Exit[] = [];
    for (let i = this.adjacency.start[node]; i < this.adjacency.start[node + 1]; i++) {
      const e = this.adjacency.edge[i];
      const segment = e >> 1;
      const forward = (e & 1) === 0;
      const way = net.segmentWay[segment];
      const tags = net.wayTags[way];
      let known = this.access.get(profile);
      if (!known) this.access.set(profile, (known = new Uint8Array(net.wayTags.length)));
      if (!known[way]) {
        const a = wayAccess(profile, tags);
        known[way] = 4 | (a.forward ? 1 : 0) | (a.backward ? 2 : 0);
      }
      out.push({ segment, forward, bearing: this.edgeBearing(e), enterable: (known[way] & (forward ? 1 : 2)) !== 0, tags });
    }
    return out;
  }
}

const junctionIndexes = new WeakMap<RoadNetwork, JunctionIndex>();
function junctionIndex(network: RoadNetwork): JunctionIndex {
  let index = junctionIndexes.get(network);
  if (!index) junctionIndexes.set(network, (index = new JunctionIndex(network)));
  return index;
}

/** One edge of the route with what guidance reads of it. */
interface Piece {
  edge: RouteEdge;
  tags: Record<string, string>;
  coords: [number, number][];
  /** The junction node the piece ends at, or -1 when it ends mid-segment (at a waypoint). */
  endNode: number;
}

function pieceOf(network: RoadNetwork, edge: RouteEdge): Piece {
  const coords = segmentGeometry(network, edge.segment, edge.fromFraction, edge.toFraction);
  const endNode = edge.forward
    ? edge.toFraction === 1
      ? network.segmentTo[edge.segment]
      : -1
    : edge.toFraction === 0
      ? network.segmentFrom[edge.segment]
      : -1;
  return { edge, tags: network.wayTags[edge.way], coords, endNode };
}

/** The road a step follows: its name and ref, or its class when it has neither. */
function roadKey(tags: Record<string, string>): string {
  const name = tags.name ?? "";
  const ref = tags.ref ?? "";
  return name || ref ? `${name}\u0000${ref}` : `\u0001${tags.highway ?? ""}`;
}

interface Builder {
  step: GuidanceStep;
  /** The road key steps group by (for a roundabout step, the exit road's once it is left). */
  key: string;
  /** Inside a roundabout: exits passed so far, and the bearing the roundabout was entered with. */
  ring?: { exits: number; entryBearing: number; left: boolean };
}

export interface StepOptions {
  profile: Profile;
}

/**
 * The steps of every leg of `route`: a depart (or, at a via point the route turns back at, a U-turn)
 * maneuver first, an arrive last, distances and durations summing to the leg's.
 */
export function routeSteps(network: RoadNetwork, route: Route, options: StepOptions): GuidanceLeg[] {
  let arrivalBearing: number | undefined;
  return route.legs.map((leg, legIndex) => {
    const steps = legSteps(network, leg, route.waypoints[legIndex].location, route.waypoints[legIndex + 1], options, arrivalBearing);
    arrivalBearing = steps[steps.length - 1].maneuver.bearing_before;
    return { steps };
  });
}

function legSteps(
  network: RoadNetwork,
  leg: Route["legs"][number],
  start: [number, number],
  end: { location: [number, number]; input: [number, number] },
  { profile }: StepOptions,
  arrivalBearing: number | undefined,
): GuidanceStep[] {
  const index = junctionIndex(network);
  const mode = profile === "bike" ? "cycling" : "driving";
  const penalty = U_TURN_SECONDS[profile];
  const pieces = leg.edges.map((e) => pieceOf(network, e));
  const steps: GuidanceStep[] = [];
  let current: Builder | undefined;

  const open = (maneuver: Maneuver, tags: Record<string, string>, ring?: Builder["ring"]): Builder => {
    const step: GuidanceStep = {
      maneuver,
      name: tags.name ?? "",
      ...(tags.ref ? { ref: tags.ref } : {}),
      mode,
      distance: 0,
      duration: 0,
      coordinates: [maneuver.location],
      intersections: [],
      highway: tags.highway ?? "",
    };
    if (maneuver.type === "rotary" && tags.name) step.rotaryName = tags.name;
    const destinations = destinationsOf(tags);
    if (destinations && maneuver.type !== "depart") step.destinations = destinations;
    steps.push(step);
    return { step, key: roadKey(tags), ring };
  };
  const add = (b: Builder, p: Piece) => {
    b.step.distance += p.edge.distance;
    b.step.duration += p.edge.duration;
    b.step.coordinates.push(...p.coords.slice(1));
  };

  if (!pieces.length) {
    // Start and end are the same point: depart and arrive at once.
    const tags = network.wayTags[network.segmentWay[leg.edges[0]?.segment ?? 0]] ?? {};
    current = open({ type: "depart", location: start, bearing_before: 0, bearing_after: 0 }, tags);
    current.step.coordinates.push(start);
    current.step.intersections.push({ location: start, bearings: [0], entry: [true], out: 0 });
  } else {
    const first = pieces[0];
    const after = startBearing(first.coords);
    const maneuver: Maneuver = leg.uTurn
      ? { type: "continue", modifier: "uturn", location: start, bearing_before: arrivalBearing ?? (after + 180) % 360, bearing_after: after }
      : { type: "depart", location: start, bearing_before: 0, bearing_after: after };
    // Starting on a ring is no roundabout maneuver: leaving it is told as a turn like any other.
    current = open(maneuver, first.tags);
    if (leg.uTurn) current.step.duration += penalty;
    current.step.intersections.push({ location: start, bearings: [after], entry: [true], out: 0 });
    add(current, first);
  }

  for (let i = 1; i < pieces.length; i++) {
    const prev = pieces[i - 1],
      cur = pieces[i];
    const node = prev.endNode;
    const location = prev.coords[prev.coords.length - 1];
    const before = endBearing(prev.coords);
    const after = startBearing(cur.coords);
    const exits = node >= 0 ? index.exits(node, profile) : [];
    const intersection = intersectionAt(location, exits, prev.edge, cur.edge);
    const uTurn = cur.edge.segment === prev.edge.segment && cur.edge.forward !== prev.edge.forward;
    const angle = turnAngle(before, after);
    // Roads the route could have taken instead (not the one it came by, not the one it takes).
    const others = exits.filter((x) => x.enterable && !sameExit(x, cur.edge) && !(x.segment === prev.edge.segment && x.forward !== prev.edge.forward));
    const b: Builder = current!;

    if (uTurn) {
      current = open({ type: "continue", modifier: "uturn", location, bearing_before: before, bearing_after: after }, cur.tags);
      current.step.duration += penalty;
    } else if (b.ring && !b.ring.left) {
      if (isRing(cur.tags)) {
        // Still on the ring: every other road the vehicle could leave by here is an exit passed.
        b.ring.exits += others.filter((x) => !isRing(x.tags)).length;
      } else {
        // Leaving the ring: the exit taken is the next one; the step goes on along the exit road.
        b.ring.left = true;
        b.step.maneuver.exit = b.ring.exits + 1;
        b.step.roundaboutTurn = turnAngle(b.ring.entryBearing, after);
        b.step.maneuver.modifier = modifierFor(b.step.roundaboutTurn);
        b.step.name = cur.tags.name ?? "";
        if (cur.tags.ref) b.step.ref = cur.tags.ref;
        else delete b.step.ref;
        b.step.highway = cur.tags.highway ?? "";
        const destinations = destinationsOf(cur.tags);
        if (destinations) b.step.destinations = destinations;
        b.key = roadKey(cur.tags);
      }
    } else if (isRing(cur.tags)) {
      // OSRM's rule: a ring with a name of its own is a rotary, named in the text; one that carries the name of the road in is a roundabout.
      const type = cur.tags.junction === "circular" || (cur.tags.name && cur.tags.name !== prev.tags.name) ? "rotary" : "roundabout";
      current = open({ type, location, bearing_before: before, bearing_after: after }, cur.tags, { exits: 0, entryBearing: before, left: false });
    } else {
      const fast = exits.filter((x) => isHighSpeed(x.tags.highway ?? "") && !sameExit(x, cur.edge));
      const maneuver = classify({ before, after, angle, prevTags: prev.tags, curTags: cur.tags, others, fast, sameRoad: roadKey(cur.tags) === b.key });
      if (maneuver) current = open({ ...maneuver, location, bearing_before: before, bearing_after: after }, cur.tags);
    }
    // Junctions where only two roads meet are not intersections a driver sees (a way ending where the next starts).
    if (current !== b || exits.length > 2) current!.step.intersections.push(intersection);
    add(current!, cur);
  }

  const last = current!.step;
  const before = pieces.length ? endBearing(pieces[pieces.length - 1].coords) : 0;
  // Where the destination lies: left or right of the road, as the traveller sees it.
  const side = sideOf(end.input, end.location, before);
  const arrive: GuidanceStep = {
    maneuver: { type: "arrive", ...(side ? { modifier: side } : {}), location: end.location, bearing_before: before, bearing_after: 0 },
    name: last.name,
    ...(last.ref ? { ref: last.ref } : {}),
    mode,
    distance: 0,
    duration: 0,
    coordinates: [end.location, end.location],
    intersections: [{ location: end.location, bearings: [(before + 180) % 360], entry: [true], in: 0 }],
    highway: last.highway,
  };
  steps.push(arrive);
  // The engine's leg totals come from the search; the steps' from the edges. Float noise goes to the last step.
  const travelled = steps.slice(0, -1);
  travelled[travelled.length - 1].duration += leg.duration - travelled.reduce((t, s) => t + s.duration, 0);
  travelled[travelled.length - 1].distance += leg.distance - travelled.reduce((t, s) => t + s.distance, 0);
  return steps;
}

/** OSM's `destination:ref` and `destination` (`;`-separated) as OSRM writes them: "E 45: Centrum, Hisingen". */
function destinationsOf(tags: Record<string, string>): string | undefined {
  const places = tags.destination
    ?.split(";")
    .map((p) => p.trim())
    .filter(Boolean)
    .join(", ");
  const ref = tags["destination:ref"]
    ?.split(";")
    .map((p) => p.trim())
    .filter(Boolean)
    .join(", ");
  if (ref && places) return `${ref}: ${places}`;
  return places || ref || undefined;
}

function sameExit(x: Exit, e: RouteEdge): boolean {
  return x.segment === e.segment && x.forward === e.forward;
}

/** OSRM's intersection object at a junction the route passes from `inEdge` to `outEdge`. */
function intersectionAt(location: [number, number], exits: Exit[], inEdge: RouteEdge, outEdge: RouteEdge): Intersection {
  const sorted = [...exits].sort((a, b) => a.bearing - b.bearing);
  const inIndex = sorted.findIndex((x) => x.segment === inEdge.segment && x.forward !== inEdge.forward);
  const outIndex = sorted.findIndex((x) => sameExit(x, outEdge));
  return {
    location,
    bearings: sorted.map((x) => x.bearing),
    entry: sorted.map((x) => x.enterable),
    ...(inIndex >= 0 ? { in: inIndex } : {}),
    ...(outIndex >= 0 ? { out: outIndex } : {}),
  };
}

interface Junction {
  before: number;
  after: number;
  angle: number;
  prevTags: Record<string, string>;
  curTags: Record<string, string>;
  others: Exit[];
  /** Motorway or trunk roads at the junction other than the one taken (entering or not). */
  fast: Exit[];
  sameRoad: boolean;
}

/**
 * Which side a ramp leaves or joins the motorway on. Leaving: the ramp is right of the carriageway
 * going on ahead when it turns further right. Joining: it comes in from the right when, looking back,
 * it lies right of the carriageway behind (the traveller's right, seen from behind, is counter-clockwise).
 * Without the carriageway in the data, right-hand traffic's usual sides: off right, merge left.
 */
function rampSide(j: Junction, joining: boolean): Modifier {
  if (!joining) {
    const ahead = j.fast.filter((x) => Math.abs(turnAngle(j.before, x.bearing)) < 90);
    if (!ahead.length) return "slight right";
    const main = ahead.reduce((a, b) => (Math.abs(turnAngle(j.before, b.bearing)) < Math.abs(turnAngle(j.before, a.bearing)) ? b : a));
    return j.angle >= turnAngle(j.before, main.bearing) ? "slight right" : "slight left";
  }
  const back = (j.after + 180) % 360;
  const behind = j.fast.filter((x) => Math.abs(turnAngle(back, x.bearing)) < 90);
  if (!behind.length) return "slight left";
  const main = behind.reduce((a, b) => (Math.abs(turnAngle(back, b.bearing)) < Math.abs(turnAngle(back, a.bearing)) ? b : a));
  const rampFromRight = turnAngle(back, (j.before + 180) % 360) < turnAngle(back, main.bearing);
  return rampFromRight ? "slight left" : "slight right";
}

/** The maneuver at a junction off a roundabout, or null when the route just goes on along its road. */
function classify(j: Junction): { type: ManeuverType; modifier: Modifier } | null {
  const modifier = modifierFor(j.angle);
  const prevHighway = j.prevTags.highway ?? "",
    curHighway = j.curTags.highway ?? "";
  if (!isLink(prevHighway) && isLink(curHighway) && !isHighSpeed(prevHighway) && isHighSpeed(curHighway.replace(/_link$/, "")))
    return { type: "on ramp", modifier: modifier === "straight" ? (j.angle >= 0 ? "slight right" : "slight left") : modifier };
  if (isHighSpeed(prevHighway) && isLink(curHighway))
    return { type: "off ramp", modifier: modifier === "straight" || modifier.startsWith("slight") ? rampSide(j, false) : modifier };
  if (isLink(prevHighway) && isHighSpeed(curHighway)) return { type: "merge", modifier: rampSide(j, true) };
  const aheadOthers = j.others.filter((x) => Math.abs(turnAngle(j.before, x.bearing)) < AHEAD);
  if (j.sameRoad) {
    // Staying on the road: only a turn where another road meets needs telling.
    if (Math.abs(j.angle) >= STAY_TURN && j.others.length) return { type: "continue", modifier };
    return null;
  }
  if (Math.abs(j.angle) < AHEAD) {
    if (aheadOthers.length) {
      // Two roads go on ahead: say which branch, relative to the other.
      const other = aheadOthers.reduce((a, b) => (Math.abs(turnAngle(j.before, b.bearing)) < Math.abs(turnAngle(j.before, a.bearing)) ? b : a));
      return { type: "fork", modifier: j.angle >= turnAngle(j.before, other.bearing) ? "slight right" : "slight left" };
    }
    return { type: "new name", modifier };
  }
  // A turn where the road in does not go on (a T-junction): the road ends here.
  const roadGoesOn = j.others.some((x) => roadKey(x.tags) === roadKey(j.prevTags)) || aheadOthers.length > 0;
  if (!roadGoesOn && j.others.length) return { type: "end of road", modifier };
  return { type: "turn", modifier };
}

/** Which side of the road (travelling at `heading`) `input` lies, or undefined when it is on the road. */
function sideOf(input: [number, number], onRoad: [number, number], heading: number): Modifier | undefined {
  if (haversineMeters(input[0], input[1], onRoad[0], onRoad[1]) < 1) return undefined;
  const angle = turnAngle(heading, bearing(onRoad, input));
  if (Math.abs(angle) < 10 || Math.abs(angle) > 170) return "straight";
  return angle > 0 ? "right" : "left";
}
