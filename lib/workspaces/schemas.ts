// Workspace resource as the dashboard uses it: creation by a signed-in user, the live slug check,
// the workspace list, and members with their roles and pending invitations. The API routes and the
// dashboard forms import the same schemas.
import { z } from "zod";
import { slugSchema, tagsSchema, tenantDescriptionSchema, tenantNameSchema } from "@/lib/tenants/schemas.ts";

/** POST /api/tenants: the signed-in user becomes the owner. */
export const workspaceCreateSchema = z.strictObject({
  slug: slugSchema,
  name: tenantNameSchema,
  description: tenantDescriptionSchema.optional(),
  tags: tagsSchema.optional(),
});
export type WorkspaceCreate = z.output<typeof workspaceCreateSchema>;

/** GET /api/tenants/slug-availability?slug= */
export const slugAvailabilityQuerySchema = z.object({ slug: z.string().max(200) });

/** Whether a slug can be taken now; `reason` says why not (format, reserved or taken). */
export const slugAvailabilitySchema = z.object({ slug: z.string(), available: z.boolean(), reason: z.string().optional() });
export type SlugAvailability = z.output<typeof slugAvailabilitySchema>;

export const memberRoleSchema = z.enum(["owner", "member"]);
export type MemberRole = z.output<typeof memberRoleSchema>;

const isoDate = z.date().transform((d) => d.toISOString());

/** One of the signed-in user's workspaces (GET /api/tenants, the switcher). */
export const workspaceSummarySchema = z.object({ id: z.string(), slug: z.string(), name: z.string(), role: memberRoleSchema });
export type WorkspaceSummary = z.output<typeof workspaceSummarySchema>;
export const workspaceListSchema = z.object({ workspaces: z.array(workspaceSummarySchema) });

/** POST /api/tenants/:tenantId/members */
export const memberInviteSchema = z.strictObject({
  email: z
    .email("must be an e-mail address")
    .max(320)
    .transform((e) => e.trim().toLowerCase()),
  role: memberRoleSchema.default("member"),
});
export type MemberInvite = z.output<typeof memberInviteSchema>;

/** PATCH /api/tenants/:tenantId/members/:userId */
export const memberUpdateSchema = z.strictObject({ role: memberRoleSchema });

export const memberSchema = z.object({
  userId: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  role: memberRoleSchema,
  joinedAt: isoDate,
});
export type Member = z.output<typeof memberSchema>;
/** A member as lib functions return it (dates as Date). */
export type MemberRow = z.input<typeof memberSchema>;

export const invitationSchema = z.object({ id: z.string(), email: z.string(), role: memberRoleSchema, createdAt: isoDate });
export type Invitation = z.output<typeof invitationSchema>;
export type InvitationRow = z.input<typeof invitationSchema>;

/** GET /api/tenants/:tenantId/members */
export const membersResponseSchema = z.object({ members: z.array(memberSchema), invitations: z.array(invitationSchema) });
export type MembersResponse = z.output<typeof membersResponseSchema>;

/** POST …/members answers with what happened: an existing user joined, or an invitation waits. */
export const memberInviteResultSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("member"), member: memberSchema }),
  z.object({ kind: z.literal("invitation"), invitation: invitationSchema }),
]);
