"use client";
// The dashboard's mutations: TanStack Query's useMutation with the one way a failed API call is
// reported. A 422's field errors (or a 409 naming a field) go inline to the form that sent them;
// anything else becomes an error toast.
import { useMutation, type UseMutationOptions, type UseMutationResult } from "@tanstack/react-query";
import { inlineFieldErrors, type FieldErrors } from "./api-client.ts";
import { useToast } from "./toasts.tsx";

/** useMutation's options plus where field errors go; `onError` still runs first (roll back, close a confirmation). */
export type ApiMutationOptions<TData, TVariables, TContext> = UseMutationOptions<TData, Error, TVariables, TContext> & {
  /** Shows the API's field errors inline (a form's setErrors); without it every failure is a toast. */
  onFieldErrors?: (fields: FieldErrors) => void;
  /** A 409 that names no field is shown on this field (what made it a duplicate, e.g. an endpoint's `path`). */
  conflictField?: string;
};

/** useMutation for the platform API: failures go to the form's fields or to a toast, never nowhere. */
export function useApiMutation<TData = unknown, TVariables = void, TContext = unknown>({
  onFieldErrors,
  conflictField,
  onError,
  ...options
}: ApiMutationOptions<TData, TVariables, TContext>): UseMutationResult<TData, Error, TVariables, TContext> {
  const toast = useToast();
  return useMutation({
    ...options,
    onError: (error, variables, onMutateResult, context) => {
      void onError?.(error, variables, onMutateResult, context);
      const fields = onFieldErrors ? inlineFieldErrors(error, conflictField) : null;
      if (fields && onFieldErrors) onFieldErrors(fields);
      else toast.error(error.message);
    },
  });
}
