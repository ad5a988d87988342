// The panels' code, loaded on first show (see register.tsx).
import type { PanelFactory } from '../../kernel/panels';
import { DatasetsPanel } from './DatasetsPanel';
import { EvaluatePanel } from './EvaluatePanel';
import '../modeltools/modeltools.css';
import './datasets.css';

export const datasetsPanel: PanelFactory = () => <DatasetsPanel />;
export const evaluatePanel: PanelFactory = (props) => <EvaluatePanel {...props} />;
