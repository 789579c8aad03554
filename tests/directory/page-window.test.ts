// The directory's pagination bar: first, last, the current page and its neighbours.
import { describe, expect, it } from "vitest";
import { pageWindow } from "@/app/components/page-window.ts";

describe("pageWindow", () => {
  it.each([
    [1, 1, [1]],
    [1, 2, [1, 2]],
    [1, 5, [1, 2, null, 5]],
    [3, 5, [1, 2, 3, 4, 5]],
    [5, 20, [1, null, 4, 5, 6, null, 20]],
    [20, 20, [1, null, 19, 20]],
    [4, 20, [1, 2, 3, 4, 5, null, 20]],
    [17, 20, [1, null, 16, 17, 18, 19, 20]],
  ])("page %i of %i shows %j", (current, last, expected) => {
    expect(pageWindow(current, last)).toEqual(expected);
  });
});
