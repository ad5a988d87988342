// The dock: dockview's vanilla API with Preact components rendered into its panel and tab
// elements, a default layout, and the layout restored from / saved to the project's UI state.
import { createDockview, themeDark, type DockviewApi, type GroupPanelPartInitParameters, type IContentRenderer, type IWatermarkRenderer, type ITabRenderer, type SerializedDockview } from 'dockview';
import { h, render } from 'preact';
import { registeredPanel, registeredTab, type PanelFactory } from './panels';

function Host({ factory, init }: { factory: PanelFactory; init: GroupPanelPartInitParameters }) {
  return <>{factory({ api: init.api, containerApi: init.containerApi, params: init.params })}</>;
}

class PreactPart implements IContentRenderer, ITabRenderer {
  readonly element = document.createElement('div');

  constructor(private readonly factory: PanelFactory, className: string) {
    this.element.className = className;
  }

  init(init: GroupPanelPartInitParameters): void {
    render(h(Host, { factory: this.factory, init }), this.element);
  }

  dispose(): void {
    render(null, this.element);
  }
}

class Watermark implements IWatermarkRenderer {
  readonly element = document.createElement('div');

  init(): void {
    this.element.className = 'watermark';
    render(
      <div data-testid="watermark">
        <p>Open a file from the tree on the left.</p>
        <p class="muted"><kbd>Ctrl</kbd>/<kbd>⌘</kbd> + <kbd>S</kbd> saves the current file.</p>
      </div>,
      this.element,
    );
  }

  dispose(): void {
    render(null, this.element);
  }
}

function missingPanel(name: string): PanelFactory {
  return () => <div class="panel-message">This panel ({name}) is not available in this version.</div>;
}

export function createDock(element: HTMLElement): DockviewApi {
  return createDockview(element, {
    theme: themeDark,
    // The editor area stays in place (showing the watermark) when its last tab closes.
    closeEmptyGroups: false,
    createWatermarkComponent: () => new Watermark(),
    createComponent: ({ name }) => new PreactPart(registeredPanel(name)?.factory ?? missingPanel(name), 'dock-panel'),
    createTabComponent: ({ name }) => {
      const tab = registeredTab(name);
      return tab ? new PreactPart(tab, 'dock-tab') : undefined;
    },
  });
}

/** Restores a saved layout; false when there is none or it no longer fits the registered panels. */
export function restoreLayout(api: DockviewApi, layout: unknown): boolean {
  if (!layout || typeof layout !== 'object') return false;
  try {
    api.fromJSON(layout as SerializedDockview);
    return api.totalPanels > 0;
  } catch {
    api.clear();
    return false;
  }
}
