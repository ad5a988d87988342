import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { listProjects, listTemplates } from '../../api/projects';
import type { Project, Template } from '../../api/types';

export const projects = signal<Project[] | null>(null);
export const templates = signal<Template[]>([]);
export const loadError = signal<string | null>(null);

export async function refreshProjects(): Promise<void> {
  try {
    projects.value = await listProjects();
    loadError.value = null;
  } catch (err) {
    loadError.value = errorMessage(err);
  }
}

export async function loadTemplates(): Promise<void> {
  try {
    templates.value = await listTemplates();
  } catch (err) {
    loadError.value = errorMessage(err);
  }
}
