// GET|POST /api/auth/*: Auth.js sign-in, callback, session and sign-out endpoints.
import { authRouteHandlers } from "@/lib/auth/next-auth.ts";

export const { GET, POST } = authRouteHandlers;
