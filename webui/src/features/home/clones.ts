// The home page's user socket (/api/ws): clone progress, and what happens when a clone ends.
import type { components } from '../../api/schema.gen';
import type { ChannelEvent } from '../../api/types';
import { notify } from '../../ui/toast';
import { ProjectSocket } from '../../ws/socket';
import { openProjectTab } from './NewProject';
import { cloneSteps, projects, refreshProjects, startedHere, type CloneStep } from './store';

type CloneFailed = components['schemas']['CloneFailed'];


function forget(pid: string): void {
  const { [pid]: _gone, ...rest } = cloneSteps.value;
  cloneSteps.value = rest;
}

/** The names a failure lists: a clone_failed event carries its error's fields (`files`, `objects`). */
function listedNames(data: CloneFailed, key: 'files' | 'objects'): string[] {
  const value = data[key];
  return Array.isArray(value) ? value.map(String) : [];
}

function failure(data: CloneFailed): string {
  const name = projects.value?.find((p) => p.id === data.project)?.name ?? 'the project';
  const files = listedNames(data, 'files');
  const listed = files.length ? files : listedNames(data, 'objects');
  const more = listed.length ? `: ${listed.slice(0, 10).join(', ')}${listed.length > 10 ? ', …' : ''}` : '';
  return `Cloning ${name} failed: ${data.detail}${more}`;
}

async function onEvent(msg: ChannelEvent<'projects'>): Promise<void> {
  if (msg.type === 'clone_progress') {
    const { project, phase, done, total, bytes_per_second, text } = msg.data;
    cloneSteps.value = { ...cloneSteps.value, [project]: { phase, done, total, bytes_per_second, text } };
    return;
  }
  if (msg.type === 'clone_failed') notify(failure(msg.data));
  forget(msg.data.project);
  await refreshProjects();
  if (msg.type === 'clone_done' && startedHere.delete(msg.data.project)) openProjectTab(msg.data.project);
}

/** Connect the user socket; returns a function that closes it. */
export function watchClones(): () => void {
  const socket = new ProjectSocket('/api/ws');
  const off = socket.on('projects', (msg) => void onEvent(msg));
  socket.connect();
  return () => {
    off();
    socket.close();
  };
}

const PHASES: Record<string, string> = {
  counting: 'Counting objects', compressing: 'Compressing objects', receiving: 'Receiving objects',
  resolving: 'Resolving deltas', checkout: 'Checking out files',
};

function rate(bytes: number | null): string {
  if (!bytes) return '';
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? ` · ${mib.toFixed(1)} MiB/s` : ` · ${(bytes / 1024).toFixed(0)} KiB/s`;
}

/** "Receiving objects 45% (450/1000) · 1.2 MiB/s" */
export function describeStep(step: CloneStep | undefined): string {
  if (!step) return 'Starting…';
  const percent = step.total ? Math.floor((100 * step.done) / step.total) : 0;
  return `${PHASES[step.phase] ?? step.phase} ${percent}% (${step.done}/${step.total})${rate(step.bytes_per_second)}`;
}
