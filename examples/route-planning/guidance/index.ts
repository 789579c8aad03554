// Turn-by-turn guidance over engine routes: steps and maneuvers, their instruction text in many
// languages, and Mapbox-style banner and voice instructions (docs/route-planning-guidance.md).
export {
  MANEUVER_TYPES,
  MODIFIERS,
  bearing,
  modifierFor,
  routeSteps,
  turnAngle,
  type GuidanceLeg,
  type GuidanceStep,
  type Intersection,
  type Maneuver,
  type ManeuverType,
  type Modifier,
} from "./maneuvers.ts";
export { INSTRUCTION_LANGUAGES, localeSchema, resolveLocale } from "./locale.ts";
export { instructionText, spokenDistance, upcomingArrivalText, type LegPosition } from "./instructions.ts";
export { bannerInstructions, ssml, voiceInstructions, type BannerInstruction, type BannerText, type VoiceInstruction } from "./announcements.ts";
