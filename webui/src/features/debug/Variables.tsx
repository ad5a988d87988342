// The variables tree: scopes of the selected frame, children read only when a node is expanded
// (`variablesReference`), and read again after each stop while expanded.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { scopes, stopCount, variables, type Scope, type Variable } from './debugger';

function valueClass(variable: Variable): string {
  const value = variable.value;
  if (/^['"]/.test(value)) return 'var-value var-string';
  if (/^-?\d/.test(value)) return 'var-value var-number';
  if (value === 'True' || value === 'False' || value === 'None') return 'var-value var-keyword';
  return 'var-value';
}

function Children({ reference, depth }: { reference: number; depth: number }) {
  const [children, setChildren] = useState<Variable[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const stops = stopCount.value;
  useEffect(() => {
    variables(reference).then(setChildren, (err) => setError(errorMessage(err)));
  }, [reference, stops]);
  const indent = { paddingLeft: `${8 + depth * 12}px` };
  if (error) return <div class="tree-note var-note" style={indent}>{error}</div>;
  if (!children) return <div class="tree-note var-note" style={indent}>Loading…</div>;
  if (!children.length) return <div class="tree-note var-note" style={indent}>No variables</div>;
  return <>{children.map((v) => <VariableNode key={v.name} variable={v} depth={depth} />)}</>;
}

function VariableNode({ variable, depth }: { variable: Variable; depth: number }) {
  const [open, setOpen] = useState(false);
  const expandable = variable.variablesReference > 0;
  return (
    <>
      <div class="var-row" style={{ paddingLeft: `${8 + depth * 12}px` }} data-testid="variable" data-name={variable.name}
        title={variable.type ? `${variable.type}: ${variable.value}` : variable.value}
        onClick={() => expandable && setOpen(!open)}>
        <span class={expandable ? (open ? 'twisty open' : 'twisty') : 'twisty none'} />
        <span class="var-name">{variable.name}</span>
        <span class="var-sep">: </span>
        <span class={valueClass(variable)} data-testid="variable-value">{variable.value}</span>
      </div>
      {open && <Children reference={variable.variablesReference} depth={depth + 1} />}
    </>
  );
}

function ScopeNode({ scope, initiallyOpen }: { scope: Scope; initiallyOpen: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <>
      <div class="var-row var-scope" data-testid="scope" data-name={scope.name} onClick={() => setOpen(!open)}>
        <span class={open ? 'twisty open' : 'twisty'} />
        <span>{scope.name}</span>
      </div>
      {open && <Children reference={scope.variablesReference} depth={1} />}
    </>
  );
}

export function VariablesView() {
  const list = scopes.value;
  if (!list.length) return <div class="section-note">Not paused.</div>;
  return (
    <div class="variables" data-testid="variables">
      {list.map((scope, i) => <ScopeNode key={`${scope.name}:${scope.variablesReference}`} scope={scope} initiallyOpen={i === 0 && !scope.expensive} />)}
    </div>
  );
}
