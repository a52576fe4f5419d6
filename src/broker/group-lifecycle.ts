/**
 * What an operator reads about groups: one info line per lifecycle event the coordinator
 * reports (src/coordinator/events.ts) — members joining, leaving or expiring, rebalances
 * starting (with the reason) and completing (generation, members, how long it took),
 * offsets expiring, groups deleted or converted between protocols — and the rebalance
 * counts the metrics endpoint exports. The coordinator runtime hands over the events of
 * each result once its records are durable.
 */
import type { GroupEvent, MemberRemovalCause } from '../coordinator/index.js';
import type { Logger } from '../util/log.js';
import type { Clock } from './broker-context.js';

const REMOVAL_MESSAGE: Readonly<Record<MemberRemovalCause, string>> = {
  'left': 'member left',
  'session-timeout': 'member expired',
  'rebalance-timeout': 'member expired',
  'sync-timeout': 'member expired',
  'group-max-size': 'member removed',
};

export class GroupLifecycle {
  /** Rebalances started per group since start-up (a deleted group's count goes with it). */
  readonly rebalances = new Map<string, number>();
  /** When each group's current rebalance started (the first start, if one interrupted another). */
  private readonly startedAtMs = new Map<string, number>();

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  handle(events: readonly GroupEvent[]): void {
    for (const e of events) this.one(e);
  }

  private one(e: GroupEvent): void {
    switch (e.type) {
      case 'member-joined':
        this.log.info('member joined', {
          group: e.groupId, type: e.groupType, member: e.memberId,
          ...(e.groupInstanceId !== null ? { instance: e.groupInstanceId } : {}),
          ...(e.protocol !== e.groupType ? { protocol: e.protocol } : {}),
          clientId: e.clientId, clientHost: e.clientHost,
        });
        return;
      case 'member-removed':
        this.log.info(REMOVAL_MESSAGE[e.cause], {
          group: e.groupId, type: e.groupType, member: e.memberId,
          ...(e.groupInstanceId !== null ? { instance: e.groupInstanceId } : {}),
          cause: e.cause,
          ...(e.clientReason !== null ? { clientReason: e.clientReason } : {}),
        });
        return;
      case 'rebalance-started': {
        this.rebalances.set(e.groupId, (this.rebalances.get(e.groupId) ?? 0) + 1);
        if (!this.startedAtMs.has(e.groupId)) this.startedAtMs.set(e.groupId, this.clock.nowMs());
        this.log.info('rebalance started', { group: e.groupId, type: e.groupType, generation: e.generation, members: e.members, reason: e.reason });
        return;
      }
      case 'rebalance-completed': {
        const started = this.startedAtMs.get(e.groupId);
        this.startedAtMs.delete(e.groupId);
        this.log.info('rebalance completed', {
          group: e.groupId, type: e.groupType, generation: e.generation, members: e.members, state: e.state,
          // Unknown for a rebalance that began before a restart.
          ...(started !== undefined ? { durationMs: Math.max(0, this.clock.nowMs() - started) } : {}),
        });
        return;
      }
      case 'member-replaced':
        this.log.info('static member replaced', { group: e.groupId, type: e.groupType, instance: e.groupInstanceId, oldMember: e.oldMemberId, member: e.newMemberId });
        return;
      case 'join-completed':
      case 'member-reconciled':
        // The flight recorder's detail; the rebalance lines tell the story here.
        return;
      case 'offsets-expired':
        this.log.info('offsets expired', { group: e.groupId, type: e.groupType, count: e.count });
        return;
      case 'group-deleted':
        this.rebalances.delete(e.groupId);
        this.startedAtMs.delete(e.groupId);
        this.log.info('group deleted', { group: e.groupId, type: e.groupType, reason: e.reason });
        return;
      case 'group-converted':
        this.log.info('group converted', { group: e.groupId, from: e.from, to: e.to, members: e.members });
        return;
    }
  }
}
