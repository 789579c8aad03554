// Which language instruction text is written in: the requested BCP 47 tag matched against the
// languages osrm-text-instructions@0.15.0 ships, English when none fits (the answer says which).
import languages from "osrm-text-instructions/languages.js";
import { z } from "zod";

/** Language codes instruction text is available in (osrm-text-instructions' translations). */
export const INSTRUCTION_LANGUAGES: readonly string[] = languages.supportedCodes;

/** Tags that name a shipped translation by another code. */
const ALIASES: Record<string, string> = {
  zh: "zh-Hans",
  "zh-cn": "zh-Hans",
  "zh-sg": "zh-Hans",
  nb: "no",
  nn: "no",
  pt: "pt-BR",
};

/**
 * A language tag: a 2–3 letter language and up to three subtags (`sv`, `sv-SE`, `pt_BR`, `zh-Hans-CN`).
 * Anything else (a path, markup, 50 characters) is refused with a 400 rather than silently read as English.
 */
export const localeSchema = z
  .string()
  .max(35, "a language tag is at most 35 characters")
  .regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$/, "must be a language tag such as en, sv or sv-SE")
  .default("en")
  .meta({
    description:
      "Language of instruction text (BCP 47, e.g. `sv` or `sv-SE`). Supported: " +
      "ar, ca, da, de, en, eo, es, es-ES, fi, fr, he, hu, id, it, ja, ko, my, nl, no, pl, pt-BR, pt-PT, ro, ru, sl, sv, tr, uk, vi, yo, zh-Hans; " +
      "any other well-formed tag falls back to English",
    example: "sv",
  });

/** The shipped language a tag resolves to; `fallback` when none fits and English is used. */
export function resolveLocale(tag: string): { language: string; fallback: boolean } {
  const lower = tag.replace(/_/g, "-").toLowerCase();
  const exact = INSTRUCTION_LANGUAGES.find((code) => code.toLowerCase() === lower) ?? ALIASES[lower];
  if (exact) return { language: exact, fallback: false };
  const parts = lower.split("-");
  // zh-Hans-CN, zh-Hant…: only simplified Chinese is shipped, so only a Hans script matches it.
  if (parts[0] === "zh")
    return parts.includes("hans") || parts.includes("cn") || parts.includes("sg")
      ? { language: "zh-Hans", fallback: false }
      : { language: "en", fallback: true };
  for (let n = parts.length - 1; n >= 1; n--) {
    const prefix = parts.slice(0, n).join("-");
    const match = INSTRUCTION_LANGUAGES.find((code) => code.toLowerCase() === prefix) ?? ALIASES[prefix];
    if (match) return { language: match, fallback: false };
  }
  return { language: "en", fallback: true };
}
