/**
 * Rebalance protocols of Brook's consumer against Brook's broker over real sockets.
 * Cooperative (cooperative-sticky): a joining member takes partitions in two rounds — the
 * existing member revokes only the partitions that move and keeps consuming the others, and
 * the revoked ones are assigned in a second round; a leaving member's partitions go to the
 * others without revoking theirs. Eager (range): every partition is revoked before the
 * rejoin, after a synchronous commit of the consumed positions when auto-commit is on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import { createTopic, produceSpread, valueOf } from '../support/consumer-helpers.js';

interface Ev { type: 'assigned' | 'revoked' | 'lost'; partitions: number[] }

/** Every consumer a test opened, closed in its finally so a failed assertion cannot leave timers running. */
const opened: Consumer[] = [];
async function closeAll(): Promise<void> {
  await Promise.all(opened.splice(0).map((c) => c.close()));
}

function member(bootstrap: string, group: string, assignor: string, events: Ev[], extra: Partial<ConsumerOptions> = {}): Consumer {
  const c = new Consumer({
    bootstrapServers: bootstrap, groupId: group, assignors: [assignor], autoOffsetReset: 'earliest',
    heartbeatIntervalMs: 100, sessionTimeoutMs: 6_000, fetchMaxWaitMs: 50, ...extra,
  });
  const log = (type: Ev['type']) => (ps: { partition: number }[]): void => { events.push({ type, partitions: ps.map((p) => p.partition).sort((a, b) => a - b) }); };
  opened.push(c);
  c.subscribe(['t'], { onPartitionsAssigned: log('assigned'), onPartitionsRevoked: log('revoked'), onPartitionsLost: log('lost') });
  return c;
}

const parts = (c: Consumer): number[] => c.assignment().map((p) => p.partition).sort((a, b) => a - b);

/** Polls until `done()`; `each` sees every poll result with its consumer's index. */
async function pollUntil(consumers: Consumer[], done: () => boolean, each: (i: number, values: string[]) => void = () => undefined, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(consumers.map(async (c, i) => {
    while (!done() && Date.now() < deadline) each(i, (await c.poll({ timeoutMs: 50 })).map(valueOf));
  }));
  assert.ok(done(), 'condition not reached in time');
}

test('cooperative-sticky: a joining member takes only moved partitions (two rounds); the others keep theirs; a leaving member\'s partitions move without revocations', { timeout: 40_000 }, async () => {
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  try {
    await createTopic(broker.bootstrap, 't', 6);
    const aEvents: Ev[] = [];
    const bEvents: Ev[] = [];
    const a = member(broker.bootstrap, 'coop', 'cooperative-sticky', aEvents);
    await pollUntil([a], () => parts(a).length === 6);
    assert.deepEqual(aEvents, [{ type: 'assigned', partitions: [0, 1, 2, 3, 4, 5] }]);

    const b = member(broker.bootstrap, 'coop', 'cooperative-sticky', bEvents);
    // While b joins, a never loses a partition that stays with it: sample a's assignment at every poll.
    const samples: number[][] = [];
    await pollUntil([a, b], () => parts(a).length === 3 && parts(b).length === 3, (i) => { if (i === 0) samples.push(parts(a)); });
    const kept = parts(a);
    const moved = parts(b);
    // a's own round-2 callback may run just after b got its partitions.
    await pollUntil([a], () => aEvents.length >= 4);
    assert.deepEqual(aEvents.slice(1), [{ type: 'revoked', partitions: moved }, { type: 'assigned', partitions: [] }, { type: 'assigned', partitions: [] }],
      'a revoked only the moved partitions, once (round 1), and got nothing new in round 2; its kept partitions were never revoked');
    // Not vacuous: a polled at least once while b joined, and kept 3 partitions.
    assert.ok(samples.length > 0, 'a\'s assignment sampled while b joined');
    assert.equal(kept.length, 3);
    for (const s of samples) for (const p of kept) assert.ok(s.includes(p), `a kept partition ${p} throughout: ${JSON.stringify(samples)}`);
    // Round 1 gives b nothing (the moved partitions are still owned by a); round 2 gives them.
    assert.deepEqual(bEvents, [{ type: 'assigned', partitions: [] }, { type: 'assigned', partitions: moved }]);

    // Both consume their own partitions, no record twice.
    const all = await produceSpread(broker.bootstrap, 't', 6, 20);
    const seen: string[][] = [[], []];
    await pollUntil([a, b], () => seen.flat().length >= all.length, (i, v) => seen[i]!.push(...v));
    assert.deepEqual(seen.flat().sort(), [...all].sort());
    assert.deepEqual([...new Set(seen[0]!.map((v) => Number(v.split('-')[0]!.slice(1))))].sort(), kept);

    // b leaves: a gets b's partitions added, nothing revoked.
    const beforeLeave = aEvents.length;
    await b.close();
    await pollUntil([a], () => parts(a).length === 6);
    assert.deepEqual(aEvents.slice(beforeLeave), [{ type: 'assigned', partitions: moved }], JSON.stringify({ aEvents, bEvents, beforeLeave }));
    await a.close();
  } finally {
    await closeAll();
    await broker.stop();
  }
});

/** Records produced to each partition in the eager test (a new topic: its end offset too). */
const PER_PARTITION = 10;

test('eager (range): every partition revoked before the rejoin, after a synchronous commit of the consumed positions (auto-commit on)', { timeout: 40_000 }, async () => {
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  try {
    await createTopic(broker.bootstrap, 't', 6);
    const aEvents: Ev[] = [];
    const bEvents: Ev[] = [];
    // The interval is long: only the rebalance can commit during this test.
    const a = member(broker.bootstrap, 'eager', 'range', aEvents, { autoCommitIntervalMs: 600_000 });
    await pollUntil([a], () => parts(a).length === 6);
    const all = await produceSpread(broker.bootstrap, 't', 6, PER_PARTITION);
    let n = 0;
    await pollUntil([a], () => n >= all.length, (_, v) => { n += v.length; });
    let committedAtRevoke: Map<string, bigint | null> | null = null;
    const b = member(broker.bootstrap, 'eager', 'range', bEvents, { autoCommitIntervalMs: 600_000 });
    // Observe the committed offsets from a's revoke callback, before it rejoins.
    aEvents.length = 0;
    const check = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'eager', enableAutoCommit: false });
    opened.push(check);
    const tps = [0, 1, 2, 3, 4, 5].map((partition) => ({ topic: 't', partition }));
    const originalPush = aEvents.push.bind(aEvents);
    let pending: Promise<void> | null = null;
    aEvents.push = (...evs: Ev[]): number => {
      if (evs.some((e) => e.type === 'revoked') && !pending) pending = check.committed(tps).then((m) => { committedAtRevoke = m; });
      return originalPush(...evs);
    };
    const bSeen: string[] = [];
    await pollUntil([a, b], () => parts(a).length === 3 && parts(b).length === 3, (i, v) => { if (i === 1) bSeen.push(...v); });
    await pending;
    assert.deepEqual(aEvents[0], { type: 'revoked', partitions: [0, 1, 2, 3, 4, 5] }, 'eager: everything revoked first');
    assert.deepEqual(aEvents[1], { type: 'assigned', partitions: parts(a) }, 'then the whole new assignment');
    assert.ok(committedAtRevoke, 'committed offsets read at revocation');
    // Every partition (an empty map would check nothing), each at 10: the records produced to
    // it, all consumed by a before b joined.
    const atRevoke = committedAtRevoke as Map<string, bigint | null>;
    assert.deepEqual([...atRevoke.keys()].sort(), tps.map((tp) => `t:${tp.partition}`), 'every partition answered');
    assert.deepEqual(atRevoke, new Map(tps.map((tp) => [`t:${tp.partition}`, BigInt(PER_PARTITION)])), 'each committed at its end (10) before the revoke');
    assert.deepEqual(bEvents, [{ type: 'assigned', partitions: parts(b) }]);
    // b starts at the committed offsets: it re-reads nothing. Half a second of polling that
    // ends by itself: a catch-all around a never-true condition also swallowed poll errors,
    // and a b whose polls failed would have "read nothing".
    const quietUntil = Date.now() + 500;
    await pollUntil([a, b], () => Date.now() >= quietUntil, (i, v) => { if (i === 1) bSeen.push(...v); });
    assert.deepEqual(bSeen, []);
    await check.close();
    await a.close();
    await b.close();
  } finally {
    await closeAll();
    await broker.stop();
  }
});
