// Team mode: who is signed in, signing out, project members, users and personal API tokens.
import { request } from './client';

export type TeamRole = 'admin' | 'member';
export type ProjectRole = 'owner' | 'editor' | 'viewer';
export const PROJECT_ROLES: readonly ProjectRole[] = ['owner', 'editor', 'viewer'];

export interface Account {
  id: string;
  name: string;
  mode: 'local' | 'team';
  role: TeamRole;
}

export interface Member {
  user: string;
  role: ProjectRole;
}

export interface UserInfo {
  name: string;
  role: TeamRole;
  created_at: string;
}

export interface ApiToken {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedToken extends ApiToken {
  token: string;
}

export const getAccount = () => request<Account>('GET', '/api/auth/me');
export const logout = (everywhere: boolean) => request<void>('POST', '/api/auth/logout', { json: { everywhere } });
export const listUsers = () => request<UserInfo[]>('GET', '/api/users');

const memberPath = (pid: string, user: string) =>
  `/api/projects/${encodeURIComponent(pid)}/members/${encodeURIComponent(user)}`;

export const listMembers = (pid: string) => request<Member[]>('GET', `/api/projects/${encodeURIComponent(pid)}/members`);
export const setMember = (pid: string, user: string, role: ProjectRole) =>
  request<Member>('PUT', memberPath(pid, user), { json: { role } });
export const removeMember = (pid: string, user: string) => request<void>('DELETE', memberPath(pid, user));

export const listTokens = () => request<ApiToken[]>('GET', '/api/auth/tokens');
export const createToken = (name: string) => request<CreatedToken>('POST', '/api/auth/tokens', { json: { name } });
export const revokeToken = (id: string) => request<void>('DELETE', `/api/auth/tokens/${encodeURIComponent(id)}`);
