// Check results: the last report run from this tab, and the stored result of each commit (the
// history's badges).
import { signal } from '@preact/signals';
import { commitChecks, runChecks, type CheckReport, type CommitCheck } from '../../api/checks';
import { errorMessage } from '../../api/client';
import { pid } from '../../kernel/session';

export const report = signal<CheckReport | null>(null);
export const running = signal(false);
export const checkError = signal<string | null>(null);
export const byCommit = signal<Map<string, CommitCheck>>(new Map());

export async function loadCommitChecks(): Promise<void> {
  try {
    byCommit.value = new Map((await commitChecks(pid())).map((c) => [c.commit, c]));
  } catch {
    byCommit.value = new Map();
  }
}

export async function runProjectChecks(): Promise<void> {
  running.value = true;
  checkError.value = null;
  try {
    report.value = await runChecks(pid());
    await loadCommitChecks();
  } catch (err) {
    report.value = null;
    checkError.value = errorMessage(err);
  } finally {
    running.value = false;
  }
}
