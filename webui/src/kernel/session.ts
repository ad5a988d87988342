// The project this tab works on and its websocket: one of each per browser tab.
import type { Project } from '../api/types';
import { ProjectSocket } from '../ws/socket';

export interface Session {
  project: Project;
  socket: ProjectSocket;
  /** The folder held a Git repository when the page loaded. */
  hasGit: boolean;
}

let current: Session | null = null;

export function startSession(project: Project, wsPath: string, hasGit = true): Session {
  current = { project, socket: new ProjectSocket(wsPath), hasGit };
  return current;
}

export function session(): Session {
  if (!current) throw new Error('no project session');
  return current;
}

export const pid = (): string => session().project.id;
