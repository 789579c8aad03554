"use client";
// Client-side providers of the dashboard: one TanStack QueryClient per browser tab, and toasts.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { ToastProvider } from "./toasts.tsx";

export function DashboardProviders({ children }: { children: ReactNode }) {
  // Pages hand server-loaded data to queries as initial data, so nothing refetches on mount.
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 30_000, retry: 1 }, mutations: { retry: 0 } } }));
  return (
    <QueryClientProvider client={client}>
      <ToastProvider>{children}</ToastProvider>
    </QueryClientProvider>
  );
}
