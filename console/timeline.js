// The rebalance timeline: the flight recorder's entries along a horizontal time axis, drawn
// as SVG. A rebalance is a bar from when it began, as wide as consumption was paused
// (durationMs); the other kinds (a member removed, a static member replaced, the group
// converted or deleted) are markers at their moment. DOM-free (strings in, a string out), so
// the layout is tested in Node as well as in the browser.
import { esc, formatMs, formatTime } from './html.js';

export const WIDTH = 1000;
const HEIGHT = 96;
const AXIS_Y = 78;
const BAR_Y = 18;
const BAR_H = 40;
/** A bar is at least this wide, so that a rebalance of a few ms can still be seen and hovered. */
const MIN_BAR = 3;

export const generationOf = (e) => e.generation ?? e.epoch ?? -1;
export const timeOf = (e) => Date.parse(e.time);

/** The axis: from the first entry (without any, `nowMs` minus a minute) to `nowMs` (or the last end), with 4% of margin. */
export function timelineDomain(entries, inProgress, nowMs) {
  let start = Infinity;
  let end = nowMs;
  for (const e of entries) {
    const t = timeOf(e);
    if (Number.isNaN(t)) continue;
    start = Math.min(start, t);
    end = Math.max(end, t + (e.durationMs ?? 0));
  }
  if (inProgress) start = Math.min(start, inProgress.sinceMs);
  if (start === Infinity) start = nowMs - 60_000;
  // At least ten seconds wide, so that a lone entry is not one wide bar.
  start = Math.min(start, end - 10_000);
  const pad = Math.max(1000, (end - start) * 0.04);
  return { startMs: start - pad, endMs: end + pad };
}

/** Where each entry goes: x and width in [0, WIDTH], proportional to time. */
export function layoutTimeline(entries, inProgress, nowMs) {
  const { startMs, endMs } = timelineDomain(entries, inProgress, nowMs);
  const scale = WIDTH / Math.max(1, endMs - startMs);
  const x = (t) => (t - startMs) * scale;
  const items = entries.filter((e) => !Number.isNaN(timeOf(e))).map((e) => {
    const at = x(timeOf(e));
    const width = e.kind === 'rebalance' ? Math.max(MIN_BAR, (e.durationMs ?? 0) * scale) : 0;
    return { entry: e, kind: e.kind, generation: generationOf(e), x: at, width };
  });
  const progress = inProgress ? { ...inProgress, x: x(inProgress.sinceMs), width: Math.max(MIN_BAR, (nowMs - inProgress.sinceMs) * scale) } : null;
  return { startMs, endMs, items, progress };
}

const memberName = (m) => `${m.instanceId ?? m.memberId}${m.clientId ? ` (${m.clientId})` : ''}`;

/** One line per fact of an entry: for the tooltip and the table under the chart. */
export function describeEntry(e) {
  const lines = [];
  if (e.kind === 'rebalance') {
    lines.push(`${e.groupType === 'classic' ? 'generation' : 'epoch'} ${generationOf(e)}: ${e.outcome ?? 'rebalance'}, paused ${formatMs(e.durationMs)}`);
    if (e.passedEpochs?.length) lines.push(`through epochs ${e.passedEpochs.join(', ')}`);
  } else if (e.kind === 'group-converted') {
    lines.push(`converted ${e.from ?? '?'} → ${e.to ?? '?'}`);
  } else {
    lines.push(e.kind.replaceAll('-', ' '));
  }
  if (e.reason) lines.push(`reason: ${e.reason}`);
  if (e.joined?.length) lines.push(`joined: ${e.joined.map(memberName).join(', ')}`);
  if (e.left?.length) lines.push(`left: ${e.left.map((m) => `${m.instanceId ?? m.memberId} (${m.cause}${m.clientReason ? `: ${m.clientReason}` : ''})`).join(', ')}`);
  if (e.kind === 'rebalance') lines.push(`partitions moved: ${e.moved?.length ?? 0}`);
  if (e.preparingRebalanceMs != null || e.completingRebalanceMs != null) {
    lines.push(`preparing ${formatMs(e.preparingRebalanceMs)}, completing ${formatMs(e.completingRebalanceMs)}`);
  }
  return lines;
}

/** The SVG of the timeline. */
export function renderTimeline(entries, inProgress, nowMs) {
  const { startMs, endMs, items, progress } = layoutTimeline(entries, inProgress, nowMs);
  const parts = [];
  parts.push(`<line class="tl-axis" x1="0" y1="${AXIS_Y}" x2="${WIDTH}" y2="${AXIS_Y}"/>`);
  for (let i = 0; i <= 4; i++) {
    const t = startMs + ((endMs - startMs) * i) / 4;
    const x = (WIDTH * i) / 4;
    parts.push(`<text class="tl-tick" x="${x.toFixed(1)}" y="${HEIGHT - 2}" text-anchor="${i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}">${formatTime(t)}</text>`);
  }
  for (const it of items) {
    const e = it.entry;
    const title = `<title>${esc(`${formatTime(timeOf(e))} ${describeEntry(e).join('\n')}`)}</title>`;
    if (e.kind === 'rebalance') {
      parts.push(`<g class="tl-rebalance outcome-${esc(e.outcome ?? 'unknown')}" data-kind="rebalance" data-generation="${it.generation}" data-x="${it.x.toFixed(2)}" data-width="${it.width.toFixed(2)}" data-duration-ms="${e.durationMs ?? ''}" data-moved="${e.moved?.length ?? 0}">`
        + `${title}<rect x="${it.x.toFixed(2)}" y="${BAR_Y}" width="${it.width.toFixed(2)}" height="${BAR_H}" rx="2"/>`
        + `<text class="tl-label" x="${(it.x + it.width / 2).toFixed(2)}" y="${BAR_Y - 4}" text-anchor="middle">${it.generation}</text></g>`);
      // Epochs the group went through on the way to this one (members joining one by one): a tick each, inside the bar.
      for (const passed of e.passedEpochs ?? []) {
        parts.push(`<g class="tl-passed-epoch" data-generation="${Number(passed)}" data-within-generation="${it.generation}"><title>${esc(`epoch ${passed}, passed on the way to epoch ${it.generation}`)}</title>`
          + `<line x1="${it.x.toFixed(2)}" y1="${BAR_Y + BAR_H}" x2="${it.x.toFixed(2)}" y2="${BAR_Y + BAR_H + 4}"/></g>`);
      }
    } else {
      parts.push(`<g class="tl-marker" data-kind="${esc(e.kind)}" data-at-generation="${it.generation}" data-x="${it.x.toFixed(2)}">`
        + `${title}<path d="M${it.x.toFixed(2)} ${AXIS_Y - 2} l-6 -12 h12 z"/><line x1="${it.x.toFixed(2)}" y1="${BAR_Y}" x2="${it.x.toFixed(2)}" y2="${AXIS_Y - 14}"/></g>`);
    }
  }
  if (progress) {
    parts.push(`<g class="tl-in-progress" data-in-progress-generation="${progress.generation}"><title>${esc(`rebalancing since ${formatTime(progress.sinceMs)}: ${progress.reason}`)}</title>`
      + `<rect x="${progress.x.toFixed(2)}" y="${BAR_Y}" width="${progress.width.toFixed(2)}" height="${BAR_H}" rx="2"/></g>`);
  }
  return `<svg id="timeline-svg" class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="rebalance timeline">${parts.join('')}</svg>`;
}

/** The entries as a table, newest first. */
export function renderTimelineTable(entries) {
  if (entries.length === 0) return '<p class="muted" id="timeline-empty">No transitions recorded yet.</p>';
  const rows = [...entries].reverse().map((e) => {
    const [head, ...rest] = describeEntry(e);
    return `<tr class="tl-row" data-kind="${esc(e.kind)}" data-row-generation="${generationOf(e)}"><td>${esc(formatTime(timeOf(e)))}</td>`
      + `<td>${esc(e.kind)}</td><td>${esc(head)}</td><td>${rest.map((l) => `<div>${esc(l)}</div>`).join('')}</td></tr>`;
  });
  return `<table id="timeline-table"><thead><tr><th>time</th><th>kind</th><th>what</th><th>details</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
