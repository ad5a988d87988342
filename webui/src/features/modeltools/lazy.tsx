// The panels' code, loaded on first show (see register.tsx).
import type { PanelFactory } from '../workbench/panels';
import { RunsPanel } from './RunsPanel';
import { ToolPanel } from './ToolPanel';
import './modeltools.css';

export const toolPanel: PanelFactory = (props) => <ToolPanel {...props} />;
export const runsPanel: PanelFactory = () => <RunsPanel />;
