// The "new project" card: from a template, from an existing folder, cloned from Git, or a
// playground folder uploaded as a zip.
import { useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { createProject, createProjectFromZip, projectUrl } from '../../api/projects';
import type { CreateProjectBody } from '../../api/types';
import { refreshProjects, startedHere, templates } from './store';

type Source = 'template' | 'folder' | 'git' | 'zip';

const SOURCES: { id: Source; label: string }[] = [
  { id: 'template', label: 'From template' },
  { id: 'folder', label: 'Open folder' },
  { id: 'git', label: 'Clone from Git' },
  { id: 'zip', label: 'Upload zip' },
];

export function openProjectTab(pid: string): void {
  // noopener: the new tab starts its own session storage, hence its own client id.
  window.open(projectUrl(pid), '_blank', 'noopener');
}

function bodyFor(source: Source, name: string, template: string, location: string, git: boolean): CreateProjectBody {
  if (source === 'folder') return { name, path: location };
  if (source === 'git') return { name, git_url: location };
  return { name, template, git };
}

/** The name a Git URL or folder suggests: its last segment without `.git` (`team/repo.git` → `repo`). */
export function nameFrom(location: string): string {
  const last = location.trim().replace(/[/\\]+$/, '').split(/[/\\:]/).pop() ?? '';
  return last.replace(/\.git$/i, '');
}

export function NewProject() {
  const [source, setSource] = useState<Source>('template');
  const [name, setName] = useState('');
  const [template, setTemplate] = useState('');
  const [location, setLocation] = useState('');
  const [zip, setZip] = useState<File | null>(null);
  // A new project from a template or a zip is a Git repository with an initial commit unless unticked.
  const [track, setTrack] = useState(true);
  // Until the person types a name, the URL or folder names the project.
  const [nameTyped, setNameTyped] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const chosen = template || templates.value[0]?.name || '';
  const needsLocation = source === 'folder' || source === 'git';

  const submit = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = source === 'zip'
        ? await createProjectFromZip(name.trim(), zip!, track)
        : await createProject(bodyFor(source, name.trim(), chosen, location.trim(), track));
      setName('');
      setLocation('');
      setNameTyped(false);
      // The new project opens in its own tab, as a click on its row would; a clone once it is done.
      if (created.state === 'cloning') startedHere.add(created.id);
      else openProjectTab(created.id);
      await refreshProjects();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" data-testid="new-project">
      <h2>New project</h2>
      <div class="segmented" role="tablist">
        {SOURCES.map((s) => (
          <button key={s.id} type="button" role="tab" aria-selected={source === s.id} class={source === s.id ? 'active' : ''}
            data-testid={`source-${s.id}`} onClick={() => { setSource(s.id); setError(null); }}>
            {s.label}
          </button>
        ))}
      </div>
      <form onSubmit={submit} class="form">
        <label class="field">
          <span>Name</span>
          <input data-testid="new-project-name" value={name} placeholder="my-model" required onInput={(ev) => { setName(ev.currentTarget.value); setNameTyped(ev.currentTarget.value !== ''); }} />
        </label>
        {source === 'template' && (
          <div class="field">
            <span>Template</span>
            <div class="template-list" role="radiogroup">
              {templates.value.map((t) => (
                <label key={t.name} class={chosen === t.name ? 'template selected' : 'template'} data-testid={`template-${t.name}`}>
                  <input type="radio" name="template" value={t.name} checked={chosen === t.name} onChange={() => setTemplate(t.name)} />
                  <strong>{t.title}</strong>
                  <small>{t.description}</small>
                </label>
              ))}
            </div>
          </div>
        )}
        {needsLocation && (
          <label class="field">
            <span>{source === 'folder' ? 'Folder path on the server' : 'Git URL'}</span>
            <input data-testid="new-project-location" value={location} required
              placeholder={source === 'folder' ? '/home/me/code/my-model' : 'https://example.com/team/repo.git'}
              onInput={(ev) => {
                setLocation(ev.currentTarget.value);
                if (!nameTyped) setName(nameFrom(ev.currentTarget.value));
              }} />
          </label>
        )}
        {source === 'zip' && (
          <label class="field">
            <span>A playground folder as .zip (app.mnnplayground at its root or in its one folder)</span>
            <input type="file" accept=".zip,application/zip" data-testid="new-project-zip" required
              onChange={(ev) => {
                const file = ev.currentTarget.files?.[0] ?? null;
                setZip(file);
                if (file && !nameTyped) setName(file.name.replace(/\.zip$/i, ''));
              }} />
          </label>
        )}
        {(source === 'template' || source === 'zip') && (
          <label class="checkbox">
            <input type="checkbox" data-testid="new-project-git" checked={track} onChange={(ev) => setTrack(ev.currentTarget.checked)} />
            Track with Git (a repository with an initial commit of the files)
          </label>
        )}
        {error && <div class="form-error" data-testid="new-project-error">{error}</div>}
        <div class="form-actions">
          <button class="btn btn-primary" type="submit" disabled={busy || !name.trim() || (source === 'zip' && !zip)} data-testid="new-project-submit">
            {source === 'git' ? 'Clone' : source === 'folder' ? 'Open' : source === 'zip' ? 'Upload' : 'Create'}
          </button>
        </div>
      </form>
    </section>
  );
}
