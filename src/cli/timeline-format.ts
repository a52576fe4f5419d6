/**
 * One line per flight-recorder entry, for `brook groups timeline`: when, which generation
 * (classic groups) or group epoch (the other types), what happened and to whom. Strings that
 * come from clients (member ids, client ids, reasons) are escaped so an entry never spans
 * two lines.
 */
import type { LeftMember, TimelineEntry, TimelineMember } from '../broker/flight-recorder/timeline-entry.js';

/** Separates an entry's parts: two blanks, as between a line's columns elsewhere in the CLI. */
const GAP = '  ';

/** Control characters (newlines above all) as JSON escapes, so the line stays one line. */
function oneLine(value: string | null | undefined): string {
  const s = value === null || value === undefined ? '-' : String(value);
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => JSON.stringify(c).slice(1, -1));
}

/** 850 ms, 1.2 s, 95.0 s: a rebalance's pause as a person reads it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

function member(m: TimelineMember): string {
  const instance = m.instanceId === null || m.instanceId === undefined ? '' : ` [instance ${oneLine(m.instanceId)}]`;
  return `${oneLine(m.memberId)}${instance} (${oneLine(m.clientId)} ${oneLine(m.clientHost)})`;
}

function leaver(m: LeftMember): string {
  const why = m.clientReason === null || m.clientReason === '' ? m.cause : `${m.cause}: ${m.clientReason}`;
  return `${oneLine(m.memberId)} (${oneLine(why)})`;
}

/** `generation 3` for a classic group, `epoch 7` for the others (a classic entry carries no epoch). */
function generationOf(e: TimelineEntry): string {
  if (e.generation !== undefined) return `generation ${e.generation}`;
  if (e.epoch !== undefined) {
    const passed = e.passedEpochs ?? [];
    return passed.length === 0 ? `epoch ${e.epoch}` : `epoch ${e.epoch} (through ${passed.join(', ')})`;
  }
  return 'epoch -';
}

/** Rebalances: the outcome and how long consumption paused, with the classic phases when known. */
function rebalanceSummary(e: TimelineEntry): string {
  const outcome = e.outcome ?? 'ended';
  if (e.durationMs === null || e.durationMs === undefined) return `${outcome} (duration unknown: began before a restart)`;
  const phases: string[] = [];
  if (typeof e.preparingRebalanceMs === 'number') phases.push(`preparing ${formatDuration(e.preparingRebalanceMs)}`);
  if (typeof e.completingRebalanceMs === 'number') phases.push(`completing ${formatDuration(e.completingRebalanceMs)}`);
  return `${outcome} after ${formatDuration(e.durationMs)}${phases.length > 0 ? ` (${phases.join(', ')})` : ''}`;
}

/** What happened, in a few words, per kind. */
function what(e: TimelineEntry): string {
  switch (e.kind) {
    case 'rebalance':
      return `rebalance${GAP}${rebalanceSummary(e)}`;
    case 'member-removed':
      return 'member removed';
    case 'static-member-replaced': {
      const instance = e.left.find((m) => m.instanceId !== null)?.instanceId ?? e.joined.find((m) => m.instanceId !== null)?.instanceId ?? null;
      return `static member${instance === null ? '' : ` ${oneLine(instance)}`} replaced`;
    }
    case 'group-converted':
      return `group converted from ${e.from ?? '?'} to ${e.to ?? '?'}`;
    case 'group-deleted':
      return 'group deleted';
    default:
      return oneLine(String(e.kind));
  }
}

/** A list field as written, or empty: the parser checks only the fields every reader needs. */
function list<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? value : [];
}

/** The entry as one line (no newline at its end). */
export function formatTimelineEntry(raw: TimelineEntry): string {
  const e = { ...raw, joined: list(raw.joined), left: list(raw.left), members: list(raw.members), moved: list(raw.moved) };
  const parts = [oneLine(e.time), generationOf(e), what(e)];
  if (typeof e.reason === 'string' && e.reason !== '') parts.push(`reason: ${oneLine(e.reason)}`);
  if (e.joined.length > 0) parts.push(`joined: ${e.joined.map(member).join(', ')}`);
  if (e.left.length > 0) parts.push(`left: ${e.left.map(leaver).join(', ')}`);
  parts.push(`members: ${e.members.length}`);
  if (e.kind === 'rebalance') parts.push(`moved: ${e.moved.length}`);
  if (e.leader !== undefined && e.leader !== null && e.leader !== '') parts.push(`leader: ${oneLine(e.leader)}`);
  if (e.protocol !== undefined && e.protocol !== null && e.protocol !== '') parts.push(`protocol: ${oneLine(e.protocol)}`);
  if (e.truncated === true) parts.push('(assignments left out: too large)');
  return parts.join(GAP);
}
