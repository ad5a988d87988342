import { render } from 'preact';
import type { PageConfig } from '../../api/types';
import { HomePage } from './HomePage';

export function mountHome(root: HTMLElement, config: PageConfig): void {
  render(<HomePage version={config.version} />, root);
}
