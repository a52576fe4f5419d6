/**
 * Share sessions as Kafka's ShareSessionCache keeps them: epoch 0 opens (and replaces),
 * each later request carries the next epoch, -1 is accepted for the session's last request,
 * the cache is bounded (group.share.max.share.sessions), and a closed connection takes its
 * sessions with it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ShareSessionCache } from '../../src/broker/share/share-sessions.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const T = { timeout: 10_000 };

test('epochs: 0 opens, then 1, 2, ...; a wrong epoch or an unknown member is refused', T, () => {
  const cache = new ShareSessionCache(10);
  const connection = {};
  assert.deepEqual(cache.next('g', 'm', 1), { errorCode: ErrorCode.SHARE_SESSION_NOT_FOUND });
  const opened = cache.open('g', 'm', connection);
  assert.ok(!('errorCode' in opened));
  assert.ok('session' in cache.next('g', 'm', 1));
  assert.deepEqual(cache.next('g', 'm', 1), { errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH });
  assert.ok('session' in cache.next('g', 'm', 2));
  // -1: the last request of the session, whatever the epoch reached.
  assert.ok('session' in cache.next('g', 'm', -1));
  // A new epoch 0 replaces the session and starts again at 1.
  const again = cache.open('g', 'm', connection);
  assert.ok(!('errorCode' in again) && again.replaced === opened.session);
  assert.deepEqual(cache.next('g', 'm', 3), { errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH });
  assert.ok('session' in cache.next('g', 'm', 1));
});

test('partitions are added and forgotten; the cache is bounded; a closed connection removes its sessions', T, () => {
  const cache = new ShareSessionCache(2);
  const a = {};
  const b = {};
  const s1 = cache.open('g', 'm1', a);
  assert.ok('session' in s1);
  s1.session.add([{ topicId: 't', partition: 0 }, { topicId: 't', partition: 1 }, { topicId: 't', partition: 0 }]);
  s1.session.forget([{ topicId: 't', partition: 0 }]);
  assert.deepEqual([...s1.session.partitions.keys()], ['t:1']);
  assert.ok('session' in cache.open('g', 'm2', b));
  assert.deepEqual(cache.open('g', 'm3', b), { errorCode: ErrorCode.SHARE_SESSION_LIMIT_REACHED });
  assert.deepEqual(cache.removeConnection(a).map((s) => s.memberId), ['m1']);
  assert.equal(cache.size, 1);
  assert.equal(cache.removeMember('g', 'm2')?.memberId, 'm2');
  assert.equal(cache.size, 0);
});
