// The job's metric charts: the points so far over REST, then the `job.metric` events. The points
// are read again after a resync and when the job ends, so a lost event never leaves a hole.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getMetrics, type JobMetricEvent, type MetricPoint } from '../../api/jobs';
import { session } from '../../kernel/session';
import { ChartBoard } from './charts';

class MetricFollower {
  /** Points that arrived while a read runs; applied after it (repeats are skipped by step). */
  private early: MetricPoint[] | null = null;

  constructor(
    private readonly jobId: string,
    private readonly board: ChartBoard,
    private readonly fail: (message: string) => void,
  ) {}

  onEvent(event: JobMetricEvent): void {
    if (event.job_id !== this.jobId) return;
    if (this.early) this.early.push(...event.points);
    else this.board.add(event.points);
  }

  read(): void {
    if (this.early) return;
    this.early = [];
    getMetrics(this.jobId)
      .then((metrics) => this.board.replace(metrics.points))
      .catch((err: unknown) => this.fail(errorMessage(err)))
      .finally(() => {
        const early = this.early ?? [];
        this.early = null;
        this.board.add(early);
      });
  }
}

export function MetricCharts({ jobId, ended }: { jobId: string; ended: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const follower = useRef<MetricFollower | null>(null);
  const [keys, setKeys] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const board = new ChartBoard(host.current!, setKeys);
    const metrics = new MetricFollower(jobId, board, setError);
    follower.current = metrics;
    const { socket } = session();
    const offJobs = socket.on('jobs', (msg) => msg.type === 'job.metric' && metrics.onEvent(msg.data));
    const offSys = socket.on('sys', (msg) => msg.type === 'resync' && metrics.read());
    metrics.read();
    return () => {
      offJobs();
      offSys();
      board.dispose();
    };
  }, [jobId]);
  useEffect(() => {
    if (ended) follower.current?.read();
  }, [ended]);
  return (
    <div class="job-charts" data-testid="job-charts" data-keys={keys.join(' ')}>
      {error && <div class="form-error">{error}</div>}
      {!error && keys.length === 0 && (
        <div class="job-note">
          {ended ? 'This job printed no metrics.' : 'No metrics yet.'} Lines like <code>{'MNNWB_METRIC {"step": 1, "loss": 0.5}'}</code> are charted here.
        </div>
      )}
      <div class="job-chart-list" ref={host} />
    </div>
  );
}
