/**
 * The one classification of group coordinator errors the clients share. Expected actions
 * are what Kafka's Java clients do with each code (AbstractCoordinator's Join/Sync/Heartbeat
 * handlers, ConsumerCoordinator's OffsetCommit and OffsetFetch handlers, the admin client's
 * coordinator strategy), and no other client module keeps a set of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, KAFKA_ERRORS, KafkaProtocolError } from '../../src/protocol/errors.js';
import { coordinatorErrorAction, coordinatorFailureAction, isRetriableCoordinatorFailure } from '../../src/client/coordinator-errors.js';
import { ConnectionError, NoBrokerReachableError, RequestTimeoutError, TimeoutError } from '../../src/client/errors.js';
import { projectRoot } from '../support/brook.js';

test("each coordinator error gets the action Kafka's Java clients take", () => {
  const expected: [keyof typeof ErrorCode, string][] = [
    ['NONE', 'none'],
    ['NOT_COORDINATOR', 'find-coordinator'], // markCoordinatorUnknown, then retry
    ['COORDINATOR_NOT_AVAILABLE', 'find-coordinator'],
    ['REQUEST_TIMED_OUT', 'find-coordinator'], // OffsetCommitResponseHandler marks the coordinator unknown
    ['COORDINATOR_LOAD_IN_PROGRESS', 'retry'], // same coordinator, after a backoff
    ['UNKNOWN_TOPIC_OR_PARTITION', 'retry'], // OffsetCommit: RetriableCommitFailedException
    ['UNSTABLE_OFFSET_COMMIT', 'retry'], // OffsetFetch with require_stable
    ['REBALANCE_IN_PROGRESS', 'rejoin'], // requestRejoin, member id and generation kept
    ['ILLEGAL_GENERATION', 'reset-generation'], // resetStateAndRejoin(shouldResetMemberId = false)
    ['UNKNOWN_MEMBER_ID', 'reset-member'], // resetStateAndRejoin(shouldResetMemberId = true)
    ['FENCED_INSTANCE_ID', 'fenced'], // FencedInstanceIdException, fatal
    ['GROUP_AUTHORIZATION_FAILED', 'fatal'],
    ['INVALID_GROUP_ID', 'fatal'],
    ['OFFSET_METADATA_TOO_LARGE', 'fatal'],
    ['INVALID_COMMIT_OFFSET_SIZE', 'fatal'],
    ['GROUP_MAX_SIZE_REACHED', 'fatal'],
    ['INCONSISTENT_GROUP_PROTOCOL', 'fatal'],
    // The consumer protocol (AbstractHeartbeatRequestManager, CommitRequestManager):
    ['FENCED_MEMBER_EPOCH', 'reset-generation'], // transitionToFenced: partitions lost, rejoin at epoch 0
    ['STALE_MEMBER_EPOCH', 'stale-epoch'], // commitSync: CommitFailedException; commit before revocation, OffsetFetch: retried
    ['TOPIC_AUTHORIZATION_FAILED', 'report'], // heartbeat: an error event, the membership goes on
    ['UNRELEASED_INSTANCE_ID', 'fatal'],
    ['UNSUPPORTED_ASSIGNOR', 'fatal'],
    ['INVALID_REGULAR_EXPRESSION', 'fatal'],
    ['GROUP_ID_NOT_FOUND', 'fatal'],
    ['INVALID_REQUEST', 'fatal'],
  ];
  assert.deepEqual(expected.map(([name]) => [name, coordinatorErrorAction(ErrorCode[name])]), expected);
});

test('every retriable code is retried (after finding the coordinator again or not), never fatal', () => {
  for (const e of KAFKA_ERRORS.filter((x) => x.retriable)) {
    assert.ok(['retry', 'find-coordinator'].includes(coordinatorErrorAction(e.code)), `${e.name} is retriable`);
  }
  assert.equal(coordinatorErrorAction(9999), 'fatal', 'a code this client does not know is not retried (as Java)');
});

test('thrown failures: a broken connection or an unanswered request finds the coordinator again; anything else is fatal', () => {
  assert.equal(coordinatorFailureAction(new ConnectionError('closed')), 'find-coordinator');
  assert.equal(coordinatorFailureAction(new RequestTimeoutError('no answer')), 'find-coordinator');
  assert.equal(coordinatorFailureAction(new NoBrokerReachableError('none')), 'find-coordinator');
  assert.equal(coordinatorFailureAction(new KafkaProtocolError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)), 'retry');
  assert.equal(coordinatorFailureAction(new TimeoutError('the call ran out of time')), 'fatal');
  assert.equal(coordinatorFailureAction(new TypeError('a bug')), 'fatal');
  assert.equal(isRetriableCoordinatorFailure(new KafkaProtocolError(ErrorCode.NOT_COORDINATOR)), true);
  assert.equal(isRetriableCoordinatorFailure(new KafkaProtocolError(ErrorCode.GROUP_AUTHORIZATION_FAILED)), false);
});

test('no other client module classifies coordinator errors itself', () => {
  const dir = join(projectRoot, 'src', 'client');
  const files = (function walk(d: string): string[] {
    return readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : n.endsWith('.ts') ? [join(d, n)] : []));
  })(dir);
  const own = files.filter((f) => !f.endsWith('coordinator-errors.ts')).filter((f) => {
    const text = readFileSync(f, 'utf8');
    // A comparison, a case or a set of these codes is a classification; raising one is not.
    return /(case\s+|[!=]==\s*|new Set[^;]*)ErrorCode\.(NOT_COORDINATOR|COORDINATOR_NOT_AVAILABLE|COORDINATOR_LOAD_IN_PROGRESS|REBALANCE_IN_PROGRESS|UNKNOWN_MEMBER_ID|ILLEGAL_GENERATION)\b/.test(text);
  });
  assert.deepEqual(own.map((f) => f.slice(dir.length + 1)), []);
});
