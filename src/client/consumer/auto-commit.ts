/**
 * The auto-commit task: a delayed task on the Scheduler, first scheduled when the consumer
 * gets its partitions. When due it commits allConsumed() — the offset after the last
 * record the application finished with, per partition — asynchronously; when that commit
 * completes (success or failure) the next run is scheduled at completion time +
 * auto.commit.interval.ms, not on a fixed grid. Exactly one task is ever queued. A run
 * with nothing new to say (every consumed offset already committed) sends nothing.
 */
import type { Scheduler, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import type { OffsetCommitter } from './offset-committer.js';
import type { SubscriptionState } from './subscription-state.js';

export class AutoCommitTask {
  private timer: TimerHandle | null = null;
  private inFlight = false;
  private stopped = false;
  /** Due time of the queued run (for tests and logs); null when none is queued. */
  nextDueMs: number | null = null;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly intervalMs: number,
    private readonly committer: OffsetCommitter,
    private readonly subscriptions: SubscriptionState,
    private readonly logger: Logger,
    /** False while the group is rebalancing: that round is skipped and rescheduled. */
    private readonly canCommit: () => boolean,
  ) {}

  /** Schedules the first run unless one is queued or running. */
  start(): void {
    this.stopped = false;
    if (this.timer || this.inFlight) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.nextDueMs = this.scheduler.nowMs() + this.intervalMs;
    this.timer = this.scheduler.schedule(this.intervalMs, () => this.run());
  }

  private run(): void {
    this.timer = null;
    this.nextDueMs = null;
    if (!this.canCommit() || !this.subscriptions.consumedDiffersFromCommitted()) {
      this.schedule();
      return;
    }
    this.inFlight = true;
    void this.committer.commitAsync(this.subscriptions.allConsumed(), (err) => {
      if (err) this.logger.info('auto-commit failed', { error: err });
    }).then(() => {
      this.inFlight = false;
      this.schedule(); // from completion time, not on a fixed grid
    });
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    this.nextDueMs = null;
  }
}
