/**
 * Where the group coordinator is: FindCoordinator, cached until an error says it moved
 * (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a lost connection), then found again
 * after retry.backoff.ms. A restarted broker is simply found again once it listens.
 */
import type { BrokerAddress, Cluster } from '../cluster.js';
import { coordinatorFailureAction } from '../coordinator-errors.js';
import type { BrokerConnection } from '../connection.js';
import type { Logger } from '../../util/log.js';

export class CoordinatorLookup {
  private address: BrokerAddress | null = null;

  constructor(private readonly cluster: Cluster, readonly groupId: string, private readonly logger: Logger) {}

  get known(): boolean {
    return this.address !== null;
  }

  /** A connection to the coordinator, retrying discovery (with backoff) until it works or `signal` aborts. */
  async connection(signal?: AbortSignal): Promise<BrokerConnection> {
    for (;;) {
      signal?.throwIfAborted();
      try {
        this.address ??= await this.cluster.findCoordinator(this.groupId, 0, signal);
        return await this.cluster.connectionTo(this.address, signal, 'coordinator');
      } catch (err) {
        if (signal?.aborted) throw err;
        // Authorization and invalid-group errors (and an unsupported FindCoordinator) will not heal with retries.
        if (coordinatorFailureAction(err) === 'fatal') throw err;
        this.logger.debug('group coordinator unavailable; retrying', { group: this.groupId, error: err as Error });
        this.address = null;
        await this.cluster.backoff(signal);
      }
    }
  }

  markUnknown(reason: string): void {
    if (this.address) this.logger.info('group coordinator marked unknown', { group: this.groupId, reason });
    this.address = null;
  }
}
