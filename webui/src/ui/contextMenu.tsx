// A single floating context menu per page, opened at the pointer with a list of actions.
import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';

export interface MenuItem {
  label: string;
  testid: string;
  action: () => void;
  danger?: boolean;
}

interface MenuState {
  x: number;
  y: number;
  items: MenuItem[];
}

const menu = signal<MenuState | null>(null);

export function openContextMenu(ev: MouseEvent, items: MenuItem[]): void {
  ev.preventDefault();
  ev.stopPropagation();
  menu.value = { x: ev.clientX, y: ev.clientY, items };
}

export function closeContextMenu(): void {
  menu.value = null;
}

export function ContextMenuHost() {
  const state = menu.value;
  useEffect(() => {
    if (!state) return;
    const close = () => closeContextMenu();
    const onKey = (ev: KeyboardEvent) => ev.key === 'Escape' && close();
    window.addEventListener('pointerdown', close);
    window.addEventListener('blur', close);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('pointerdown', close);
      window.removeEventListener('blur', close);
      window.removeEventListener('keydown', onKey);
    };
  }, [state]);
  if (!state) return null;
  const top = Math.min(state.y, window.innerHeight - state.items.length * 26 - 12);
  const left = Math.min(state.x, window.innerWidth - 200);
  return (
    <ul class="context-menu" role="menu" data-testid="context-menu" style={{ top: `${top}px`, left: `${left}px` }} onPointerDown={(ev) => ev.stopPropagation()}>
      {state.items.map((item) => (
        <li
          key={item.testid}
          role="menuitem"
          class={item.danger ? 'danger' : undefined}
          data-testid={item.testid}
          onClick={() => {
            closeContextMenu();
            item.action();
          }}
        >
          {item.label}
        </li>
      ))}
    </ul>
  );
}
