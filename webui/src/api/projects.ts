import { request } from './client';
import type { CreateProjectBody, Health, Me, Project, Template } from './types';

export const getHealth = () => request<Health>('GET', '/api/health');
export const getMe = () => request<Me>('GET', '/api/auth/me');
export const listTemplates = () => request<Template[]>('GET', '/api/templates');
export const listProjects = () => request<Project[]>('GET', '/api/projects');

export const createProject = (body: CreateProjectBody) =>
  request<Project>('POST', '/api/projects', { json: body });

/** A playground project from an uploaded `.zip` of its folder (docs/playground.md). */
export const createProjectFromZip = (name: string, zip: Blob, git = true) =>
  request<Project>('POST', '/api/projects/zip', { query: { name, git }, body: zip });

export const renameProject = (pid: string, name: string) =>
  request<Project>('PATCH', `/api/projects/${pid}`, { json: { name } });

export const deleteProject = (pid: string, deleteFiles: boolean) =>
  request<void>('DELETE', `/api/projects/${pid}`, { query: { delete_files: deleteFiles } });

export const projectUrl = (pid: string) => `/p/${encodeURIComponent(pid)}`;
