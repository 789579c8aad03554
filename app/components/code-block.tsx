// A dark code panel with an optional caption and a copy button, as in API docs. The code itself is
// plain selectable text, so it is useful without JavaScript and to screen readers.
import { CopyButton } from "./copy-button.tsx";

export type CodeBlockProps = {
  code: string;
  /** Shown in the panel's top bar, e.g. "Shell" or "Response". */
  caption?: string;
  /** Accessible name of the copy action, e.g. "Copy gateway address". */
  copyLabel?: string;
  copyable?: boolean;
  className?: string;
  /** Wrap long lines instead of scrolling (addresses, keys). */
  wrap?: boolean;
};

export function CodeBlock({ code, caption, copyLabel = "Copy", copyable = true, className = "", wrap = false }: CodeBlockProps) {
  const pre = (
    <pre
      className={`overflow-x-auto px-4 py-3 font-mono text-[13px] leading-relaxed ${wrap ? "break-all whitespace-pre-wrap" : ""} ${caption ? "" : "min-w-0 flex-1"}`}
      tabIndex={0}
    >
      <code>{code}</code>
    </pre>
  );
  const frame = `overflow-hidden rounded-xl border border-code-line bg-code-bg text-code-fg shadow-sm ${className}`;
  // Without a caption (a one-line address, say) the copy button sits beside the code.
  if (!caption) {
    return (
      <figure className={`flex items-center gap-2 pr-2 ${frame}`}>
        {pre}
        {copyable ? <CopyButton text={code} label={copyLabel} /> : null}
      </figure>
    );
  }
  return (
    <figure className={frame}>
      <figcaption className="flex min-h-9 items-center justify-between gap-2 border-b border-code-line px-3 text-xs text-code-muted">
        <span className="font-medium">{caption}</span>
        {copyable ? <CopyButton text={code} label={copyLabel} /> : null}
      </figcaption>
      {pre}
    </figure>
  );
}
