/**
 * The time-limit helpers every client uses: withTimeLimit on a manual clock, and
 * linkedSignal, which combines a call's signal with a client's own without leaving anything
 * behind in the long-lived one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ManualScheduler } from '../../src/util/clock.js';
import { linkedSignal, withTimeLimit } from '../../src/client/deadline.js';
import { projectRoot } from '../support/brook.js';

test('withTimeLimit: TimeoutError at the limit even when the operation ignores its signal; the operation\'s signal is aborted too', { timeout: 10_000 }, async () => {
  const scheduler = new ManualScheduler(0);
  let inner: AbortSignal | null = null;
  const call = withTimeLimit(scheduler, { what: 'op', timeoutMs: 1_000 }, (signal) => {
    inner = signal;
    return new Promise<never>(() => undefined); // never settles, never listens
  });
  let settled = false;
  call.catch(() => undefined).finally(() => { settled = true; });
  await scheduler.advance(999);
  assert.equal(settled, false);
  await scheduler.advance(1);
  await assert.rejects(call, { code: 'ERR_TIMEOUT', message: 'op did not complete within 1000 ms' });
  assert.equal(inner!.aborted, true);
});

test('withTimeLimit: a caller\'s signal ends the call with the error it maps the reason to, and its listener is removed afterwards', { timeout: 10_000 }, async () => {
  const scheduler = new ManualScheduler(0);
  const caller = new AbortController();
  const call = withTimeLimit(scheduler, { what: 'op', timeoutMs: 1_000, signals: [caller.signal], aborted: (r) => new Error(`aborted: ${String(r)}`) },
    () => new Promise<never>(() => undefined));
  assert.equal(getEventListeners(caller.signal, 'abort').length, 1);
  caller.abort('stop');
  await assert.rejects(call, { message: 'aborted: stop' });
  assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
  const done = await withTimeLimit(scheduler, { what: 'op', timeoutMs: 1_000, signals: [new AbortController().signal] }, async () => 42);
  assert.equal(done, 42);
  assert.equal(scheduler.pendingTimers, 0, 'the limit\'s timer is cancelled once the call ends');
});

test('linkedSignal aborts with the first source\'s reason and, disposed, leaves no listener on any source', () => {
  const a = new AbortController();
  const b = new AbortController();
  const linked = linkedSignal([a.signal, undefined, b.signal]);
  assert.equal(getEventListeners(a.signal, 'abort').length, 1);
  b.abort('b stopped');
  assert.equal(linked.signal.aborted, true);
  assert.equal(linked.signal.reason, 'b stopped');
  linked.dispose();
  assert.equal(getEventListeners(a.signal, 'abort').length, 0);
  const many = Array.from({ length: 1_000 }, () => linkedSignal([a.signal, new AbortController().signal]));
  for (const l of many) l.dispose();
  assert.equal(getEventListeners(a.signal, 'abort').length, 0, 'a long-lived source collects nothing');
  assert.equal(linkedSignal([a.signal]).signal, a.signal, 'one source is itself');
});

test('the clients do not use AbortSignal.any (on Node 20 every call would stay referenced from a long-lived source)', () => {
  const dir = join(projectRoot, 'src');
  const files = (function walk(d: string): string[] {
    return readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : n.endsWith('.ts') ? [join(d, n)] : []));
  })(dir);
  assert.deepEqual(files.filter((f) => readFileSync(f, 'utf8').includes('AbortSignal.any(')).map((f) => f.slice(dir.length + 1)), []);
});
