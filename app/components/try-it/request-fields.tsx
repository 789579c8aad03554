"use client";
// The inputs of try-it's form: one per documented path, query and header parameter (prefilled from
// the example request), the JSON body when the method takes one, and each field's problem inline.
import type { TryItForm, TryItProblem } from "@/lib/try-it/build-request.ts";

type RequestFieldsProps = {
  /** Prefix of the inputs' ids (useId of the panel). */
  uid: string;
  form: TryItForm;
  problems: TryItProblem[];
  onChange: (form: TryItForm) => void;
};

export function RequestFields({ uid, form, problems, onChange }: RequestFieldsProps) {
  const problemFor = (key: string) => problems.find((p) => p.key === key)?.message;
  const bodyProblem = problemFor("body");
  return (
    <>
      {form.fields.map((field) => {
        const id = `${uid}-${field.key}`;
        const problem = problemFor(field.key);
        return (
          <div key={field.key}>
            <label htmlFor={id} className="flex flex-wrap items-baseline gap-x-2 text-sm">
              <code className="font-mono text-[13px] font-medium">{field.name}</code>
              <span className="text-xs text-muted">
                {field.in} · {field.type}
                {field.required ? " · required" : ""}
              </span>
            </label>
            <input
              id={id}
              name={field.name}
              value={form.values[field.key] ?? ""}
              required={field.required}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-problem` : field.description ? `${id}-hint` : undefined}
              onChange={(e) => onChange({ ...form, values: { ...form.values, [field.key]: e.target.value } })}
              className="mt-1 w-full rounded-lg border border-line-strong bg-surface px-3 py-2 font-mono text-sm focus-visible:outline-2 focus-visible:outline-accent-ring"
            />
            {problem ? (
              <p id={`${id}-problem`} className="mt-1 text-xs text-rose-700 dark:text-rose-300">
                {problem}
              </p>
            ) : field.description ? (
              <p id={`${id}-hint`} className="mt-1 text-xs text-muted">
                {field.description}
              </p>
            ) : null}
          </div>
        );
      })}
      {form.body !== null ? (
        <div>
          <label htmlFor={`${uid}-body`} className="text-sm font-medium">
            JSON body
          </label>
          <textarea
            id={`${uid}-body`}
            value={form.body}
            rows={Math.min(12, Math.max(3, form.body.split("\n").length))}
            aria-invalid={bodyProblem ? true : undefined}
            aria-describedby={bodyProblem ? `${uid}-body-problem` : undefined}
            onChange={(e) => onChange({ ...form, body: e.target.value })}
            className="mt-1 w-full rounded-lg border border-line-strong bg-surface px-3 py-2 font-mono text-sm focus-visible:outline-2 focus-visible:outline-accent-ring"
          />
          {bodyProblem ? (
            <p id={`${uid}-body-problem`} className="mt-1 text-xs text-rose-700 dark:text-rose-300">
              {bodyProblem}
            </p>
          ) : null}
        </div>
      ) : null}
      {form.fields.length === 0 && form.body === null ? <p className="text-sm text-muted">This endpoint takes no parameters.</p> : null}
    </>
  );
}
