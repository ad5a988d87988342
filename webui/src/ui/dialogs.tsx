// Promise-based modal dialogs (prompt, confirm, message) rendered by one <DialogHost/> per page.
import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

interface PromptSpec {
  kind: 'prompt';
  title: string;
  label: string;
  value: string;
  confirm: string;
  /** A checkbox under the field (its label and first state), answered with the value. */
  option?: { label: string; checked: boolean; testid: string };
  resolve: (value: string | null, option: boolean) => void;
}

interface ConfirmSpec {
  kind: 'confirm';
  title: string;
  message: string;
  confirm: string;
  danger: boolean;
  option?: string;
  alternative?: string;
  resolve: (value: ConfirmAnswer) => void;
}

/** `alternative`: the third button was pressed (ok is false then). */
export interface ConfirmAnswer {
  ok: boolean;
  option: boolean;
  alternative: boolean;
}

type DialogSpec = PromptSpec | ConfirmSpec;

const current = signal<DialogSpec | null>(null);

export function promptDialog(title: string, label: string, value = '', confirm = 'OK'): Promise<string | null> {
  return new Promise((resolve) => {
    current.value = { kind: 'prompt', title, label, value, confirm, resolve };
  });
}

/** A prompt with a checkbox: the text and the box's state, or null when cancelled. */
export function promptWithOption(
  title: string, label: string, value: string, confirm: string, option: { label: string; checked: boolean; testid: string },
): Promise<{ value: string; option: boolean } | null> {
  return new Promise((resolve) => {
    current.value = {
      kind: 'prompt', title, label, value, confirm, option,
      resolve: (text, checked) => resolve(text === null ? null : { value: text, option: checked }),
    };
  });
}

export function confirmDialog(
  title: string,
  message: string,
  opts: { confirm?: string; danger?: boolean; option?: string; alternative?: string } = {},
): Promise<ConfirmAnswer> {
  return new Promise((resolve) => {
    current.value = {
      kind: 'confirm',
      title,
      message,
      confirm: opts.confirm ?? 'OK',
      danger: opts.danger ?? false,
      option: opts.option,
      alternative: opts.alternative,
      resolve,
    };
  });
}

const FOCUSABLE = 'input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled])';

export function Modal(props: { title: string; testid: string; wide?: boolean; onClose?: () => void; children: ComponentChildren }) {
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (ev.key === 'Escape' && props.onClose) props.onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.onClose]);
  // The keyboard starts in the dialog: on its first field, unless the dialog chose already.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = box.current;
    if (!root || root.contains(document.activeElement)) return;
    // not into an editor the dialog shows (a diff): the person starts on the dialog's own fields
    const fields = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.closest('.monaco-editor'));
    fields[0]?.focus();
  }, []);
  return (
    <div class="modal-backdrop">
      <div ref={box} class={props.wide ? 'modal modal-wide' : 'modal'} role="dialog" aria-label={props.title} data-testid={props.testid}>
        <div class="modal-title">{props.title}</div>
        {props.children}
      </div>
    </div>
  );
}

function PromptDialog({ spec }: { spec: PromptSpec }) {
  const [value, setValue] = useState(spec.value);
  const [option, setOption] = useState(spec.option?.checked ?? false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (result: string | null) => {
    current.value = null;
    spec.resolve(result, option);
  };
  return (
    <Modal title={spec.title} testid="prompt-dialog" onClose={() => finish(null)}>
      <form onSubmit={(ev) => { ev.preventDefault(); if (value.trim()) finish(value.trim()); }}>
        <label class="field">
          <span>{spec.label}</span>
          <input ref={input} data-testid="prompt-input" value={value} onInput={(ev) => setValue(ev.currentTarget.value)} />
        </label>
        {spec.option && (
          <label class="checkbox">
            <input type="checkbox" data-testid={spec.option.testid} checked={option} onChange={(ev) => setOption(ev.currentTarget.checked)} />
            {spec.option.label}
          </label>
        )}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={() => finish(null)} data-testid="prompt-cancel">Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="prompt-ok" disabled={!value.trim()}>{spec.confirm}</button>
        </div>
      </form>
    </Modal>
  );
}

function ConfirmDialog({ spec }: { spec: ConfirmSpec }) {
  const [option, setOption] = useState(false);
  const finish = (ok: boolean, alternative = false) => {
    current.value = null;
    spec.resolve({ ok, option, alternative });
  };
  // The keyboard starts on the confirming button, or on Cancel when confirming destroys.
  const ok = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => (spec.danger ? cancel : ok).current?.focus(), []);
  return (
    <Modal title={spec.title} testid="confirm-dialog" onClose={() => finish(false)}>
      <p class="modal-message">{spec.message}</p>
      {spec.option && (
        <label class="checkbox">
          <input type="checkbox" data-testid="confirm-option" checked={option} onChange={(ev) => setOption(ev.currentTarget.checked)} />
          {spec.option}
        </label>
      )}
      <div class="modal-actions">
        <button ref={cancel} class="btn" onClick={() => finish(false)} data-testid="confirm-cancel">Cancel</button>
        {spec.alternative && <button class="btn" onClick={() => finish(false, true)} data-testid="confirm-alternative">{spec.alternative}</button>}
        <button ref={ok} class={spec.danger ? 'btn btn-danger' : 'btn btn-primary'} onClick={() => finish(true)} data-testid="confirm-ok">
          {spec.confirm}
        </button>
      </div>
    </Modal>
  );
}

export function DialogHost() {
  const spec = current.value;
  if (!spec) return null;
  return spec.kind === 'prompt' ? <PromptDialog key={spec.title} spec={spec} /> : <ConfirmDialog key={spec.title} spec={spec} />;
}
