// Where the dashboard shows a failed API call (useApiMutation): the API's named fields inline, a
// bare 409 on the form's conflict field when it has one, anything else as a toast (null here).
import { describe, expect, it } from "vitest";
import { ApiError, inlineFieldErrors } from "@/app/dashboard/_components/api-client.ts";

describe("inlineFieldErrors", () => {
  it("puts a 422's named fields inline, whatever the form's conflict field", () => {
    const invalid = new ApiError(422, "validation_error", "Invalid input", { url: "must use https", "events.2": "unknown event" });
    expect(inlineFieldErrors(invalid)).toEqual({ url: "must use https", "events.2": "unknown event" });
    expect(inlineFieldErrors(invalid, "path")).toEqual({ url: "must use https", "events.2": "unknown event" });
    expect(inlineFieldErrors(new ApiError(409, "conflict", "Taken", { slug: "is taken" }))).toEqual({ slug: "is taken" });
  });

  it("shows a 409 that names no field on the conflict field, only when the form has one", () => {
    const duplicate = new ApiError(409, "conflict", "GET /v1/quote already exists");
    expect(inlineFieldErrors(duplicate, "path")).toEqual({ path: "GET /v1/quote already exists" });
    expect(inlineFieldErrors(duplicate)).toBeNull();
  });

  it("leaves everything else to a toast", () => {
    expect(inlineFieldErrors(new ApiError(422, "validation_error", "Invalid input"))).toBeNull();
    expect(inlineFieldErrors(new ApiError(500, "internal", "Something failed"), "path")).toBeNull();
    expect(inlineFieldErrors(new ApiError(0, "network", "The server could not be reached"))).toBeNull();
    expect(inlineFieldErrors(new Error("boom"), "path")).toBeNull();
  });
});
