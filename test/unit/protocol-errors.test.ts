import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BrookError,
  ErrorCode,
  type ErrorCodeName,
  KAFKA_ERRORS,
  KafkaProtocolError,
  errorInfo,
  isRetriable,
  throwIfError,
} from '../../src/protocol/errors.js';

test('codes and names are unique, and ErrorCode agrees with errorInfo', () => {
  const codes = KAFKA_ERRORS.map((e) => e.code);
  const names = KAFKA_ERRORS.map((e) => e.name);
  assert.equal(new Set(codes).size, codes.length);
  assert.equal(new Set(names).size, names.length);

  const entries = Object.entries(ErrorCode);
  assert.equal(entries.length, KAFKA_ERRORS.length);
  assert.equal(new Set(entries.map(([, code]) => code)).size, entries.length);
  for (const [name, code] of entries) {
    const info = errorInfo(code);
    assert.equal(info.code, code);
    assert.equal(info.name, name);
    assert.ok(info.message.length > 0, `${name} has a message`);
  }
});

test('table is contiguous from UNKNOWN_SERVER_ERROR (-1) to the newest code', () => {
  KAFKA_ERRORS.forEach((e, i) => assert.equal(e.code, i - 1));
  assert.equal(ErrorCode.UNKNOWN_SERVER_ERROR, -1);
  assert.equal(ErrorCode.SHARE_SESSION_LIMIT_REACHED, 133);
  // The newest codes, as of Kafka 4.4 (the table is checked against Kafka's own in the interop suite).
  assert.equal(ErrorCode.GROUP_DELETION_FAILED, 134);
  assert.equal(ErrorCode.CONTROLLER_ID_NOT_REGISTERED, 136);
  assert.equal(KAFKA_ERRORS.at(-1)!.code, 136);
});

test('well-known codes have the right numbers and retriable flags', () => {
  const expected: ReadonlyArray<[ErrorCodeName, number, boolean]> = [
    ['NONE', 0, false],
    ['OFFSET_OUT_OF_RANGE', 1, false],
    ['CORRUPT_MESSAGE', 2, true],
    ['UNKNOWN_TOPIC_OR_PARTITION', 3, true],
    ['NOT_LEADER_OR_FOLLOWER', 6, true],
    ['REQUEST_TIMED_OUT', 7, true],
    ['NETWORK_EXCEPTION', 13, true],
    ['COORDINATOR_LOAD_IN_PROGRESS', 14, true],
    ['COORDINATOR_NOT_AVAILABLE', 15, true],
    ['NOT_COORDINATOR', 16, true],
    ['ILLEGAL_GENERATION', 22, false],
    ['UNKNOWN_MEMBER_ID', 25, false],
    ['REBALANCE_IN_PROGRESS', 27, false],
    ['KAFKA_STORAGE_ERROR', 56, true],
    ['FETCH_SESSION_ID_NOT_FOUND', 70, true],
    ['MEMBER_ID_REQUIRED', 79, false],
    ['GROUP_MAX_SIZE_REACHED', 81, false],
    ['FENCED_INSTANCE_ID', 82, false],
    ['UNSTABLE_OFFSET_COMMIT', 88, true],
    ['THROTTLING_QUOTA_EXCEEDED', 89, true],
    ['FENCED_MEMBER_EPOCH', 110, false],
    ['STALE_MEMBER_EPOCH', 113, false],
  ];
  for (const [name, code, retriable] of expected) {
    assert.equal(ErrorCode[name], code, name);
    const info = errorInfo(code);
    assert.equal(info.name, name);
    assert.equal(info.retriable, retriable, `${name} retriable`);
    assert.equal(isRetriable(code), retriable, `isRetriable(${name})`);
  }
});

test('errorInfo returns shared objects for known codes', () => {
  assert.equal(errorInfo(16), errorInfo(16));
  assert.ok(Object.isFrozen(errorInfo(16)));
});

test('unknown codes are reported as non-retriable UNKNOWN_ERROR_CODE_<n>', () => {
  for (const code of [-2, 9999, 32767, -32768, 1.5, Number.NaN]) {
    const info = errorInfo(code);
    assert.equal(info.code, code);
    assert.equal(info.name, `UNKNOWN_ERROR_CODE_${code}`);
    assert.equal(info.retriable, false);
    assert.equal(isRetriable(code), false);
  }
});

test('KafkaProtocolError carries the code, name, retriability and a readable message', () => {
  const err = new KafkaProtocolError(ErrorCode.NOT_COORDINATOR, 'group g1');
  assert.ok(err instanceof KafkaProtocolError);
  assert.ok(err instanceof BrookError);
  assert.ok(err instanceof Error);
  assert.equal(err.code, 'ERR_KAFKA');
  assert.equal(err.name, 'KafkaProtocolError');
  assert.equal(err.errorCode, 16);
  assert.equal(err.errorName, 'NOT_COORDINATOR');
  assert.equal(err.retriable, true);
  assert.equal(err.detail, 'group g1');
  assert.match(err.message, /^NOT_COORDINATOR \(16\): .+: group g1$/);

  const plain = new KafkaProtocolError(ErrorCode.REBALANCE_IN_PROGRESS);
  assert.equal(plain.retriable, false);
  assert.match(plain.message, /^REBALANCE_IN_PROGRESS \(27\): [^:]+$/);

  const unknown = new KafkaProtocolError(4242);
  assert.equal(unknown.errorName, 'UNKNOWN_ERROR_CODE_4242');
  assert.equal(unknown.retriable, false);
});

test('throwIfError throws only for non-zero codes', () => {
  assert.doesNotThrow(() => throwIfError(ErrorCode.NONE));
  assert.throws(
    () => throwIfError(ErrorCode.UNKNOWN_MEMBER_ID, 'member m1'),
    (e: unknown) =>
      e instanceof KafkaProtocolError && e.errorCode === 25 && e.errorName === 'UNKNOWN_MEMBER_ID' && !e.retriable,
  );
});
