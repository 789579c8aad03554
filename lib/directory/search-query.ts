// Directory search (spec 4.3 `search`): PostgreSQL full-text search over the weighted document the
// directory_search migration keeps in Tenant.searchVector, with prefix matching for words still
// being typed and pg_trgm similarity for misspelt names. Runs unchanged on PGlite.
//
// Rules (docs/decisions.md, Directory):
// - The search is split into words on anything that is not a letter or digit ("/v1/candles" is
//   "v1 candles"); at most 8 words of at most 64 characters count. A search without any word
//   matches nothing.
// - An API matches when every word occurs in its document, either as the same english stem
//   ("routes" finds "route") or as the start of a word ("cand" finds "candles"); or when the whole
//   search is similar to its name (trigrams, at least 4 characters: "markte intel").
// - Relevance = ts_rank with weights name/slug 1.0, tags 0.4, description 0.2, endpoints 0.1,
//   plus 1 for an exact name or slug, plus half the trigram similarity to the name.
import { Prisma } from "@/lib/db/client.ts";

/** At most this many words of a search are used; the rest add cost, not precision. */
export const maxSearchWords = 8;
/** Longer "words" are pasted tokens, not words; they are cut so the tsquery stays small. */
const maxWordLength = 64;
/** Below this length trigram similarity matches almost anything. */
const minFuzzyLength = 4;

/** The words of a search, lowercased: letters and digits only, so they are safe inside to_tsquery. */
export function searchWords(search: string | undefined): string[] {
  if (!search) return [];
  return search
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, maxSearchWords)
    .map((word) => word.slice(0, maxWordLength));
}

/** A parsed search: the words, and the raw text the fuzzy name match compares with. */
export type DirectorySearch = { words: string[]; text: string };

/** Parses the `search` parameter; null when there is nothing to search for. */
export function parseSearch(search: string | undefined): DirectorySearch | null {
  const text = (search ?? "").trim();
  if (!text) return null;
  return { words: searchWords(text), text: text.slice(0, 200) };
}

/** tsquery: each word as its english stem OR as a prefix, all words required. */
function tsQuery(words: string[]): Prisma.Sql {
  return Prisma.join(
    words.map((word) => Prisma.sql`(to_tsquery('english', ${word}) || to_tsquery('simple', ${`${word}:*`}))`),
    " && ",
  );
}

function fuzzy(search: DirectorySearch): boolean {
  return search.text.length >= minFuzzyLength;
}

/** WHERE fragment for a search, on "Tenant" aliased `t`. */
export function searchCondition(search: DirectorySearch): Prisma.Sql {
  if (search.words.length === 0) return Prisma.sql`false`;
  const text = Prisma.sql`t."searchVector" @@ (${tsQuery(search.words)})`;
  return fuzzy(search) ? Prisma.sql`(${text} OR t."name" % ${search.text})` : text;
}

/** Relevance score of a matching tenant (higher is better); see the file comment. */
export function searchRank(search: DirectorySearch): Prisma.Sql {
  // A constant, not the literal 0: `ORDER BY 0` would mean "the select list's column 0".
  if (search.words.length === 0) return Prisma.sql`CAST(0 AS float8)`;
  const exact = Prisma.sql`CASE WHEN lower(t."name") = lower(${search.text}) OR t."slug" = lower(${search.text}) THEN 1 ELSE 0 END`;
  const rank = Prisma.sql`ts_rank('{0.1, 0.2, 0.4, 1.0}', t."searchVector", (${tsQuery(search.words)}))`;
  return fuzzy(search) ? Prisma.sql`(${rank} + ${exact} + similarity(t."name", ${search.text}) * 0.5)` : Prisma.sql`(${rank} + ${exact})`;
}
