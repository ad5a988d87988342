// The MNN-LLM panel of a folder: export it (a Hugging Face-format folder), or chat with and
// benchmark it (an exported folder). One panel per folder, in the main area.
import { mainGroup } from '../../kernel/areas';
import { showPanel } from '../../kernel/panels';

export const LLM_PANEL = 'llm';

export function openLlm(folder: string): void {
  showPanel({
    id: `llm:${folder}`,
    component: LLM_PANEL,
    title: `MNN-LLM · ${folder.slice(folder.lastIndexOf('/') + 1) || folder}`,
    params: { folder },
    position: { referenceGroup: mainGroup() },
  });
}
