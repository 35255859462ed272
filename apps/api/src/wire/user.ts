import type { User } from '@svc/db';
import type { User as UserDto } from '@svc/protocol';

export function presentUser(user: User, isAdmin: boolean): UserDto {
  return {
    id: user.id,
    login: user.login,
    name: user.name,
    email: user.email,
    avatar_url: user.avatar_url,
    is_admin: isAdmin,
    created_at: user.created_at.toISOString(),
  };
}
