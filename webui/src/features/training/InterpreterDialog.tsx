// The project's interpreter: which Python local jobs use, a path to set, and a project venv built
// from requirements.txt with its progress streamed from the server.
import { useEffect, useRef, useState } from 'preact/hooks';
import { createVenv, setRuntime, type Runtime } from '../../api/jobs';
import { Modal } from '../../ui/dialogs';
import { pid, session } from '../../kernel/session';
import { describeError } from './actions';
import { openDialog } from './dialogState';
import { loadRuntime, runtime } from './runtime';

const SOURCES: Record<Runtime['source'], string> = {
  setting: 'set for this project',
  venv: 'the project venv (.venv)',
  server: "the server's own Python",
};

function useVenvProgress(onDone: (ok: boolean, reason: string | null) => void): string[] {
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => session().socket.on('jobs', (msg) => {
    if (msg.type === 'venv.progress') setLines((prev) => [...prev.slice(-200), String(msg.data.line ?? '')]);
    else if (msg.type === 'venv.done') onDone(Boolean(msg.data.ok), (msg.data.reason as string | null) ?? null);
  }), []);
  return lines;
}

export function InterpreterDialog() {
  const [path, setPath] = useState(runtime.value?.source === 'setting' ? runtime.value.interpreter : '');
  const [inherit, setInherit] = useState(true);
  const [building, setBuilding] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const log = useRef<HTMLPreElement>(null);
  const close = () => (openDialog.value = null);
  const lines = useVenvProgress((ok, reason) => {
    setBuilding(false);
    setError(ok ? null : reason ?? 'Creating the venv failed.');
    void loadRuntime();
  });
  useEffect(() => log.current?.scrollTo(0, log.current.scrollHeight), [lines]);
  const apply = async (interpreter: string | null) => {
    try {
      runtime.value = await setRuntime(pid(), interpreter);
      setError(null);
      if (interpreter === null) setPath('');
    } catch (err) {
      setError(describeError(err));
    }
  };
  const build = async () => {
    setError(null);
    try {
      await createVenv(pid(), inherit);
      setBuilding(true);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const current = runtime.value;
  return (
    <Modal title="Project interpreter" testid="interpreter-dialog" onClose={close}>
      <div class="form">
        <div class="interp-current" data-testid="interpreter-current">
          <span class="mono">{current?.interpreter ?? '…'}</span>
          {current && <small class="muted">{SOURCES[current.source]}</small>}
        </div>
        <form class="interp-set" onSubmit={(ev) => { ev.preventDefault(); void apply(path.trim()); }}>
          <input class="mono" data-testid="interpreter-path" value={path} placeholder="/usr/bin/python3 or .venv/bin/python"
            onInput={(ev) => setPath(ev.currentTarget.value)} />
          <button class="btn" type="submit" disabled={!path.trim()}>Use</button>
          <button class="btn" type="button" disabled={current?.source !== 'setting'} onClick={() => void apply(null)}>Reset</button>
        </form>
        <fieldset class="fieldset">
          <legend>Project venv</legend>
          <p class="field-hint">Creates <code>.venv</code> in the project and installs <code>requirements.txt</code> into it; local jobs then use it.</p>
          <label class="checkbox">
            <input type="checkbox" checked={inherit} onChange={(ev) => setInherit(ev.currentTarget.checked)} />
            Reuse the server's packages (torch, MNN) where the requirements allow
          </label>
          <div class="interp-actions">
            <button class="btn btn-primary" data-testid="venv-create" disabled={building} onClick={() => void build()}>
              {building ? 'Creating…' : 'Create venv from requirements.txt'}
            </button>
          </div>
          {(building || lines.length > 0) && <pre class="venv-log" ref={log} data-testid="venv-log">{lines.join('\n')}</pre>}
        </fieldset>
        {error && <div class="form-error" data-testid="interpreter-error">{error}</div>}
        <div class="modal-actions">
          <button class="btn" onClick={close}>Close</button>
        </div>
      </div>
    </Modal>
  );
}
