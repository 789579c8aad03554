// GET|POST /api/auth/*: Auth.js sign-in, callback, session and sign-out endpoints.
import { handlers } from "../../../../lib/auth/next-auth.ts";

export const { GET, POST } = handlers;
