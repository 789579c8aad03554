"use client";
// A value only the browser can tell (an API it offers, an extension it has injected), read during
// render without a second render: the server, and hydration, see `serverValue`, the browser
// `read()` from then on. `read` must return a primitive (it is compared between renders).
import { useSyncExternalStore } from "react";

const neverChanges = () => () => {};

export function useBrowserValue<T extends string | number | boolean | null>(read: () => T, serverValue: T): T {
  return useSyncExternalStore(neverChanges, read, () => serverValue);
}
