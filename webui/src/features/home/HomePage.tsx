import { useEffect, useState } from 'preact/hooks';
import { ContextMenuHost } from '../../ui/contextMenu';
import { DialogHost } from '../../ui/dialogs';
import { notify, ToastHost } from '../../ui/toast';
import { errorMessage } from '../../api/client';
import { loadAccount } from '../../kernel/account';
import { UserMenu } from '../team/UserMenu';
import { HomeMarket } from '../market/HomeMarket';
import { watchClones } from './clones';
import { NewProject } from './NewProject';
import { ProjectList } from './ProjectList';
import { loadTemplates, refreshProjects } from './store';

export function HomePage({ version }: { version: string }) {
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
      {market ? <HomeMarket /> : (
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
