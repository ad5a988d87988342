// The Playground (docs/playground.md): the title bar's ◉ and "Playground" in the command palette
// open its panel; a playground project opens it when the page first loads.
import { mainGroup } from '../../kernel/areas';
import { lazyPanel } from '../../kernel/lazyPanel';
import { dock, dockReady, registerPanel, registerTitleAction, showPanel } from '../../kernel/panels';
import { session } from '../../kernel/session';
import { wirePlaygroundEvents } from './playground';

export const PLAYGROUND_PANEL = 'playground';

export function openPlayground(): void {
  showPanel({
    id: PLAYGROUND_PANEL,
    component: PLAYGROUND_PANEL,
    title: 'Playground',
    position: dock().getPanel(PLAYGROUND_PANEL) ? undefined : { referenceGroup: mainGroup() },
  });
}

export function registerPlaygroundFeature(): void {
  registerPanel(PLAYGROUND_PANEL, lazyPanel(() => import('./lazy').then((m) => m.playgroundPanel)), { area: 'main' });
  if (session().project.kind !== 'playground') return;
  registerTitleAction({ id: 'playground', label: 'Playground', glyph: '◉', icon: 'device-camera', run: openPlayground });
  wirePlaygroundEvents();
  const stop = dockReady.subscribe((ready) => {
    if (!ready) return;
    queueMicrotask(() => stop());
    if (!dock().getPanel(PLAYGROUND_PANEL)) openPlayground();
  });
}
