// The directory query schema (spec 4.3 bounds) and the lenient parse the HTML pages use.
import { describe, expect, it } from "vitest";
import { directoryQuerySchema, parseDirectoryQueryLenient } from "./schemas.ts";

describe("directoryQuerySchema", () => {
  it("defaults to page 1, limit 50, relevance", () => {
    expect(directoryQuerySchema.parse({})).toEqual({ page: 1, limit: 50, sort: "relevance" });
  });

  it("coerces URL strings and trims text, treating empty text as absent", () => {
    expect(directoryQuerySchema.parse({ page: "3", limit: "10", sort: "recent", search: "  maps  ", tag: "" })).toEqual({
      page: 3,
      limit: 10,
      sort: "recent",
      search: "maps",
    });
  });

  it.each([
    [{ page: "0" }, "page"],
    [{ page: "1001" }, "page"],
    [{ page: "1.5" }, "page"],
    [{ limit: "0" }, "limit"],
    [{ limit: "51" }, "limit"],
    [{ sort: "popular" }, "sort"],
    [{ search: "x".repeat(201) }, "search"],
  ])("rejects %j naming %s", (input, field) => {
    const parsed = directoryQuerySchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path[0])).toEqual([field]);
  });

  it("accepts the bounds", () => {
    expect(directoryQuerySchema.parse({ page: "1000", limit: "50" })).toMatchObject({ page: 1000, limit: 50 });
    expect(directoryQuerySchema.parse({ page: "1", limit: "1" })).toMatchObject({ page: 1, limit: 1 });
  });
});

describe("parseDirectoryQueryLenient", () => {
  it("drops only the invalid parameters", () => {
    expect(parseDirectoryQueryLenient({ page: "abc", sort: "recent", search: "maps", limit: "999" })).toEqual({
      page: 1,
      limit: 50,
      sort: "recent",
      search: "maps",
    });
  });

  it("takes the first of repeated parameters and ignores unknown ones", () => {
    expect(parseDirectoryQueryLenient({ tag: ["geo", "maps"], utm_source: "x" })).toEqual({
      page: 1,
      limit: 50,
      sort: "relevance",
      tag: "geo",
    });
  });

  it("applies the page's own defaults to absent or invalid parameters only", () => {
    expect(parseDirectoryQueryLenient({}, { limit: 24 })).toMatchObject({ limit: 24 });
    expect(parseDirectoryQueryLenient({ limit: "999" }, { limit: 24 })).toMatchObject({ limit: 24 });
    expect(parseDirectoryQueryLenient({ limit: "10" }, { limit: 24 })).toMatchObject({ limit: 10 });
    expect(parseDirectoryQueryLenient({ limit: "50" }, { limit: 24 })).toMatchObject({ limit: 50 });
  });
});
