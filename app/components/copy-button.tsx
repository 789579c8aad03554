"use client";
// Copies a text to the clipboard. Progressive enhancement: it renders nothing until JavaScript is
// running, so a page without JavaScript shows no dead button (the code stays selectable).
import { useEffect, useState } from "react";
import { useBrowserValue } from "./use-browser-value.ts";

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const ready = useBrowserValue(() => Boolean(navigator.clipboard), false);
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");

  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  if (!ready) return null;

  return (
    <>
      <button
        type="button"
        aria-label={state === "idle" ? label : undefined}
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => setState("copied"),
            () => setState("failed"),
          );
        }}
        className="rounded-md px-2 py-1 text-xs font-medium text-code-muted transition-colors hover:bg-white/10 hover:text-code-fg"
      >
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
      </button>
      <span className="sr-only" aria-live="polite">
        {state === "copied" ? "Copied to clipboard" : ""}
      </span>
    </>
  );
}
