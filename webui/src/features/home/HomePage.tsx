import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ContextMenuHost } from '../../ui/contextMenu';
import { DialogHost } from '../../ui/dialogs';
import { notify, ToastHost } from '../../ui/toast';
import { errorMessage } from '../../api/client';
import { loadAccount } from '../../kernel/account';
import { watchClones } from './clones';
import { NewProject } from './NewProject';
import { ProjectList } from './ProjectList';
import { loadTemplates, refreshProjects } from './store';

export interface HomePageProps {
  version: string;
  /** The market's view, shown instead of the projects (features/market/, given by the app). */
  Market: FunctionComponent;
  /** The signed-in person's menu (features/team/, given by the app). */
  UserMenu: FunctionComponent<{ class?: string }>;
}

export function HomePage({ version, Market, UserMenu }: HomePageProps) {
  const [market, setMarket] = useState(false);
  useEffect(() => {
    void refreshProjects();
    void loadTemplates();
    loadAccount().catch((err) => notify(errorMessage(err)));
    // Another tab may have created or renamed projects meanwhile.
    const onFocus = () => void refreshProjects();
    window.addEventListener('focus', onFocus);
    const unwatch = watchClones();
    return () => {
      window.removeEventListener('focus', onFocus);
      unwatch();
    };
  }, []);
  return (
    <div class="home">
      <header class="topbar">
        <span class="logo">MNN Workbench</span>
        <span class="muted">v{version}</span>
        <span class="status-spacer" />
        <button class={market ? 'btn btn-primary' : 'btn'} data-testid="home-market" onClick={() => setMarket(!market)}>
          {market ? 'Projects' : 'Market'}
        </button>
        <UserMenu />
      </header>
      {market ? <Market /> : (
        <main class="home-main">
          <ProjectList />
          <NewProject />
        </main>
      )}
      <DialogHost />
      <ContextMenuHost />
      <ToastHost />
    </div>
  );
}
