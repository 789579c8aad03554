// The product mark: a lightning bolt in a rounded square. Inline so it follows the colour scheme.
export function LogoMark({ className = "size-7" }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" className="fill-foreground" />
      <path d="M18.2 5 9 18h6.1L13.6 27 23 13.6h-6.2L18.2 5Z" className="fill-accent-ring" />
    </svg>
  );
}
