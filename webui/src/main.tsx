// Entry point: the server renders the shell with this tab's config; load the page it names.
// The entry stays small: the project page's data requests start before its code arrives.
import { render } from 'preact';
import './styles/base.css';
import type { PageConfig, SandboxStatus } from './api/types';
import { prefetchWorkbench } from './kernel/prefetch';

function readConfig(): PageConfig {
  const node = document.getElementById('mnnwb-config');
  return JSON.parse(node?.textContent || '{}') as PageConfig;
}

function MissingPage({ message }: { message: string }) {
  return (
    <div class="missing" data-testid="missing-project">
      <p>{message}</p>
      <a href="/">All projects</a>
    </div>
  );
}

/** Every page says so when users' code does not run sandboxed: an admin's choice, or a machine
 * where the sandbox cannot start (then nothing that runs code starts either). */
function SandboxBanner({ status }: { status: SandboxStatus }) {
  const text = status.state === 'off'
    ? 'The sandbox is off on this server: code run here (jobs, terminals, tools) runs as the server\'s own user.'
    : `The sandbox is unavailable, so jobs, terminals and tools cannot start: ${status.reason ?? ''}`;
  return <div class="sandbox-banner" role="alert" data-testid="sandbox-banner">{text}</div>;
}

function showSandboxState(status: SandboxStatus | undefined): void {
  if (!status || status.state === 'on') return;
  const holder = document.createElement('div');
  document.body.prepend(holder);
  render(<SandboxBanner status={status} />, holder);
}

function mount(): void {
  const config = readConfig();
  showSandboxState(config.sandbox);
  const root = document.getElementById('app')!;
  if (config.page === 'project' && config.project && config.ws_path) {
    prefetchWorkbench(config.project.id, config.first_view);
    void import('./features/workbench/mountWorkbench').then((m) => m.mountProject(root, config));
  } else if (config.page === 'missing') {
    render(<MissingPage message={config.error ?? 'This project does not exist.'} />, root);
  } else {
    void import('./features/home/mountHome').then((m) => m.mountHome(root, config));
  }
}

mount();
