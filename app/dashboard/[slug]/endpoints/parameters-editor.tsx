"use client";
// A small table editor of an endpoint's documented parameters: one row per parameter, keyboard
// friendly (every cell is a labelled control), errors from the API schema shown on their cell.
import { PARAMETER_LOCATIONS, PARAMETER_TYPES } from "@/lib/endpoints/schemas.ts";
import { newParameter, type DraftErrors, type ParameterDraft } from "./endpoint-draft.ts";

type Props = {
  parameters: ParameterDraft[];
  /** `{name}` segments of the current path: required string parameters even when not declared. */
  pathParams: string[];
  errors: DraftErrors;
  onChange: (parameters: ParameterDraft[]) => void;
};

export function ParametersEditor({ parameters, pathParams, errors, onChange }: Props) {
  const set = (index: number, patch: Partial<ParameterDraft>) => onChange(parameters.map((p, i) => (i === index ? { ...p, ...patch } : p)));
  const undeclared = pathParams.filter((name) => !parameters.some((p) => p.in === "path" && p.name === name));
  return (
    <fieldset className="flex flex-col gap-3">
      <legend className="text-sm font-medium">Parameters</legend>
      <p className="text-xs text-muted">
        Documented in the directory, the OpenAPI document and MCP tools.{" "}
        {undeclared.length ? (
          <>
            Path parameters {undeclared.map((n) => `{${n}}`).join(", ")} come from the path as required strings; add them here (in: path) only to give a type or
            description.
          </>
        ) : null}
      </p>
      {parameters.length ? (
        <div className="overflow-x-auto">
          <table className="w-full min-w-[40rem] text-sm">
            <thead>
              <tr className="text-left text-xs text-muted">
                <th scope="col" className="pb-1 font-medium">
                  Name
                </th>
                <th scope="col" className="pb-1 font-medium">
                  In
                </th>
                <th scope="col" className="pb-1 font-medium">
                  Type
                </th>
                <th scope="col" className="pb-1 font-medium">
                  Required
                </th>
                <th scope="col" className="pb-1 font-medium">
                  Description
                </th>
                <th scope="col" className="pb-1 font-medium">
                  <span className="sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {parameters.map((p, i) => {
                const nameError = errors[`parameters.${i}.name`];
                const rowError = nameError ?? errors[`parameters.${i}.required`] ?? errors[`parameters.${i}.description`] ?? errors[`parameters.${i}`];
                const label = `parameter ${i + 1}`;
                return (
                  <tr key={p.key} className="align-top">
                    <td className="py-1 pr-2">
                      <input
                        aria-label={`Name of ${label}`}
                        className="input-field font-mono"
                        value={p.name}
                        onChange={(e) => set(i, { name: e.target.value })}
                        aria-invalid={Boolean(nameError)}
                        aria-describedby={rowError ? `param-${p.key}-error` : undefined}
                        autoComplete="off"
                        spellCheck={false}
                      />
                      {rowError ? (
                        <p id={`param-${p.key}-error`} className="mt-1 text-xs text-danger">
                          {rowError}
                        </p>
                      ) : null}
                    </td>
                    <td className="py-1 pr-2">
                      <select
                        aria-label={`Location of ${label}`}
                        className="input-field"
                        value={p.in}
                        onChange={(e) => set(i, { in: e.target.value as ParameterDraft["in"], required: e.target.value === "path" ? true : p.required })}
                      >
                        {PARAMETER_LOCATIONS.map((l) => (
                          <option key={l}>{l}</option>
                        ))}
                      </select>
                    </td>
                    <td className="py-1 pr-2">
                      <select
                        aria-label={`Type of ${label}`}
                        className="input-field"
                        value={p.type}
                        onChange={(e) => set(i, { type: e.target.value as ParameterDraft["type"] })}
                      >
                        {PARAMETER_TYPES.map((t) => (
                          <option key={t}>{t}</option>
                        ))}
                      </select>
                    </td>
                    <td className="py-1 pr-2 text-center">
                      <input
                        type="checkbox"
                        aria-label={`${label} is required`}
                        className="mt-2.5"
                        checked={p.in === "path" || p.required}
                        disabled={p.in === "path"}
                        title={p.in === "path" ? "Path parameters are always required" : undefined}
                        onChange={(e) => set(i, { required: e.target.checked })}
                      />
                    </td>
                    <td className="py-1 pr-2">
                      <input
                        aria-label={`Description of ${label}`}
                        className="input-field"
                        value={p.description}
                        maxLength={500}
                        onChange={(e) => set(i, { description: e.target.value })}
                      />
                    </td>
                    <td className="py-1">
                      <button
                        type="button"
                        className="btn-secondary px-2.5"
                        aria-label={`Remove ${label}`}
                        onClick={() => onChange(parameters.filter((_, j) => j !== i))}
                      >
                        ✕
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      <div>
        <button type="button" className="btn-secondary" onClick={() => onChange([...parameters, newParameter()])} disabled={parameters.length >= 50}>
          Add parameter
        </button>
      </div>
      {errors.parameters ? <p className="text-sm text-danger">{errors.parameters}</p> : null}
    </fieldset>
  );
}
