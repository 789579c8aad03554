// Polls one of an API page's free previews (GET /api/directory/:slug/preview/:kind) while the page
// is visible: the first answer, then one every `intervalMs`; a failure keeps the last good answer
// and says so. The server shares each answer among visitors for 10 s (lib/previews).
import { useEffect, useState } from "react";

export type PreviewState<T> = { data: T | null; error: string | null; loading: boolean; updatedAt: number | null };

export function usePreview<T>(slug: string, kind: "chart" | "verdict", intervalMs: number): PreviewState<T> {
  const [state, setState] = useState<PreviewState<T>>({ data: null, error: null, loading: true, updatedAt: null });
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    async function poll() {
      try {
        const res = await fetch(`/api/directory/${encodeURIComponent(slug)}/preview/${kind}`, { signal: controller.signal, cache: "no-store" });
        const body = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
        if (!res.ok || body === null) throw new Error(body?.error?.message ?? `The preview answered status ${res.status}`);
        if (!stopped) setState({ data: body, error: null, loading: false, updatedAt: Date.now() });
      } catch (err) {
        if (stopped || controller.signal.aborted) return;
        setState((s) => ({ ...s, loading: false, error: err instanceof Error ? err.message : String(err) }));
      }
      if (!stopped) timer = setTimeout(tick, intervalMs);
    }
    // A hidden tab stops asking; it catches up when shown again.
    function tick() {
      if (document.visibilityState === "hidden") timer = setTimeout(tick, intervalMs);
      else void poll();
    }
    void poll();
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
    };
  }, [slug, kind, intervalMs]);
  return state;
}
