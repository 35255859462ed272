import type { Project as ProjectRow, ProjectMember, User } from '@svc/db';
import type { Member, Project, Role } from '@svc/protocol';

/** A project as its caller sees it; `role` only when the caller is a member. */
export function presentProject(project: ProjectRow, role: Role | null): Project {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    created_at: project.created_at.toISOString(),
    updated_at: project.updated_at.toISOString(),
    max_running: project.max_running,
    ...(role ? { role } : {}),
  };
}

/** What a member row is loaded with for presentMember. */
export const MEMBER_USER = { user: { select: { login: true, name: true } } } as const;

export function presentMember(member: ProjectMember & { user: Pick<User, 'login' | 'name'> }): Member {
  return {
    user_id: member.user_id,
    login: member.user.login,
    name: member.user.name,
    role: member.role as Role,
    created_at: member.created_at.toISOString(),
  };
}
