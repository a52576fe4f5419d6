/**
 * The web console in a real browser (Debian's chromium, driven by playwright-core) while a
 * group lives through what the flight recorder records, with third-party clients:
 *
 *   1. formed: a KafkaJS consumer (a process of its own) forms a classic group;
 *   2. grown: a second KafkaJS process joins: the next generation, two members;
 *   3. a member killed: the second process gets SIGKILL (no LeaveGroup), the broker expires it
 *      once its 6 s session timeout passes and rebalances the one left;
 *   4. converted: a member with group.protocol=consumer (Brook's consumer) joins the classic
 *      group: the broker converts it to a consumer group (KIP-848's online upgrade), the
 *      KafkaJS member staying in it as a classic member.
 *
 * After each step the group page (and the overview) must show it without a reload: the
 * member count, the state and type, a timeline bar `[data-generation=N]` for each generation
 * or epoch the coordinator went through (the coordinator's own count, read from its
 * summaries), the expired member and its cause in the timeline, the conversion marker. Each
 * state is photographed (1280x800): into docs/console/ with BROOK_UPDATE_SCREENSHOTS=1,
 * else into a temporary directory, so that a run leaves the checkout clean.
 *
 * And the writes, from the page, behind credentials: a broker with an authorizer asks the
 * browser for a user (401 without), and a signed-in user resets an Empty group's offsets to
 * the latest (read back by KafkaJS's admin) and deletes the group (gone from KafkaJS's
 * ListGroups).
 *
 * Needs chromium (/usr/bin/chromium; CI installs it); skipped with the reason otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Partitioners } from 'kafkajs';
import { projectRoot, startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaJs, createTopicWithKafkaJs } from '../support/clients/kafkajs.js';
import { until } from '../support/clients/run.js';
import { Consumer } from '../../src/index.js';
import { plainCredential } from '../../src/broker/sasl/plain-password.js';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = existsSync(CHROMIUM) ? false : `chromium is not installed (${CHROMIUM}; apt-get install chromium)`;
if (SKIP !== false) process.stdout.write(`# console-browser: skipped: ${SKIP}\n`);

const GROUP = 'clickstream';
const TOPIC = 'clicks';
const SESSION_TIMEOUT_MS = 6_000;
const STEP_MS = 40_000;
const MEMBER_SCRIPT = join(projectRoot, 'dist', 'test', 'support', 'console', 'kafkajs-member.js');

interface Member {
  readonly child: ChildProcess;
  /** The member ids it joined with, in order. */
  readonly joins: string[];
}

function startMember(bootstrap: string, clientId: string): Member {
  const child = spawn(process.execPath, [MEMBER_SCRIPT, bootstrap, GROUP, TOPIC, clientId, String(SESSION_TIMEOUT_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const joins: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      const e = JSON.parse(line) as { event: string; memberId: string };
      if (e.event === 'joined') joins.push(e.memberId);
    } catch {
      // not ours
    }
  });
  child.stderr!.on('data', (d: Buffer) => { if (process.env['BROOK_TEST_LOG']) process.stderr.write(d); });
  return { child, joins };
}

test('the console follows a group formed, grown, losing a killed member and converted to a consumer group', { timeout: 240_000, skip: SKIP }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  let shots = join(projectRoot, 'docs', 'console');
  if (process.env['BROOK_UPDATE_SCREENSHOTS'] !== '1') {
    const dir = tempDir('brook-console-shots-');
    cleanup.add('remove screenshots', () => dir.remove());
    shots = dir.path;
  }
  mkdirSync(shots, { recursive: true });

  const broker = await startBrook({ consolePort: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const base = `http://127.0.0.1:${broker.consolePort}`;
  await createTopicWithKafkaJs(broker.bootstrap, TOPIC, 4);
  const producer = kafkaJs(broker.bootstrap, 'clicks-producer').producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer disconnect', () => producer.disconnect());
  await producer.send({ topic: TOPIC, messages: Array.from({ length: 40 }, (_, i) => ({ key: `user-${i % 7}`, value: `click-${i}` })) });

  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  cleanup.add('close browser', () => browser.close());
  const page: Page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });

  /** The coordinator's generation (classic) or group epoch now. */
  const generation = (): number => broker.context.groups.coordinator.groupSummaries().find((g) => g.groupId === GROUP)?.generation ?? -1;
  const summary = (n: number, state: string, type: string): string => `#group-summary[data-members="${n}"][data-state="${state}"][data-type="${type}"]`;
  /** Every generation (or epoch) from `from` to the current one has its bar. */
  const barsUpTo = async (from: number): Promise<void> => {
    for (let g = from; g <= generation(); g++) await page.waitForSelector(`.tl-rebalance[data-generation="${g}"]`, { timeout: STEP_MS, state: 'attached' });
  };
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(shots, name) });

  // 1. Formed.
  const first = startMember(broker.bootstrap, 'clicks-app-1');
  cleanup.add('stop member 1', () => void first.child.kill('SIGKILL'));
  await until('member 1 joined', STEP_MS, async () => (first.joins.length > 0 ? true : undefined), 100);
  await page.goto(`${base}/groups/${GROUP}`);
  await page.waitForSelector(summary(1, 'Stable', 'classic'), { timeout: STEP_MS });
  const formed = generation();
  assert.ok(formed >= 1);
  await barsUpTo(1);
  assert.equal(await page.locator('#members tbody tr').count(), 1);
  assert.equal(await page.locator('#members tbody tr .client-id').innerText(), 'clicks-app-1');
  assert.equal(await page.locator('#assignment td.assigned').count(), 4, 'the one member owns the 4 partitions');
  await shot('1-formed.png');

  // 2. Grown: the page updates by itself (no reload).
  const second = startMember(broker.bootstrap, 'clicks-app-2');
  cleanup.add('stop member 2', () => void second.child.kill('SIGKILL'));
  await until('member 2 joined', STEP_MS, async () => (second.joins.length > 0 ? true : undefined), 100);
  await page.waitForSelector(summary(2, 'Stable', 'classic'), { timeout: STEP_MS });
  const grown = generation();
  assert.ok(grown > formed, `a new generation: ${grown} after ${formed}`);
  await barsUpTo(1);
  assert.equal(await page.locator('#assignment td.assigned').count(), 4, 'each partition has one owner');
  assert.equal(await page.locator('#assignment thead th[data-member-id]').count(), 2);
  const bar = page.locator(`.tl-rebalance[data-generation="${grown}"]`);
  assert.match(await bar.locator('title').textContent() ?? '', /joined: .*clicks-app-2/);
  await shot('2-grown.png');

  // 3. A member killed: no LeaveGroup; the session timeout removes it.
  const killedId = second.joins[second.joins.length - 1]!;
  second.child.kill('SIGKILL');
  await page.waitForSelector(summary(1, 'Stable', 'classic'), { timeout: STEP_MS });
  const shrunk = generation();
  assert.ok(shrunk > grown);
  await barsUpTo(1);
  await page.waitForFunction((id) => {
    // Runs in the page (this file's types have no DOM).
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ textContent: string | null }> } }).document;
    return [...doc.querySelectorAll('#timeline-table .tl-row')].some((r) => (r.textContent ?? '').includes(id) && (r.textContent ?? '').includes('session-timeout'));
  }, killedId, { timeout: STEP_MS });
  assert.equal(await page.locator('#members tbody tr .client-id').innerText(), 'clicks-app-1');
  await shot('3-member-expired.png');

  // 4. Converted: a consumer-protocol member joins the classic group.
  const upgraded = new Consumer({ bootstrapServers: broker.bootstrap, groupId: GROUP, groupProtocol: 'consumer', clientId: 'clicks-app-848', autoOffsetReset: 'earliest', fetchMaxWaitMs: 100 });
  cleanup.add('close consumer', () => upgraded.close());
  upgraded.subscribe([TOPIC]);
  let polling = true;
  const polls = (async () => { while (polling) await upgraded.poll({ timeoutMs: 100 }); })();
  cleanup.add('stop polling', async () => { polling = false; await polls; });
  await page.waitForSelector(summary(2, 'Stable', 'consumer'), { timeout: STEP_MS });
  await page.waitForSelector('.tl-marker[data-kind="group-converted"]', { timeout: STEP_MS, state: 'attached' });
  await page.waitForSelector(`.tl-rebalance[data-generation="${generation()}"]`, { timeout: STEP_MS, state: 'attached' });
  const protocols = await page.locator('#members tbody tr .protocol').allInnerTexts();
  assert.deepEqual(protocols.sort(), ['classic', 'consumer'], 'the KafkaJS member stays, as a classic member of the consumer group');
  assert.equal(await page.locator('#assignment td.assigned').count(), 4);
  // The broker samples the lag every 5 s: by now the chart has a line per committed partition.
  await page.waitForSelector('#lag-chart .lag-line', { timeout: STEP_MS, state: 'attached' });
  await shot('4-converted.png');

  // The overview, reached by its link: the group as a consumer group with two members.
  await page.click('#home');
  await page.waitForSelector(`#groups tr[data-group="${GROUP}"]`, { timeout: STEP_MS });
  const row = page.locator(`#groups tr[data-group="${GROUP}"]`);
  assert.deepEqual([await row.locator('.type').innerText(), await row.locator('.members').innerText(), await row.locator('.state').innerText()], ['consumer', '2', 'Stable']);
  assert.equal(await page.locator(`#topics tr[data-topic="${TOPIC}"] .partitions`).innerText(), '4');
  await shot('5-overview.png');

  assert.deepEqual(problems, [], 'no script errors in the page');
});

test('in the browser, behind credentials: a signed-in user resets an Empty group\'s offsets and deletes it from its page', { timeout: 120_000, skip: SKIP }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({
    consolePort: 0, consoleWritesEnable: true,
    authorizerClassName: 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', superUsers: 'User:ANONYMOUS;User:ops',
  });
  cleanup.add('stop broker', () => broker.stop());
  broker.context.credentials.apply([{ op: 'setPlain', user: 'ops', credential: await plainCredential('ops-secret') }]);
  const base = `http://127.0.0.1:${broker.consolePort}`;
  await createTopicWithKafkaJs(broker.bootstrap, 'payments', 2);
  const producer = kafkaJs(broker.bootstrap, 'payments-producer').producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer disconnect', () => producer.disconnect());
  await producer.send({ topic: 'payments', messages: [...Array.from({ length: 6 }, (_, i) => ({ partition: 0, value: `p0-${i}` })), ...Array.from({ length: 4 }, (_, i) => ({ partition: 1, value: `p1-${i}` }))] });
  const admin = kafkaJs(broker.bootstrap, 'payments-admin').admin();
  await admin.connect();
  cleanup.add('admin disconnect', () => admin.disconnect());
  // An Empty group (offsets only), behind by 5 + 2.
  await admin.setOffsets({ groupId: 'settlement', topic: 'payments', partitions: [{ partition: 0, offset: '1' }, { partition: 1, offset: '2' }] });

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  cleanup.add('close browser', () => browser.close());
  // Without credentials: 401 and the Basic challenge (a headless browser has nobody to ask, so the request is made without navigating).
  const anonymous = await browser.newContext();
  const refused = await anonymous.request.get(base);
  assert.equal(refused.status(), 401);
  assert.match(refused.headers()['www-authenticate'] ?? '', /^Basic realm="brook"/);
  await anonymous.close();

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, httpCredentials: { username: 'ops', password: 'ops-secret' } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${base}/groups/settlement`);
  await page.waitForSelector('#group-summary[data-state="Empty"]', { timeout: STEP_MS });
  assert.equal(await page.locator('#group-lag').innerText(), '7');
  assert.equal(await page.locator('#reset-topic').inputValue(), 'payments');

  await page.click('#reset-latest');
  await page.waitForSelector('#write-result[data-status="200"]', { timeout: STEP_MS });
  await page.waitForFunction(() => {
    const doc = (globalThis as unknown as { document: { getElementById(id: string): { textContent: string | null } | null } }).document;
    return doc.getElementById('group-lag')?.textContent === '0';
  }, undefined, { timeout: STEP_MS });
  const offsets = await admin.fetchOffsets({ groupId: 'settlement', topics: ['payments'] });
  assert.deepEqual(offsets[0]!.partitions.map((p) => [p.partition, p.offset]).sort(), [[0, '6'], [1, '4']], 'KafkaJS reads the log end offsets back');

  await page.click('#delete-group');
  await page.waitForURL(`${base}/`, { timeout: STEP_MS });
  await page.waitForSelector('#group-count', { timeout: STEP_MS });
  assert.equal(await page.locator('#groups tr[data-group="settlement"]').count(), 0);
  assert.ok(!(await admin.listGroups()).groups.some((g) => g.groupId === 'settlement'), 'KafkaJS no longer lists it');
  assert.deepEqual(problems, []);
});
