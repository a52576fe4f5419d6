/**
 * Test controls that act on the broker's time and groups: moving a manual clock, ending a
 * member's session, starting a group's rebalance. Each runs what the broker would
 * run on its own (timers, coordinator operations that are not requests), then lets the work
 * it started settle: the appends (made durable) and the answers they release.
 */
import { ManualScheduler } from '../../util/clock.js';
import type { BrokerContext } from '../broker-context.js';

async function turns(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function settle(ctx: BrokerContext): Promise<void> {
  await turns();
  await ctx.storage.flush();
  await turns();
}

export async function advanceTime(ctx: BrokerContext, ms: number): Promise<void> {
  const clock = ctx.clock;
  if (!(clock instanceof ManualScheduler)) throw new TypeError("advanceTime needs a manual clock: Broker.start({ clock: 'manual' })");
  if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`advanceTime needs a finite number of milliseconds >= 0, not ${ms}`);
  await clock.advance(ms);
  await settle(ctx);
}

export async function expireMember(ctx: BrokerContext, groupId: string, memberId: string): Promise<void> {
  const groups = ctx.groups;
  if (groups.coordinator.memberSessionKey(groupId, memberId) === undefined) throw new Error(`group ${JSON.stringify(groupId)} has no member ${JSON.stringify(memberId)} with a session`);
  groups.runOperation(`expiry of member ${memberId} of group ${groupId}`, (c, nowMs) => c.expireMemberSession(groupId, memberId, nowMs));
  await settle(ctx);
}

export async function triggerRebalance(ctx: BrokerContext, groupId: string): Promise<void> {
  const groups = ctx.groups;
  if (groups.coordinator.rebalanceableGroupType(groupId) === null) {
    throw new Error(`group ${JSON.stringify(groupId)} cannot rebalance now: it needs to be a classic group that is Stable or CompletingRebalance, or a consumer, share or streams group with members`);
  }
  groups.runOperation(`rebalance of group ${groupId}`, (c, nowMs) => c.triggerRebalance(groupId, 'rebalance triggered by a test', nowMs));
  await settle(ctx);
}
