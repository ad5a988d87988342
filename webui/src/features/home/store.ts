import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { listProjects, listTemplates } from '../../api/projects';
import type { Project, Template } from '../../api/types';

export const projects = signal<Project[] | null>(null);
export const templates = signal<Template[]>([]);
export const loadError = signal<string | null>(null);

/** The last progress report of each clone in progress (user socket, channel "projects"). */
export interface CloneStep {
  phase: string;
  done: number;
  total: number;
  bytes_per_second: number | null;
  text: string;
}
export const cloneSteps = signal<Record<string, CloneStep>>({});
/** Clones started from this page: they open in their own tab when done. */
export const startedHere = new Set<string>();

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
