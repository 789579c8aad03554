// Marks an external listing (a self-hosted L402 gateway listed by its operator, spec 2.5) wherever
// an API is shown, in words so it never depends on colour.
export function ExternalBadge({ className = "" }: { className?: string }) {
  return (
    <span
      className={`inline-flex items-center rounded-full border border-amber-300 bg-amber-50 px-2 py-0.5 text-xs font-medium text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200 ${className}`}
      title="An independently operated L402 gateway, listed by its operator"
    >
      External
    </span>
  );
}
