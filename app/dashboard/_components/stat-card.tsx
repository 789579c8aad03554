// One figure in a <dl> of totals: a card with its label, value and an optional hint.
export function StatCard({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div role="group" aria-label={label} className="card flex flex-col gap-1 p-4">
      <dt className="text-xs font-medium text-muted">{label}</dt>
      <dd className="text-xl font-semibold tabular-nums">{value}</dd>
      {hint ? <dd className="text-xs text-muted">{hint}</dd> : null}
    </div>
  );
}
