// The dock: dockview's vanilla API with Preact components rendered into its panel and tab
// elements, a default layout, and the layout restored from / saved to the project's UI state.
import { createDockview, themeDark, type DockviewApi, type GroupPanelPartInitParameters, type IContentRenderer, type IWatermarkRenderer, type ITabRenderer, type PanelUpdateEvent, type Parameters, type SerializedDockview } from 'dockview';
import { signal, type Signal } from '@preact/signals';
import { h, render } from 'preact';
import { registeredPanel, registeredTab, type PanelFactory } from '../kernel/panels';

function Host({ factory, init, params }: { factory: PanelFactory; init: GroupPanelPartInitParameters; params: Signal<Parameters> }) {
  return <>{factory({ api: init.api, containerApi: init.containerApi, params: params.value })}</>;
}

class PreactPart implements IContentRenderer, ITabRenderer {
  readonly element = document.createElement('div');
  private readonly params = signal<Parameters>({});

  constructor(private readonly factory: PanelFactory, className: string, private readonly followsParams = false) {
    this.element.className = className;
  }

  init(init: GroupPanelPartInitParameters): void {
    this.params.value = init.params;
    render(h(Host, { factory: this.factory, init, params: this.params }), this.element);
  }

  /** A tab shows its panel's new parameters (a preview tab kept, editor/preview.ts); a panel's
   * content reads its own, as it changes them. */
  update(event: PanelUpdateEvent): void {
    if (this.followsParams) this.params.value = event.params;
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
      return tab ? new PreactPart(tab, 'dock-tab', true) : undefined;
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
