/**
 * RateLimitedLog: the log lines for events a client can repeat at will (refused, idle or
 * bad-input connections) are one per burst, and the next line says how many were held back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, RateLimitedLog } from '../../src/util/log.js';

test('a rate-limited log writes the first event, holds back the rest of the interval at debug, and counts them in the next line', { timeout: 5_000 }, () => {
  const lines: string[] = [];
  let now = 0;
  const log = new RateLimitedLog(createLogger('t', 'info', (l) => lines.push(l)), 'warn', 'refusing connections', 10_000, () => now);
  log.event({ client: '/a' });
  for (let i = 0; i < 99; i++) {
    now += 100;
    log.event({ client: '/b' });
  }
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /WARN .*refusing connections client=\/a$/m);
  now = 10_000;
  log.event({ client: '/c' });
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /refusing connections client=\/c suppressed=99$/m);
  now += 1;
  log.event({ client: '/d' });
  assert.equal(lines.length, 2, 'a new interval began with the second line');

  // At debug level the held-back events are still written, one line each.
  const debugLines: string[] = [];
  const verbose = new RateLimitedLog(createLogger('t', 'debug', (l) => debugLines.push(l)), 'info', 'idle', 10_000, () => 0);
  for (let i = 0; i < 5; i++) verbose.event({ n: i });
  assert.equal(debugLines.length, 5);
  assert.equal(debugLines.filter((l) => l.includes('DEBUG')).length, 4);
});
