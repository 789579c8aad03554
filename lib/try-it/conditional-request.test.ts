// Try-it revalidation: which answers' ETags are kept and when a repeat sends If-None-Match.
import { describe, expect, it } from "vitest";
import { conditionalHeaders, rememberEtag } from "./conditional-request.ts";

const url = "http://127.0.0.1:8502/gw/market/v1/verdict?view=summary";

describe("try-it revalidation", () => {
  it("sends the ETag of the last 200 of the same URL on a repeat GET, and nothing before", () => {
    let etags = rememberEtag(new Map(), url, 200, 'W/"abc"');
    expect(conditionalHeaders(new Map(), "GET", url)).toEqual({});
    expect(conditionalHeaders(etags, "GET", url)).toEqual({ "if-none-match": 'W/"abc"' });
    expect(conditionalHeaders(etags, "GET", `${url}&x=1`)).toEqual({});
    expect(conditionalHeaders(etags, "POST", url)).toEqual({});
    etags = rememberEtag(etags, url, 200, 'W/"def"');
    expect(conditionalHeaders(etags, "get", url)).toEqual({ "if-none-match": 'W/"def"' });
  });

  it("keeps the ETag on a 304 and forgets it on a 402, an error or a 200 without one", () => {
    const held = rememberEtag(new Map(), url, 200, 'W/"abc"');
    expect(rememberEtag(held, url, 304, null).get(url)).toBe('W/"abc"');
    expect(rememberEtag(held, url, 402, null).has(url)).toBe(false);
    expect(rememberEtag(held, url, 500, 'W/"x"').has(url)).toBe(false);
    expect(rememberEtag(held, url, 200, null).has(url)).toBe(false);
    // The map given is never changed.
    expect(held.get(url)).toBe('W/"abc"');
  });
});
