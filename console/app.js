// The console's page: the overview (`/`) or a group (`/groups/<id>`), redrawn from the broker's
// JSON API every POLL_MS and at once when the broker's event stream says something changed.
import { esc, formatBytes, formatTime } from './html.js';
import { renderTimeline, renderTimelineTable } from './timeline.js';
import { renderLagChart } from './charts.js';

const POLL_MS = 1500;
const app = document.getElementById('app');
const crumbs = document.getElementById('crumbs');
const live = document.getElementById('live');

const groupPath = (id) => `/groups/${encodeURIComponent(id)}`;
const apiGroup = (id) => `/api/groups/${encodeURIComponent(id)}`;

function currentGroup() {
  const m = /^\/groups\/([^/]+)$/.exec(location.pathname);
  return m === null ? null : decodeURIComponent(m[1]);
}

async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  const body = await res.json().catch(() => ({}));
  return { status: res.status, body };
}

function renderOverview(data) {
  crumbs.innerHTML = '<span>overview</span>';
  const groups = data.groups.map((g) => `<tr data-group="${esc(g.groupId)}">`
    + `<td><a class="group-link" href="${esc(groupPath(g.groupId))}">${esc(g.groupId)}</a></td>`
    + `<td class="type">${esc(g.type)}</td><td class="state state-${esc(g.state)}">${esc(g.state)}</td>`
    + `<td class="members num">${g.members}</td><td class="generation num">${g.generation ?? ''}</td><td class="lag num">${g.lag}</td></tr>`).join('');
  const topics = data.topics.map((t) => `<tr data-topic="${esc(t.name)}"${t.internal ? ' class="internal"' : ''}>`
    + `<td>${esc(t.name)}</td><td class="partitions num">${t.partitions.length}</td><td class="size num" data-bytes="${t.sizeBytes}">${formatBytes(t.sizeBytes)}</td>`
    + `<td class="end-offsets">${t.partitions.map((p) => `<span class="offset" data-partition="${p.partition}">${p.partition}:${p.logEndOffset}</span>`).join(' ')}</td></tr>`).join('');
  app.innerHTML = `<section><h2>Groups <span class="count" id="group-count">${data.groups.length}</span></h2>`
    + (data.groups.length === 0 ? '<p class="muted">No groups.</p>' : `<table id="groups"><thead><tr><th>group</th><th>type</th><th>state</th><th class="num">members</th><th class="num">generation / epoch</th><th class="num">lag</th></tr></thead><tbody>${groups}</tbody></table>`)
    + `</section><section><h2>Topics <span class="count" id="topic-count">${data.topics.length}</span></h2>`
    + `<table id="topics"><thead><tr><th>topic</th><th class="num">partitions</th><th class="num">size</th><th>end offsets</th></tr></thead><tbody>${topics}</tbody></table></section>`
    + `<footer class="muted">signed in as ${esc(data.principal)}${data.writesEnabled ? ' · writes enabled' : ''}</footer>`;
}

function renderAssignment(members) {
  const partitions = new Map();
  for (const m of members) {
    for (const [topic, ps] of Object.entries(m.assignment)) for (const p of ps) partitions.set(`${topic}/${p}`, { topic, p });
  }
  const rows = [...partitions.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.p - b.p));
  if (rows.length === 0 || members.length === 0) return '<p class="muted" id="assignment-empty">Nothing assigned.</p>';
  const head = members.map((m, i) => `<th title="${esc(m.memberId)}" data-member-id="${esc(m.memberId)}">${esc(m.instanceId ?? m.clientId ?? '')} <small>#${i + 1}</small></th>`).join('');
  const body = rows.map(({ topic, p }) => `<tr data-partition="${esc(`${topic}/${p}`)}"><th>${esc(topic)}-${p}</th>`
    + members.map((m) => ((m.assignment[topic] ?? []).includes(p)
      ? `<td class="assigned" data-member-id="${esc(m.memberId)}">●</td>`
      : '<td></td>')).join('') + '</tr>').join('');
  return `<table id="assignment" class="grid"><thead><tr><th>partition</th>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function renderWrites(g) {
  if (!g.writesEnabled) return '';
  const topics = [...new Set([...g.lag.map((l) => l.topic), ...g.members.flatMap((m) => Object.keys(m.assignment))])].sort();
  const options = topics.map((t) => `<option value="${esc(t)}">${esc(t)}</option>`).join('');
  return `<section id="writes"><h2>Actions</h2><p class="muted">Offsets can be reset only while the group is Empty; a group can be deleted only when Empty.</p>`
    + `<label>topic <select id="reset-topic">${options}</select></label> `
    + `<button id="reset-earliest" type="button">reset to earliest</button> <button id="reset-latest" type="button">reset to latest</button> `
    + `<button id="delete-group" type="button" class="danger">delete group</button> <span id="write-result" role="status"></span></section>`;
}

function renderGroup(g, history) {
  crumbs.innerHTML = `<a href="/">overview</a> / <span id="crumb-group">${esc(g.groupId)}</span>`;
  const members = g.members.map((m) => `<tr data-member-id="${esc(m.memberId)}"><td class="member-id">${esc(m.memberId)}</td><td class="instance-id">${esc(m.instanceId ?? '')}</td>`
    + `<td class="client-id">${esc(m.clientId)}</td><td class="host">${esc(m.clientHost)}</td><td class="protocol">${esc(m.protocol)}</td></tr>`).join('');
  const lag = g.lag.map((l) => `<tr data-partition="${esc(`${l.topic}/${l.partition}`)}"><td>${esc(l.topic)}-${l.partition}</td>`
    + `<td class="num">${l.committed ?? '–'}</td><td class="num">${l.logEndOffset}</td><td class="num lag">${l.lag ?? '–'}</td></tr>`).join('');
  const keepWrites = document.getElementById('writes');
  app.innerHTML = `<section id="group-summary" data-group="${esc(g.groupId)}" data-state="${esc(g.state)}" data-type="${esc(g.type)}" data-members="${g.members.length}">`
    + `<h1>${esc(g.groupId)}</h1><dl><dt>type</dt><dd id="group-type">${esc(g.type)}</dd><dt>state</dt><dd id="group-state" class="state state-${esc(g.state)}">${esc(g.state)}</dd>`
    + `<dt>${g.type === 'classic' ? 'generation' : 'epoch'}</dt><dd id="group-generation">${g.generation ?? ''}</dd><dt>members</dt><dd id="member-count">${g.members.length}</dd>`
    + `<dt>lag</dt><dd id="group-lag">${g.lagTotal}</dd>${g.protocol ? `<dt>${g.type === 'classic' ? 'protocol' : 'assignor'}</dt><dd>${esc(g.protocol)}</dd>` : ''}</dl>`
    + (g.inProgress ? `<p id="in-progress" class="in-progress">rebalancing since ${esc(formatTime(g.inProgress.sinceMs))}: ${esc(g.inProgress.reason)}</p>` : '')
    + '</section>'
    + `<section><h2>Rebalance timeline</h2>${renderTimeline(g.timeline, g.inProgress, g.nowMs)}</section>`
    + `<div class="columns"><section><h2>Members</h2>${g.members.length === 0 ? '<p class="muted">No members.</p>' : ''}<table id="members"${g.members.length === 0 ? ' hidden' : ''}><thead><tr><th>member id</th><th>instance id</th><th>client id</th><th>host</th><th>protocol</th></tr></thead><tbody>${members}</tbody></table></section>`
    + `<section><h2>Assignment</h2>${renderAssignment(g.members)}</section></div>`
    + `<section><h2>Lag</h2>${renderLagChart(history)}<table id="lag"><thead><tr><th>partition</th><th class="num">committed</th><th class="num">end offset</th><th class="num">lag</th></tr></thead><tbody>${lag}</tbody></table></section>`
    + '<div id="writes-slot"></div>'
    + `<section><h2>Transitions</h2>${renderTimelineTable(g.timeline)}</section>`;
  const slot = document.getElementById('writes-slot');
  if (keepWrites !== null) slot.replaceWith(keepWrites);
  else if (g.writesEnabled) {
    slot.outerHTML = renderWrites(g);
    wireWrites(g.groupId);
  }
}

function wireWrites(groupId) {
  const result = document.getElementById('write-result');
  const reset = async (to) => {
    const topic = document.getElementById('reset-topic').value;
    if (!topic || !confirm(`Reset ${groupId}'s offsets of ${topic} to the ${to} offset?`)) return;
    const res = await fetch(`${apiGroup(groupId)}/reset-offsets`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ topic, to }) });
    const body = await res.json().catch(() => ({}));
    result.textContent = res.ok ? `reset ${topic} to ${to}` : `refused: ${body.error ?? res.status} ${body.message ?? ''}`;
    result.dataset.status = String(res.status);
    refresh();
  };
  document.getElementById('reset-earliest').addEventListener('click', () => reset('earliest'));
  document.getElementById('reset-latest').addEventListener('click', () => reset('latest'));
  document.getElementById('delete-group').addEventListener('click', async () => {
    if (!confirm(`Delete group ${groupId}?`)) return;
    const res = await fetch(apiGroup(groupId), { method: 'DELETE' });
    const body = await res.json().catch(() => ({}));
    result.textContent = res.ok ? 'deleted' : `refused: ${body.error ?? res.status} ${body.message ?? ''}`;
    result.dataset.status = String(res.status);
    if (res.ok) setTimeout(() => { location.href = '/'; }, 800);
  });
}

function renderError(status, body) {
  app.innerHTML = `<section id="error" data-status="${status}"><h2>${status === 404 ? 'Not found' : 'Cannot show this'}</h2><p>${esc(body.message ?? body.error ?? status)}</p><p><a href="/">back to the overview</a></p></section>`;
}

let refreshing = false;
let again = false;

async function refresh() {
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    const group = currentGroup();
    if (group === null) {
      const { status, body } = await getJson('/api/overview');
      if (status === 200) renderOverview(body); else renderError(status, body);
    } else {
      const [g, h] = await Promise.all([getJson(apiGroup(group)), getJson(`${apiGroup(group)}/lag-history`)]);
      if (g.status === 200) renderGroup(g.body, h.status === 200 ? h.body : null); else renderError(g.status, g.body);
    }
    document.body.dataset.updated = String(Date.now());
    live.classList.remove('down');
  } catch {
    live.classList.add('down');
  } finally {
    refreshing = false;
    if (again) { again = false; refresh(); }
  }
}

function poll() {
  refresh().finally(() => setTimeout(poll, POLL_MS));
}

// A new timeline entry redraws at once; the polls cover the rest (and a dropped stream).
const events = new EventSource('/api/events');
events.addEventListener('timeline', () => refresh());
events.addEventListener('error', () => live.classList.add('down'));

poll();
