// The panel's code, loaded on first show (see register.tsx).
import type { PanelFactory } from '../../kernel/panels';
import { PlaygroundPanel } from './PlaygroundPanel';
import './playground.css';

export const playgroundPanel: PanelFactory = () => <PlaygroundPanel />;
