// Search across files: the side-bar panel and its command (Ctrl+Shift+F).
import { sideBar } from '../../kernel/areas';
import { registerCommand } from '../../kernel/commands';
import { dock, registerPanel, showPanel } from '../../kernel/panels';
import { SearchPanel } from './SearchPanel';
import './search.css';

export const SEARCH_PANEL = 'search';

export function openSearch(): void {
  const exists = Boolean(dock().getPanel(SEARCH_PANEL));
  showPanel({ id: SEARCH_PANEL, component: SEARCH_PANEL, title: 'Search', position: exists ? undefined : sideBar() });
}

export function registerSearchFeature(): void {
  registerPanel(SEARCH_PANEL, () => <SearchPanel />);
  registerCommand({ id: 'search', label: 'Search in files', category: 'Search', shortcut: 'Ctrl+Shift+F', run: openSearch });
}
