// Types for osrm-text-instructions@0.15.0 (the package ships none): the parts guidance/ uses.
declare module "osrm-text-instructions" {
  interface OsrmStep {
    name?: string;
    ref?: string;
    mode?: string;
    driving_side?: string;
    rotary_name?: string;
    destinations?: string;
    exits?: string;
    junction_name?: string;
    intersections?: unknown[];
    maneuver: { type: string; modifier?: string; bearing_after?: number; exit?: number };
  }
  interface CompileOptions {
    legIndex?: number;
    legCount?: number;
    classes?: string[];
    waypointName?: string;
    formatToken?: (token: string, value: string) => string;
  }
  interface TextInstructions {
    compile(language: string, step: OsrmStep, options?: CompileOptions): string;
    tokenize(language: string, instruction: string, tokens: Record<string, string | undefined>, options?: CompileOptions): string;
    ordinalize(language: string, n: number): string;
    directionFromDegree(language: string, degree: number): string;
    getWayName(language: string, step: OsrmStep, options?: CompileOptions): string;
  }
  export default function osrmTextInstructions(version: "v5"): TextInstructions;
}

declare module "osrm-text-instructions/languages.js" {
  /** Per language code, per version: the phrase tables (`phrase`, `arrive`, `constants`, …). */
  const languages: {
    supportedCodes: string[];
    instructions: Record<string, { meta: Record<string, unknown>; v5: Record<string, Record<string, unknown>> }>;
  };
  export default languages;
}
