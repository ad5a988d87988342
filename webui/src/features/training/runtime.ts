// The project's interpreter as the Training panel shows it.
import { signal } from '@preact/signals';
import { getRuntime, type Runtime } from '../../api/jobs';
import { pid } from '../../kernel/session';

export const runtime = signal<Runtime | null>(null);

export async function loadRuntime(): Promise<void> {
  try {
    runtime.value = await getRuntime(pid());
  } catch {
    runtime.value = null;
  }
}
