// What every section of the LLM panel (LlmPanel.tsx) is given.
export interface SectionProps {
  folder: string;
  params: Record<string, unknown>;
  update: (values: Record<string, unknown>) => void;
}
