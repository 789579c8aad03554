"use client";
// The description and tags fields a workspace is described with, shared by the create form and
// the settings profile form (same limits and error placement as the API's schemas).
import type { ReactNode } from "react";
import { listFieldError, type FieldErrors } from "./api-client.ts";
import { Field } from "./field.tsx";

/** "weather, maps ," → ["weather", "maps"]: what the API's `tags` takes. */
export function parseTagList(text: string): string[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

export function DescriptionField({
  id,
  value,
  onChange,
  error,
  hint,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: ReactNode;
}) {
  return (
    <Field id={id} label="Description" error={error} hint={hint}>
      {(control) => <textarea {...control} className="input-field min-h-20" value={value} onChange={(e) => onChange(e.target.value)} maxLength={1000} />}
    </Field>
  );
}

/** The tags input; an error on the list or on any one tag (`tags.3`) shows under it. */
export function TagsField({
  id,
  value,
  onChange,
  errors,
  hint,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  errors: FieldErrors;
  hint: ReactNode;
}) {
  const error = listFieldError(errors, "tags");
  return (
    <Field id={id} label="Tags" error={error} hint={hint}>
      {(control) => <input {...control} className="input-field" value={value} onChange={(e) => onChange(e.target.value)} autoComplete="off" />}
    </Field>
  );
}
