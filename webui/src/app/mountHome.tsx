// The home page: the project list and the new-project form (features/home/), with the market's
// and the team's items the app hands it, so the home feature imports neither.
import { render } from 'preact';
import type { PageConfig } from '../api/types';
import { HomePage } from '../features/home/HomePage';
import { HomeMarket } from '../features/market/HomeMarket';
import { UserMenu } from '../features/team/UserMenu';

export function mountHome(root: HTMLElement, config: PageConfig): void {
  render(<HomePage version={config.version} Market={HomeMarket} UserMenu={UserMenu} />, root);
}
