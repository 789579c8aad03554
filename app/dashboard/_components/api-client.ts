// The dashboard's one way to call the platform API: JSON in and out, same-origin cookies, and the
// API's error body turned into an ApiError whose `fields` feed inline form errors.

export type FieldErrors = Record<string, string>;

/** The error of a list field, or of any of its items (the API names a bad item `tags.3`). */
export function listFieldError(errors: FieldErrors, name: string): string | undefined {
  return errors[name] ?? Object.entries(errors).find(([k]) => k.startsWith(`${name}.`))?.[1];
}

/**
 * A failed API call: `fields` maps a field name to its message (422 `details.fields`, or 409 naming
 * one); `details` is the error's raw details for callers that show more (the import's operations).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldErrors = {},
    readonly details: unknown = undefined,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * What a form shows inline for a failed call: the fields the API named (422 `details.fields`), or a
 * 409 that names none on `conflictField`; null when nothing belongs on a field (show a toast).
 */
export function inlineFieldErrors(error: unknown, conflictField?: string): FieldErrors | null {
  if (!(error instanceof ApiError)) return null;
  if (Object.keys(error.fields).length) return error.fields;
  return conflictField && error.status === 409 ? { [conflictField]: error.message } : null;
}

function fieldsOf(details: unknown): FieldErrors {
  const list = (details as { fields?: unknown })?.fields;
  if (!Array.isArray(list)) return {};
  const out: FieldErrors = {};
  for (const item of list) {
    const { field, message } = item as { field?: unknown; message?: unknown };
    if (typeof field === "string" && typeof message === "string" && !(field in out)) out[field] = message;
  }
  return out;
}

/** Calls `/api${path}`; resolves with the JSON body (null for 204) or throws ApiError. */
export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api${path}`, {
      method: init.method ?? "GET",
      headers: init.body === undefined ? undefined : { "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: "same-origin",
      signal: init.signal,
    });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new ApiError(0, "network", "The server could not be reached; check your connection and try again");
  }
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
    throw new ApiError(res.status, error?.code ?? "error", error?.message ?? `Request failed (${res.status})`, fieldsOf(error?.details), error?.details);
  }
  return json as T;
}
