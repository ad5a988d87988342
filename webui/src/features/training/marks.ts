// "Use this model": mark a succeeded job as the one the flow continues from, or unmark it
// (`PUT|DELETE /api/projects/{pid}/jobs/marked`); every tab follows the `job.marked` event.
import { markJob, unmarkJob, type Job } from '../../api/jobs';
import { notify } from '../../ui/toast';
import { pid } from '../../kernel/session';
import { describeError } from './actions';
import { markedId } from './store';

export async function useModel(job: Job): Promise<void> {
  try {
    markedId.value = (await markJob(pid(), job.id)).job_id;
  } catch (err) {
    notify(describeError(err));
  }
}

export async function unmark(): Promise<void> {
  try {
    markedId.value = (await unmarkJob(pid())).job_id;
  } catch (err) {
    notify(describeError(err));
  }
}
