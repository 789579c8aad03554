// The review's content policy (pure): a configurable deny-list (LISTING_DENY_LIST, matched
// case-insensitively after Unicode NFKC folding, so full-width or ligature spellings match too) over
// every text a listing shows, and the sanity of its name and description. docs/decisions.md says why
// each rule exists.
import type { ListingFinding } from "./schemas.ts";

export type ListingTexts = {
  name: string;
  description: string;
  tags: string[];
  endpoints: { method: string; path: string; title: string; description: string }[];
};

/** Characters one run may repeat before the text counts as filler ("!!!!!!!!!!!!", "aaaaaaaaaaaaa"). */
export const MAX_REPEATED_CHARACTERS = 10;

const fold = (text: string) => text.normalize("NFKC").toLowerCase();

/**
 * Control characters (in a name, line breaks too) and the invisible or direction-changing format
 * characters that hide or reorder text (zero-width space, word joiner, BOM, soft hyphen, bidi
 * embeddings and isolates). ZWJ and ZWNJ stay allowed: emoji sequences and Persian or Indic
 * spelling need them.
 */
const HIDING = "\\u00AD\\u200B\\u2060\\uFEFF\\u202A-\\u202E\\u2066-\\u2069";
const CONTROL = new RegExp(`[\\p{Cc}${HIDING}]`, "u");
const CONTROL_EXCEPT_LINES = new RegExp(`[^\\P{Cc}\\n\\r\\t]|[${HIDING}]`, "u");

function sanityProblems(label: "name" | "description", text: string): string[] {
  const problems: string[] = [];
  if (label === "name" ? CONTROL.test(text) : CONTROL_EXCEPT_LINES.test(text)) problems.push(`${label} contains control or invisible formatting characters`);
  if (text && !/[\p{L}\p{N}]/u.test(text)) problems.push(`${label} has no letter or digit`);
  const run = new RegExp(`(.)\\1{${MAX_REPEATED_CHARACTERS},}`, "su").exec(text);
  if (run) problems.push(`${label} repeats "${run[1]}" more than ${MAX_REPEATED_CHARACTERS} times in a row`);
  if (label === "name" && /[a-z][a-z0-9+.-]*:\/\//i.test(text))
    problems.push("name is or holds a URL; give the API's name (the gateway URL is listed separately)");
  return problems;
}

/** Findings of the content checks: one `fail` per problem, or one `pass`. */
export function checkContentPolicy(texts: ListingTexts, denyList: readonly string[]): ListingFinding[] {
  const findings: ListingFinding[] = [];
  const fail = (message: string, endpoint: string | null = null) => findings.push({ check: "content", endpoint, outcome: "fail", message });
  for (const problem of [...sanityProblems("name", texts.name), ...sanityProblems("description", texts.description)]) fail(problem);
  if (texts.description && fold(texts.description) === fold(texts.name)) fail("description only repeats the name; say what the API does");

  const fields: { where: string; text: string; endpoint: string | null }[] = [
    { where: "name", text: texts.name, endpoint: null },
    { where: "description", text: texts.description, endpoint: null },
    ...texts.tags.map((tag) => ({ where: "tags", text: tag, endpoint: null })),
    ...texts.endpoints.flatMap((e) => [
      { where: "path", text: e.path, endpoint: `${e.method} ${e.path}` },
      { where: "title", text: e.title, endpoint: `${e.method} ${e.path}` },
      { where: "description", text: e.description, endpoint: `${e.method} ${e.path}` },
    ]),
  ];
  for (const term of denyList.map(fold).filter(Boolean)) {
    const hits = fields.filter((f) => fold(f.text).includes(term));
    for (const hit of hits) fail(`${hit.where} contains "${term}", which the platform's content policy does not allow`, hit.endpoint);
  }
  if (findings.length === 0)
    findings.push({ check: "content", endpoint: null, outcome: "pass", message: "name, description, tags and endpoint texts meet the content policy" });
  return findings;
}
