import { z } from 'zod';
import { IdSchema, MAX_NAME_CHARS, RoleSchema, TimestampSchema } from '../common';

const ProjectNameSchema = z.string().trim().min(1).max(MAX_NAME_CHARS);
const ProjectDescriptionSchema = z.string().max(10_000);

export const ProjectSchema = z.object({
  id: IdSchema,
  name: z.string(),
  description: z.string().nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  /** the caller's role; absent when an administrator sees a project without being a member */
  role: RoleSchema.optional(),
  /** how many of its runs may hold a worker at once; null: no limit (decision 0037) */
  max_running: z.int().min(1).nullable(),
});
export type Project = z.infer<typeof ProjectSchema>;

/** GET /projects: a plain array of the projects the caller may see. */
export const ProjectListSchema = z.array(ProjectSchema);

/** A soft-deleted project as administrators see it (GET /admin/deleted-projects). */
export const DeletedProjectSchema = z.object({
  id: IdSchema,
  name: z.string(),
  description: z.string().nullable(),
  created_at: TimestampSchema,
  deleted_at: TimestampSchema,
  /** where its files went: `<data>/archive/<id>-<time>` or an `s3://bucket/prefix` URL */
  archive_path: z.string().nullable(),
  /** how many runs it has (they are readable again once it is restored) */
  workflow_count: z.int().min(0),
});
export type DeletedProject = z.infer<typeof DeletedProjectSchema>;
export const DeletedProjectListSchema = z.array(DeletedProjectSchema);

export const CreateProjectRequestSchema = z
  .object({ name: ProjectNameSchema, description: ProjectDescriptionSchema.optional() })
  .strict();
export type CreateProjectRequest = z.infer<typeof CreateProjectRequestSchema>;

export const MAX_RUNNING_LIMIT = 10_000;

export const PatchProjectRequestSchema = z
  .object({
    name: ProjectNameSchema.optional(),
    description: ProjectDescriptionSchema.optional(),
    /** owners only; null removes the limit */
    max_running: z.int().min(1).max(MAX_RUNNING_LIMIT).nullable().optional(),
  })
  .strict()
  .refine((b) => b.name !== undefined || b.description !== undefined || b.max_running !== undefined, {
    message: 'give at least one of name, description, max_running',
  });
export type PatchProjectRequest = z.infer<typeof PatchProjectRequestSchema>;

export const MemberSchema = z.object({
  user_id: IdSchema,
  login: z.string(),
  name: z.string().nullable().optional(),
  role: RoleSchema,
  created_at: TimestampSchema,
});
export type Member = z.infer<typeof MemberSchema>;

/** GET /projects/{id}/members: a plain array. */
export const MemberListSchema = z.array(MemberSchema);

export const AddMemberRequestSchema = z
  .object({ login: z.string().trim().min(1).max(MAX_NAME_CHARS), role: RoleSchema })
  .strict();
export type AddMemberRequest = z.infer<typeof AddMemberRequestSchema>;

/**
 * An outstanding invitation: the answer (202) of POST /projects/{id}/members and an entry of GET
 * /projects/{id}/pending-invitations. The same shape whether or not anyone has signed in with the login,
 * so a project owner cannot tell which logins exist (docs/security.md, "Member consent"). The invitee
 * becomes a member by accepting it (GET /invitations), at once or after their first sign-in.
 */
export const PendingInvitationSchema = z.object({
  pending: z.literal(true),
  login: z.string(),
  role: RoleSchema,
  /** the inviting owner's login */
  invited_by: z.string().nullable(),
  created_at: TimestampSchema,
});
export type PendingInvitation = z.infer<typeof PendingInvitationSchema>;
export const PendingInvitationListSchema = z.array(PendingInvitationSchema);

/** The answer of POST /projects/{id}/members: one shape for every login (see PendingInvitationSchema). */
export const AddMemberResponseSchema = PendingInvitationSchema;
export type AddMemberResponse = PendingInvitation;

/**
 * How an invitation names an invitee the server cannot look up, as `<kind>:<value>` in the `login` of
 * POST /projects/{id}/members and of the pending list: an identity proven at sign-in.
 */
export const IDENTITY_INVITEE_KINDS = ['oauth2', 'sso', 'email'] as const;
/** The prefix under which the pending list names an invitation link (`link:<id>`). */
export const INVITATION_LINK_PREFIX = 'link:';

/** POST /projects/{id}/invitation-links: a single-use link for whoever the owner hands it to. */
export const InvitationLinkRequestSchema = z.object({ role: RoleSchema }).strict();
export type InvitationLinkRequest = z.infer<typeof InvitationLinkRequestSchema>;

/**
 * A new invitation link (201): listed among the outstanding invitations as `link:<id>`; `token` is
 * shown only here (the server keeps its hash) and is accepted once, until `expires_at`.
 */
export const InvitationLinkSchema = PendingInvitationSchema.extend({
  token: z.string(),
  expires_at: TimestampSchema,
});
export type InvitationLink = z.infer<typeof InvitationLinkSchema>;

/** POST /invitations/accept-link: join with an invitation link's token. */
export const AcceptInvitationLinkRequestSchema = z.object({ token: z.string().trim().min(1).max(200) }).strict();
export type AcceptInvitationLinkRequest = z.infer<typeof AcceptInvitationLinkRequestSchema>;
/** Its answer (201): the new membership and the project it is in, which the token alone does not name. */
export const AcceptInvitationLinkResponseSchema = MemberSchema.extend({ project_id: IdSchema });
export type AcceptInvitationLinkResponse = z.infer<typeof AcceptInvitationLinkResponseSchema>;

/** GET /invitations: the caller's pending invitations. */
export const InvitationSchema = z.object({
  project_id: IdSchema,
  project_name: z.string(),
  role: RoleSchema,
  invited_by: z.string().nullable(),
  created_at: TimestampSchema,
});
export type Invitation = z.infer<typeof InvitationSchema>;
export const InvitationListSchema = z.array(InvitationSchema);

export const PatchMemberRequestSchema = z.object({ role: RoleSchema }).strict();
export type PatchMemberRequest = z.infer<typeof PatchMemberRequestSchema>;
