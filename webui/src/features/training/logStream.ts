// Follows one job's log by byte offset: reads it over REST from 0, then appends the `job.log`
// batches of the tab's socket, so every byte is shown exactly once. A batch that starts past what
// the tab has (a dropped event, a reconnect) makes it read the gap over REST first.
import { errorMessage } from '../../api/client';
import { getLogs, type JobLogEvent, type LogChunk } from '../../api/jobs';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `text` without its first `bytes` UTF-8 bytes. */
function dropBytes(text: string, bytes: number): string {
  return decoder.decode(encoder.encode(text).subarray(bytes));
}

export type ReadLogs = (jobId: string, offset: number) => Promise<LogChunk>;

export class LogFollower {
  /** The byte offset up to which the log has been written out. */
  private have = 0;
  private reading: Promise<void> | null = null;
  private waiting: JobLogEvent[] = [];
  private closed = false;

  constructor(
    private readonly jobId: string,
    private readonly write: (text: string) => void,
    private readonly fail: (message: string) => void,
    private readonly read: ReadLogs = getLogs,
  ) {}

  start(): void {
    this.catchUp();
  }

  close(): void {
    this.closed = true;
  }

  /** Reads whatever the socket may have missed (after the server asked the tab to resync). */
  resync(): void {
    this.catchUp();
  }

  onEvent(event: JobLogEvent): void {
    if (event.job_id !== this.jobId || this.closed) return;
    if (this.reading || event.offset > this.have) {
      this.waiting.push(event);
      this.catchUp();
      return;
    }
    if (event.next_offset <= this.have) return;
    this.write(event.offset < this.have ? dropBytes(event.text, this.have - event.offset) : event.text);
    this.have = event.next_offset;
  }

  private catchUp(): void {
    if (this.reading) return;
    const from = this.have;
    this.reading = this.readGap()
      .catch((err: unknown) => this.fail(`Could not read the log: ${errorMessage(err)}`))
      .finally(() => {
        this.reading = null;
        this.drain(this.have > from);
      });
  }

  private async readGap(): Promise<void> {
    for (;;) {
      const chunk = await this.read(this.jobId, this.have);
      if (this.closed) return;
      if (chunk.offset > this.have) this.write(chunk.text);
      this.have = Math.max(this.have, chunk.offset);
      // Stop at the end of what exists, or once a waiting batch can carry on from here.
      if (chunk.eof || !chunk.text || this.waiting.some((e) => e.offset <= this.have)) return;
    }
  }

  private drain(progressed: boolean): void {
    if (this.closed) return;
    const waiting = this.waiting.sort((a, b) => a.offset - b.offset);
    this.waiting = [];
    // A read that brought nothing cannot close the gap (the log is gone or unreadable): carry on
    // from the batches rather than asking again forever.
    if (!progressed && waiting.length && waiting[0].offset > this.have) this.have = waiting[0].offset;
    for (const event of waiting) this.onEvent(event);
  }
}
