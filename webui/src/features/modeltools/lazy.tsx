// The panels' code, loaded on first show (see register.tsx).
import type { PanelFactory } from '../../kernel/panels';
import { ModelDiffPanel } from './diff/ModelDiffPanel';
import { PipelinePanel } from './pipeline/PipelinePanel';
import { RunsPanel } from './RunsPanel';
import { ToolPanel } from './ToolPanel';
import './modeltools.css';

export const toolPanel: PanelFactory = (props) => <ToolPanel {...props} />;
export const runsPanel: PanelFactory = () => <RunsPanel />;
export const diffPanel: PanelFactory = (props) => <ModelDiffPanel {...props} />;
export const pipelinePanel: PanelFactory = (props) => <PipelinePanel {...props} />;
