/**
 * `brook groups` with a share group (KIP-932) on a Brook broker: list by type, describe
 * (offsets, members, JSON), reset-offsets (refused while a member is in, then planned and
 * executed through AlterShareGroupOffsets), delete-offsets (DeleteShareGroupOffsets) and
 * delete. The share member is driven with raw ShareGroupHeartbeat requests.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { projectRoot, startBrook } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { produce } from '../support/consumer-helpers.js';

const BIN = join(projectRoot, 'bin', 'brook');
const MEMBER = 'AAAAAAAAAAAAAAAAAAAAAA';
const G = 'sg';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let broker: Awaited<ReturnType<typeof startBrook>>;
let conn: KafkaConnection;

before(async () => {
  broker = await startBrook();
  conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'share-cli' });
  await conn.request(Api.CreateTopics, { topics: [{ name: 'st', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, { version: 7 });
  await produce(broker.bootstrap, 'st', 0, ['a', 'b', 'c', 'd', 'e']);
});

after(async () => {
  conn.close();
  await broker.stop();
});

function brook(args: readonly string[]) {
  return runProcess(process.execPath, [BIN, ...args, '-b', broker.bootstrap], { timeoutMs: 30_000 });
}

async function heartbeat(memberEpoch: number, topics: string[] | null): Promise<{ memberEpoch: number; partitions: number }> {
  const r = await conn.request(Api.ShareGroupHeartbeat, { groupId: G, memberId: MEMBER, memberEpoch, rackId: null, subscribedTopicNames: topics });
  assert.equal(r.errorCode, 0, r.errorMessage ?? '');
  return { memberEpoch: r.memberEpoch, partitions: (r.assignment?.topicPartitions ?? []).reduce((n, t) => n + t.partitions.length, 0) };
}

test('groups list, describe, reset-offsets, delete-offsets and delete of a share group', { timeout: 120_000 }, async () => {
  let hb = await heartbeat(0, ['st']);
  for (let i = 0; hb.partitions < 2; i++) {
    assert.ok(i < 100, 'assigned');
    await sleep(20);
    hb = await heartbeat(hb.memberEpoch, null);
  }

  const listed = await brook(['groups', 'list', '--type', 'share']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^GROUP\s+TYPE\s+STATE\s*\nsg\s+share\s+Stable\s*\n$/);
  const all = await brook(['groups', 'list', '--json']);
  assert.deepEqual(JSON.parse(all.stdout), [{ group: G, state: 'Stable', type: 'share', protocolType: 'share' }]);

  const described = await brook(['groups', 'describe', G]);
  assert.equal(described.code, 0, described.stderr);
  const lines = described.stdout.split('\n');
  assert.match(lines[0]!, /^Share group 'sg' is Stable \(assignor simple, group epoch \d+, assignment epoch \d+, 1 member, total lag 0\)\.$/);
  assert.match(described.stdout, /GROUP\s+TOPIC\s+PARTITION\s+LEADER-EPOCH\s+START-OFFSET\s+LAG\s*\nsg\s+st\s+0\s+-\s+-\s+-\s*\nsg\s+st\s+1\s+-\s+-\s+-/);
  assert.match(described.stdout, new RegExp(`GROUP\\s+CONSUMER-ID\\s+HOST\\s+CLIENT-ID\\s+#PARTITIONS\\s+ASSIGNMENT\\s*\\nsg\\s+${MEMBER}\\s+/127\\.0\\.0\\.1\\s+share-cli\\s+2\\s+st:0,1`));
  const members = await brook(['groups', 'describe', G, '--members', '--verbose']);
  assert.match(members.stdout, /#PARTITIONS\s+MEMBER-EPOCH\s+ASSIGNMENT/);
  const state = await brook(['groups', 'describe', G, '--state', '--json']);
  assert.deepEqual({ ...JSON.parse(state.stdout), coordinator: null }, { group: G, coordinator: null, assignmentStrategy: 'simple', state: 'Stable', members: 1, groupEpoch: hb.memberEpoch, assignmentEpoch: hb.memberEpoch });

  // Not while a member is in: Kafka's tool's sentence, exit 1.
  const active = await brook(['groups', 'reset-offsets', G, '--topic', 'st', '--to-earliest', '--execute']);
  assert.equal(active.code, 1);
  assert.match(active.stderr, /Share group 'sg' is not empty\./);
  await heartbeat(-1, null);

  // A dry run plans; --execute alters the start offsets.
  const dry = await brook(['groups', 'reset-offsets', G, '--topic', 'st:0', '--to-latest']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /sg\s+st\s+0\s+5\s*\n$/);
  const executed = await brook(['groups', 'reset-offsets', G, '--topic', 'st:0', '--to-offset', '2', '--execute', '--json']);
  assert.equal(executed.code, 0, executed.stderr);
  assert.deepEqual(JSON.parse(executed.stdout), [{ topic: 'st', partition: 0, offset: 2 }]);
  const afterReset = JSON.parse((await brook(['groups', 'describe', G, '--json'])).stdout) as { state: string; type: string; offsets: { partition: number; committed: number | null; logEndOffset: number | null; lag: number | null; startOffset: number | null }[] };
  assert.equal(afterReset.state, 'Empty');
  assert.equal(afterReset.type, 'share');
  assert.deepEqual(afterReset.offsets.find((o) => o.partition === 0), { topic: 'st', partition: 0, committed: 2, logEndOffset: 5, lag: 3, startOffset: 2, leaderEpoch: 0 });
  const shifted = await brook(['groups', 'reset-offsets', G, '--all-topics', '--shift-by', '-1', '--json']);
  assert.deepEqual(JSON.parse(shifted.stdout), [{ topic: 'st', partition: 0, offset: 1 }], 'all topics: the partitions with a start offset');

  // delete-offsets: whole topics only; then the share state is gone.
  const byPartition = await brook(['groups', 'delete-offsets', G, '--topic', 'st:0']);
  assert.equal(byPartition.code, 2);
  const deleted = await brook(['groups', 'delete-offsets', G, '--topic', 'st', '--topic', 'nope']);
  assert.equal(deleted.code, 1);
  assert.match(deleted.stdout, /TOPIC\s+STATUS\s*\nst\s+Successful\s*\nnope\s+Error: UNKNOWN_TOPIC_OR_PARTITION: This server does not host this topic-partition\./);
  const empty = await brook(['groups', 'describe', G]);
  assert.equal(empty.stdout, "Share group 'sg' is Empty (assignor simple, group epoch " + /group epoch (\d+)/.exec(empty.stdout)![1] + ', assignment epoch ' + /assignment epoch (\d+)/.exec(empty.stdout)![1] + ', 0 members, total lag 0).\n');

  const gone = await brook(['groups', 'delete', G]);
  assert.equal(gone.code, 0, gone.stderr);
  const unknown = await brook(['groups', 'describe', G]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Consumer group 'sg' does not exist\./);
});
