import { errorMessage } from '../../api/client';
import { deleteProject, projectUrl, renameProject } from '../../api/projects';
import type { Project } from '../../api/types';
import { confirmDialog, promptDialog } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { describeStep } from './clones';
import { openProjectTab } from './NewProject';
import { cloneSteps, loadError, projects, refreshProjects } from './store';

async function rename(project: Project): Promise<void> {
  const name = await promptDialog('Rename project', 'New name', project.name, 'Rename');
  if (!name || name === project.name) return;
  try {
    await renameProject(project.id, name);
    await refreshProjects();
  } catch (err) {
    notify(errorMessage(err));
  }
}

async function remove(project: Project): Promise<void> {
  const answer = await confirmDialog(
    `Remove "${project.name}"?`,
    'The project leaves the list. Its files stay on disk unless you tick the box.',
    { confirm: 'Remove', danger: true, option: 'Also delete the files' },
  );
  if (!answer.ok) return;
  try {
    await deleteProject(project.id, answer.option);
    await refreshProjects();
  } catch (err) {
    notify(errorMessage(err));
  }
}

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

async function cancelClone(project: Project): Promise<void> {
  try {
    // Deleting a project that is still cloning stops the transfer and removes its folder.
    await deleteProject(project.id, true);
  } catch (err) {
    notify(errorMessage(err));
  }
  await refreshProjects();
}

function CloningRow({ project }: { project: Project }) {
  const step = cloneSteps.value[project.id];
  return (
    <tr data-testid="project-row" data-project-id={project.id} data-project-name={project.name} data-state="cloning">
      <td title={project.name}>{project.name}</td>
      <td colSpan={3}>
        <div class="clone-progress" data-testid="clone-progress">
          <progress max={step?.total || 1} value={step?.done ?? 0} style={{ width: '100%' }} />
          <small class="muted" data-testid="clone-progress-text">{describeStep(step)}</small>
        </div>
      </td>
      <td class="row-actions">
        <button class="btn btn-small btn-danger-ghost" data-testid="clone-cancel" onClick={() => cancelClone(project)}>Cancel</button>
      </td>
    </tr>
  );
}

function ProjectRow({ project }: { project: Project }) {
  if (project.state === 'cloning') return <CloningRow project={project} />;
  const open = (ev: MouseEvent) => {
    ev.preventDefault();
    openProjectTab(project.id);
  };
  return (
    <tr data-testid="project-row" data-project-id={project.id} data-project-name={project.name}>
      <td title={project.name}>
        <a href={projectUrl(project.id)} target="_blank" rel="noopener" class="project-name" data-testid="project-open" onClick={open}>
          {project.name}
        </a>
      </td>
      <td class="muted mono" title={project.path}>{project.path}</td>
      <td class="muted">{project.template ?? '—'}</td>
      <td class="muted">{formatDate(project.created_at)}</td>
      <td class="row-actions">
        <button class="btn btn-small" data-testid="project-rename" onClick={() => rename(project)}>Rename</button>
        <button class="btn btn-small btn-danger-ghost" data-testid="project-remove" onClick={() => remove(project)}>Remove</button>
      </td>
    </tr>
  );
}

export function ProjectList() {
  const list = projects.value;
  return (
    <section class="card grow" data-testid="project-list">
      <h2>Projects</h2>
      {loadError.value && <div class="form-error">{loadError.value}</div>}
      {list === null ? (
        <p class="muted">Loading…</p>
      ) : list.length === 0 ? (
        <p class="muted" data-testid="no-projects">No projects yet — create one on the right.</p>
      ) : (
        <table class="table">
          <colgroup>
            <col class="col-name" /><col /><col class="col-template" /><col class="col-created" /><col class="col-actions" />
          </colgroup>
          <thead>
            <tr><th>Name</th><th>Folder</th><th>Template</th><th>Created</th><th /></tr>
          </thead>
          <tbody>
            {list.map((p) => <ProjectRow key={p.id} project={p} />)}
          </tbody>
        </table>
      )}
    </section>
  );
}
