/**
 * The logger's two formats and RateLimitedLog:
 * - text is logfmt: `key=value`, a value quoted (with `\"`, `\\` and control characters
 *   escaped) when it is empty or holds a space, a quote, `=` or a control character, as
 *   go-logfmt writes it; errors as their message, code and cause chain;
 * - json is one object per line: time, level, logger, msg, the fields; errors as
 *   {message, code, cause};
 * - the log lines for events a client can repeat at will (refused, idle or bad-input
 *   connections) are one per burst, and the next line says how many were held back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, formatJson, formatText, logfmtValue, parseLogFormat, parseLogLevel, RateLimitedLog } from '../../src/util/log.js';

const TIME = new Date('2026-01-02T03:04:05.678Z');

/** A logfmt line read back as the format defines it (written here, not Brook's writer). */
function parseLogfmt(line: string): [string, string][] {
  const out: [string, string][] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ') i++;
    const eq = line.indexOf('=', i);
    const key = line.slice(i, eq);
    i = eq + 1;
    let value = '';
    if (line[i] === '"') {
      i++;
      while (line[i] !== '"') {
        if (line[i] === '\\') {
          const c = line[i + 1]!;
          if (c === 'u') {
            value += String.fromCharCode(parseInt(line.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          value += c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c;
          i += 2;
        } else {
          value += line[i++];
        }
      }
      i++;
    } else {
      const end = line.indexOf(' ', i);
      value = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    }
    out.push([key, value]);
  }
  return out;
}

test('logfmt values: bare when safe; quoted and escaped when empty or holding a space, a quote, = or a control character', { timeout: 5_000 }, () => {
  const cases: [string, string][] = [
    ['plain', 'plain'],
    ['/127.0.0.1', '/127.0.0.1'],
    ['a\\b', 'a\\b'],
    ['', '""'],
    ['two words', '"two words"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['k=v', '"k=v"'],
    ['line\nbreak', '"line\\nbreak"'],
    ['tab\there', '"tab\\there"'],
    ['back\\slash and space', '"back\\\\slash and space"'],
    ['bell\u0007', '"bell\\u0007"'],
    ['ünïcödé', 'ünïcödé'],
  ];
  for (const [value, expected] of cases) assert.equal(logfmtValue(value), expected, JSON.stringify(value));
});

test('text lines: time, level, logger, msg, then the fields; errors with their code and cause chain; undefined fields left out', { timeout: 5_000 }, () => {
  const root = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
  const err = new Error('append failed', { cause: new Error('write of segment 0 failed', { cause: root }) });
  const line = formatText({
    time: TIME, level: 'warn', logger: 'broker:storage', msg: 'cannot append',
    fields: { topic: 'orders', partition: 3, offset: 12345678901234567890n, ok: false, none: null, skipped: undefined, list: ['a', 'b'], err },
  });
  assert.equal(line,
    'time=2026-01-02T03:04:05.678Z level=warn logger=broker:storage msg="cannot append" topic=orders partition=3 offset=12345678901234567890 ok=false none=null list="[\\"a\\",\\"b\\"]" ' +
    'err="append failed" cause="write of segment 0 failed: disk full"');
  assert.deepEqual(parseLogfmt(line).slice(4), [
    ['topic', 'orders'], ['partition', '3'], ['offset', '12345678901234567890'], ['ok', 'false'], ['none', 'null'], ['list', '["a","b"]'],
    ['err', 'append failed'], ['cause', 'write of segment 0 failed: disk full'],
  ]);
  const coded = formatText({ time: TIME, level: 'error', logger: 'b', msg: 'm', fields: { error: root, reason: 'a "quoted" = reason\n' } });
  assert.deepEqual(parseLogfmt(coded).slice(4), [['error', 'disk full'], ['error_code', 'ENOSPC'], ['reason', 'a "quoted" = reason\n']]);
  // A cause chain that loops ends.
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  assert.match(formatText({ time: TIME, level: 'info', logger: 'b', msg: 'm', fields: { err: b } }), /err=b cause=a$/);
});

test('json lines: one object per line, errors as {message, code, cause}, bigints as strings, fixed keys kept', { timeout: 5_000 }, () => {
  const err = new Error('append failed', { cause: Object.assign(new Error('disk full'), { code: 'ENOSPC' }) });
  const line = formatJson({ time: TIME, level: 'error', logger: 'broker', msg: 'cannot append', fields: { topic: 'orders', offset: 7n, skipped: undefined, msg: 'shadowed', err } });
  assert.ok(!line.includes('\n'));
  assert.deepEqual(JSON.parse(line), {
    time: '2026-01-02T03:04:05.678Z', level: 'error', logger: 'broker', msg: 'cannot append',
    topic: 'orders', offset: '7', 'field.msg': 'shadowed',
    err: { message: 'append failed', cause: { message: 'disk full', code: 'ENOSPC' } },
  });
  const lines: string[] = [];
  const log = createLogger('broker', 'info', (l) => lines.push(l), 'json').child('coordinator');
  log.debug('not written');
  log.info('member joined', { group: 'g', members: 2 });
  assert.equal(lines.length, 1);
  assert.ok(lines[0]!.endsWith('\n'));
  const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.deepEqual([parsed['level'], parsed['logger'], parsed['msg'], parsed['group'], parsed['members']], ['info', 'broker:coordinator', 'member joined', 'g', 2]);
  assert.ok(!Number.isNaN(Date.parse(String(parsed['time']))));
});

test('log levels and formats by name (the broker\'s --log-level and --log-format)', { timeout: 5_000 }, () => {
  assert.equal(parseLogLevel('DEBUG'), 'debug');
  assert.equal(parseLogFormat(' json '), 'json');
  assert.throws(() => parseLogLevel('verbose'), /unknown log level 'verbose'/);
  assert.throws(() => parseLogFormat('xml'), /unknown log format 'xml'/);
});

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
  assert.match(lines[0]!, /level=warn .*msg="refusing connections" client=\/a$/m);
  now = 10_000;
  log.event({ client: '/c' });
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /msg="refusing connections" client=\/c suppressed=99$/m);
  now += 1;
  log.event({ client: '/d' });
  assert.equal(lines.length, 2, 'a new interval began with the second line');

  // At debug level the held-back events are still written, one line each.
  const debugLines: string[] = [];
  const verbose = new RateLimitedLog(createLogger('t', 'debug', (l) => debugLines.push(l)), 'info', 'idle', 10_000, () => 0);
  for (let i = 0; i < 5; i++) verbose.event({ n: i });
  assert.equal(debugLines.length, 5);
  assert.equal(debugLines.filter((l) => l.includes('level=debug')).length, 4);
});
