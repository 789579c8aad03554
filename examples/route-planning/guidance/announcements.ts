// Banner and voice instructions in the Mapbox Directions v5 shape. Both belong to a step but tell of
// the maneuver that ENDS it (the next step's), and `distanceAlongGeometry` is the distance left to
// that maneuver when the instruction should show or be spoken, as the navigation SDKs read it.
import { type LegPosition, instructionText, linkPhrase, spokenDistance, upcomingArrivalText } from "./instructions.ts";
import type { GuidanceStep, ManeuverType, Modifier } from "./maneuvers.ts";

export interface VoiceInstruction {
  distanceAlongGeometry: number;
  announcement: string;
  ssmlAnnouncement: string;
}

export interface BannerComponent {
  text: string;
  type: "text" | "delimiter";
}

export interface BannerText {
  text: string;
  type: ManeuverType;
  modifier?: Modifier;
  /** Roundabouts: degrees travelled round the ring to the exit (counter-clockwise, right-hand traffic). */
  degrees?: number;
  driving_side?: "right";
  components: BannerComponent[];
}

export interface BannerInstruction {
  distanceAlongGeometry: number;
  primary: BannerText;
}

/** When to speak, before the maneuver at the step's own speed: an early warning, and the final call. */
const FAR_SECONDS = 40;
const NEAR_SECONDS = 8;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const r1 = (v: number) => Math.round(v * 10) / 10;

/** Amazon Polly's SSML, as Mapbox sends it: dynamic range compression and a slightly faster rate. */
export function ssml(announcement: string): string {
  const escaped = announcement.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
  return `<speak><amazon:effect name="drc"><prosody rate="1.08">${escaped}</prosody></amazon:effect></speak>`;
}

function voice(distance: number, announcement: string): VoiceInstruction {
  return { distanceAlongGeometry: r1(distance), announcement, ssmlAnnouncement: ssml(announcement) };
}

/** What a step's maneuver is called in speech and banners: the arrival ahead of time is "You will arrive". */
function maneuverText(step: GuidanceStep, language: string, position: LegPosition, ahead: boolean): string {
  return step.maneuver.type === "arrive" && ahead ? upcomingArrivalText(step, language, position) : instructionText(step, language, position);
}

/**
 * Voice instructions of steps[i] of a leg (none for the arrive step): the first step of a leg opens
 * with its own instruction; a long step warns FAR_SECONDS ahead ("In 300 meters, turn left"); every
 * step ends with the next maneuver NEAR_SECONDS ahead, chained with the one after when that follows
 * closely ("Turn left, then turn right").
 */
export function voiceInstructions(steps: GuidanceStep[], i: number, language: string, position: LegPosition): VoiceInstruction[] {
  const step = steps[i],
    next = steps[i + 1];
  if (!next) return [];
  const speed = step.duration > 0 ? step.distance / step.duration : 8;
  const far = clamp(speed * FAR_SECONDS, 100, 2000);
  const near = Math.min(step.distance, clamp(speed * NEAR_SECONDS, 20, 150));
  const out: VoiceInstruction[] = [];
  const nextText = maneuverText(next, language, position, true);
  if (i === 0) {
    const own = instructionText(step, language, position);
    // A short first step tells its end at once: "Head north on Vasagatan, then, in 200 meters, turn left".
    if (step.distance <= far + near) {
      // Under 20 m the distance is not worth saying: "Head north on Vasagatan, then you will arrive…".
      const linked =
        step.distance < 20
          ? linkPhrase(language, "two linked", { instruction_one: own, instruction_two: nextText })
          : linkPhrase(language, "two linked by distance", {
              instruction_one: own,
              instruction_two: nextText,
              distance: spokenDistance(step.distance, language),
            });
      out.push(voice(step.distance, linked));
      if (step.distance > 2 * near) out.push(voice(near, finalText(steps, i, language, position, near)));
      return out;
    }
    out.push(voice(step.distance, own));
  }
  // The early warning: FAR_SECONDS ahead, or near the start of a step too short for that.
  const warnAt = Math.min(far, step.distance * 0.9);
  if (warnAt > 2 * near && warnAt > 100)
    out.push(voice(warnAt, linkPhrase(language, "one in distance", { instruction_one: nextText, distance: spokenDistance(warnAt, language) })));
  out.push(voice(near, finalText(steps, i, language, position, near)));
  return out;
}

/** The announcement right before the maneuver ending steps[i], joined with the next when it comes within `near`. */
function finalText(steps: GuidanceStep[], i: number, language: string, position: LegPosition, near: number): string {
  const next = steps[i + 1],
    after = steps[i + 2];
  const nextText = maneuverText(next, language, position, false);
  if (!after || next.distance >= Math.max(near, 40)) return nextText;
  return linkPhrase(language, "two linked", { instruction_one: nextText, instruction_two: maneuverText(after, language, position, true) });
}

/**
 * The banner of steps[i] (none for the arrive step): shown from the step's start, it names the road
 * the next maneuver leads onto, or the instruction itself when that road has no name or ref.
 */
export function bannerInstructions(steps: GuidanceStep[], i: number, language: string, position: LegPosition): BannerInstruction[] {
  const step = steps[i],
    next = steps[i + 1];
  if (!next) return [];
  const { type, modifier } = next.maneuver;
  const components: BannerComponent[] = [];
  if (next.maneuver.type !== "arrive" || next.name || next.ref) {
    if (next.name) components.push({ text: next.name, type: "text" });
    if (next.name && next.ref) components.push({ text: "/", type: "delimiter" });
    if (next.ref) components.push({ text: next.ref, type: "text" });
  }
  if (!components.length) components.push({ text: maneuverText(next, language, position, true), type: "text" });
  const primary: BannerText = {
    text: components.map((c) => c.text).join(" "),
    type,
    ...(modifier ? { modifier } : {}),
    components,
  };
  if (next.roundaboutTurn !== undefined) {
    // Counter-clockwise round the ring (right-hand traffic): a right turn is a quarter, straight on half.
    const turn = next.roundaboutTurn;
    primary.degrees = Math.round((((180 - turn) % 360) + 360) % 360) || 360;
    primary.driving_side = "right";
  }
  return [{ distanceAlongGeometry: r1(step.distance), primary }];
}
