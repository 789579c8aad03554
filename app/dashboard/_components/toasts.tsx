"use client";
// Toasts: short messages in a polite live region (errors assertive), dismissable, at most three,
// gone after 4 s (errors 8 s).
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";

type Toast = { id: number; kind: "error" | "success"; message: string };
type ToastApi = { error: (message: string) => void; success: (message: string) => void };

const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error("useToast outside ToastProvider");
  return api;
}

let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (kind: Toast["kind"], message: string) => {
      const id = nextId++;
      setToasts((list) => [...list.slice(-2), { id, kind, message }]);
      setTimeout(() => dismiss(id), kind === "error" ? 8_000 : 4_000);
    },
    [dismiss],
  );
  const api = useMemo<ToastApi>(() => ({ error: (m) => push("error", m), success: (m) => push("success", m) }), [push]);
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="pointer-events-none fixed inset-x-0 bottom-4 z-50 flex flex-col items-center gap-2 px-4 sm:items-end sm:px-6">
        {(["error", "success"] as const).map((kind) => (
          <div
            key={kind}
            role={kind === "error" ? "alert" : "status"}
            aria-live={kind === "error" ? "assertive" : "polite"}
            className="flex w-full flex-col items-center gap-2 sm:items-end"
          >
            {toasts
              .filter((t) => t.kind === kind)
              .map((t) => (
                <div
                  key={t.id}
                  className={`pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-lg border px-4 py-3 text-sm shadow-lg ${
                    t.kind === "error" ? "border-danger/40 bg-danger-soft text-danger" : "border-success/40 bg-success-soft text-success"
                  }`}
                >
                  <p className="flex-1">{t.message}</p>
                  <button
                    type="button"
                    onClick={() => dismiss(t.id)}
                    className="rounded px-1 text-xs font-medium opacity-80 hover:opacity-100"
                    aria-label="Dismiss"
                  >
                    ✕
                  </button>
                </div>
              ))}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
