// Lag per partition over time: one SVG polyline per partition, from the broker's samples.
import { esc, formatTime } from './html.js';

const WIDTH = 1000;
const HEIGHT = 220;
const LEFT = 56;
const BOTTOM = 22;
const TOP = 10;
const COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#9b2c2c', '#6b46c1', '#b7791f', '#2c7a7b', '#97266d'];

export function renderLagChart(history) {
  const samples = history?.samples ?? [];
  if (samples.length === 0) return '<p class="muted" id="lag-chart-empty">No lag samples yet (the broker samples every few seconds once the group has committed offsets).</p>';
  const keys = [...new Set(samples.flatMap((s) => Object.keys(s.lag)))].sort();
  const t0 = samples[0].timeMs;
  const t1 = Math.max(samples[samples.length - 1].timeMs, t0 + 1);
  let max = 1;
  for (const s of samples) for (const v of Object.values(s.lag)) max = Math.max(max, v);
  const x = (t) => LEFT + ((t - t0) / (t1 - t0)) * (WIDTH - LEFT - 8);
  const y = (v) => TOP + (1 - Math.max(0, v) / max) * (HEIGHT - TOP - BOTTOM);
  const parts = [];
  parts.push(`<line class="axis" x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}"/><line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${HEIGHT - BOTTOM}"/>`);
  parts.push(`<text class="tick" x="${LEFT - 4}" y="${TOP + 8}" text-anchor="end">${max}</text><text class="tick" x="${LEFT - 4}" y="${HEIGHT - BOTTOM}" text-anchor="end">0</text>`);
  parts.push(`<text class="tick" x="${LEFT}" y="${HEIGHT - 4}">${formatTime(t0)}</text><text class="tick" x="${WIDTH}" y="${HEIGHT - 4}" text-anchor="end">${formatTime(t1)}</text>`);
  keys.forEach((key, i) => {
    const points = samples.filter((s) => key in s.lag).map((s) => `${x(s.timeMs).toFixed(1)},${y(s.lag[key]).toFixed(1)}`);
    const last = samples[samples.length - 1].lag[key];
    parts.push(`<polyline class="lag-line" data-partition="${esc(key)}" data-last="${last ?? ''}" points="${points.join(' ')}" stroke="${COLORS[i % COLORS.length]}"><title>${esc(`${key}: lag ${last ?? '?'}`)}</title></polyline>`);
  });
  const legend = keys.map((key, i) => `<span class="legend-item"><i class="swatch swatch-${i % COLORS.length}"></i>${esc(key)}</span>`).join('');
  return `<svg id="lag-chart" class="lag-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="lag per partition over time">${parts.join('')}</svg><div class="legend">${legend}</div>`;
}
