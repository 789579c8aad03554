// Links into the directory page that keep the current filters and leave defaults out of the URL,
// so every state of the page has one canonical address.
import type { DirectoryQuery } from "@/lib/directory/schemas.ts";

export type DirectoryLinkState = Partial<Pick<DirectoryQuery, "search" | "tag" | "sort" | "page" | "limit">>;

export function directoryHref(state: DirectoryLinkState, defaults: { limit: number }): string {
  const params = new URLSearchParams();
  if (state.search) params.set("search", state.search);
  if (state.tag) params.set("tag", state.tag);
  if (state.sort && state.sort !== "relevance") params.set("sort", state.sort);
  if (state.limit && state.limit !== defaults.limit) params.set("limit", String(state.limit));
  if (state.page && state.page > 1) params.set("page", String(state.page));
  const qs = params.toString();
  return qs ? `/directory?${qs}` : "/directory";
}
