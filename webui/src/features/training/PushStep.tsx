// The new-job dialog's second step when a cloud job needs the work tree committed and pushed:
// what is missing, and a commit message when there are changes to commit.
import { useState } from 'preact/hooks';
import type { NotPushed } from '../../api/jobs';

const LISTED = 8;

export function PushStep(props: { info: NotPushed; busy: boolean; error: string | null; onBack: () => void; onConfirm: (message: string | undefined) => void }) {
  const { info } = props;
  const changes = info.uncommitted;
  const [message, setMessage] = useState('');
  const needsMessage = changes.length > 0;
  const ready = !needsMessage || message.trim().length > 0;
  return (
    <form class="form" data-testid="push-step" onSubmit={(ev) => { ev.preventDefault(); if (ready) props.onConfirm(needsMessage ? message.trim() : undefined); }}>
      <p class="modal-message">
        PAI-DLC runs the commit it fetches from <b>{info.remote}</b>, so <b>{info.branch}</b> must be committed and pushed first.
      </p>
      {needsMessage && (
        <>
          <ul class="push-files">
            {changes.slice(0, LISTED).map((path) => <li key={path} class="mono">{path}</li>)}
            {changes.length > LISTED && <li class="muted">and {changes.length - LISTED} more</li>}
          </ul>
          <label class="field">
            <span>Commit message</span>
            <input data-testid="push-message" value={message} autoFocus onInput={(ev) => setMessage(ev.currentTarget.value)} />
          </label>
        </>
      )}
      {!needsMessage && <p class="field-hint">{info.ahead ? `${info.ahead} commit(s) to push to ${info.upstream}.` : `${info.branch} has no upstream on ${info.remote} yet.`}</p>}
      {props.error && <div class="form-error" data-testid="push-error">{props.error}</div>}
      <div class="modal-actions">
        <button type="button" class="btn" onClick={props.onBack}>Back</button>
        <button type="submit" class="btn btn-primary" data-testid="push-confirm" disabled={!ready || props.busy}>
          {props.busy ? 'Pushing…' : needsMessage ? 'Commit, push and start' : 'Push and start'}
        </button>
      </div>
    </form>
  );
}
