// Instruction text for guidance steps, written by osrm-text-instructions from the OSRM v5 step shape
// (maneuver type and modifier, road name and ref, roundabout exit), in a language locale.ts resolved.
import osrmTextInstructions, { type OsrmStep } from "osrm-text-instructions";
import languages from "osrm-text-instructions/languages.js";
import type { GuidanceStep } from "./maneuvers.ts";

const text = osrmTextInstructions("v5");

/** Where the step sits in its route: arrival text names the nth of several destinations. */
export interface LegPosition {
  legIndex: number;
  legCount: number;
}

/** The OSRM v5 step osrm-text-instructions reads. Every maneuver but depart and arrive needs a modifier. */
function osrmStep(step: GuidanceStep): OsrmStep {
  const { type, modifier, bearing_after, exit } = step.maneuver;
  return {
    name: step.name,
    ref: step.ref,
    mode: step.mode,
    driving_side: "right",
    rotary_name: step.rotaryName,
    destinations: step.destinations,
    maneuver: { type, modifier: modifier ?? (type === "depart" || type === "arrive" ? undefined : "straight"), bearing_after, exit },
  };
}

/** The instruction for a step's maneuver ("Turn left onto Kungsgatan", "Sväng vänster in på Kungsgatan"). */
export function instructionText(step: GuidanceStep, language: string, position: LegPosition): string {
  return text.compile(language, osrmStep(step), { ...position, classes: step.highway === "motorway" ? ["motorway"] : [] });
}

/** The arrival announced ahead of time ("You will arrive at your destination"). */
export function upcomingArrivalText(step: GuidanceStep, language: string, position: LegPosition): string {
  const arrive = languages.instructions[language].v5.arrive as Record<string, Record<string, string>>;
  const phrase = (arrive[step.maneuver.modifier ?? "default"] ?? arrive.default).upcoming;
  const nth = position.legIndex !== position.legCount - 1 ? text.ordinalize(language, position.legIndex + 1) : "";
  return text.tokenize(language, phrase, { nth });
}

/** A phrase of the language's `phrase` table ("one in distance", "two linked", …) with its tokens filled. */
export function linkPhrase(language: string, name: "one in distance" | "two linked" | "two linked by distance", tokens: Record<string, string>): string {
  const phrases = languages.instructions[language].v5.phrase as Record<string, string>;
  const inner = Object.fromEntries(Object.entries(tokens).map(([k, v]) => [k, k.startsWith("instruction_") ? midSentence(language, v) : v]));
  return text.tokenize(language, phrases[name] ?? (languages.instructions.en.v5.phrase as Record<string, string>)[name], inner);
}

/** An instruction placed inside a sentence loses the capital the library gave it as a sentence start. */
function midSentence(language: string, instruction: string): string {
  if (!languages.instructions[language].meta.capitalizeFirstLetter) return instruction;
  return instruction.charAt(0).toLocaleLowerCase(language) + instruction.slice(1);
}

/** A distance as spoken: tens of meters below 100 m, fifties below a kilometre, then tenths of a kilometre. */
export function spokenDistance(meters: number, language: string): string {
  if (meters >= 1000) return unitFormat(language, "kilometer").format(Math.round(meters / 100) / 10);
  return unitFormat(language, "meter").format(meters < 100 ? Math.max(10, Math.round(meters / 10) * 10) : Math.round(meters / 50) * 50);
}

/** Building a formatter costs far more than using one: one per language and unit. */
const formats = new Map<string, Intl.NumberFormat>();
function unitFormat(language: string, unit: "meter" | "kilometer"): Intl.NumberFormat {
  const key = `${language}:${unit}`;
  let format = formats.get(key);
  // Intl knows Norwegian as nb (Bokmål); the translation's code is "no".
  if (!format)
    formats.set(
      key,
      (format = new Intl.NumberFormat(language === "no" ? "nb" : language, { style: "unit", unit, unitDisplay: "long", maximumFractionDigits: 1 })),
    );
  return format;
}
