// Team mode: who is signed in, signing out, project members, users and personal API tokens.
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type TeamRole = 'admin' | 'member';
export type ProjectRole = 'owner' | 'editor' | 'viewer';
export const PROJECT_ROLES: readonly ProjectRole[] = ['owner', 'editor', 'viewer'];
/** A role as the API sends it (a string), if it is one of a project's. */
export const asProjectRole = (role: string): ProjectRole | null => PROJECT_ROLES.find((r) => r === role) ?? null;

export type Account = Schemas['UserPublic'];

export type Member = Schemas['MemberPublic'];

export type UserInfo = Schemas['UserInfo'];

export type ApiToken = Schemas['TokenPublic'];

export type CreatedToken = Schemas['TokenCreated'];

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
