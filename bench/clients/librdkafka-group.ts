/** Many librdkafka consumers (confluent-kafka) in one python process: bench/python/group_members.py. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/brook.js';
import { commandWorks } from '../../test/support/clients/run.js';
import { eventProcess } from './event-process.js';
import type { GroupClient, GroupSession, GroupSpec } from './types.js';

let version: string | undefined;

/** librdkafka's version as confluent-kafka reports it ('' when it cannot be read). */
function librdkafkaVersion(): string {
  if (version === undefined) {
    const r = spawnSync('python3', ['-c', 'import confluent_kafka; print(confluent_kafka.libversion()[0])'], { encoding: 'utf8' });
    version = r.status === 0 ? r.stdout.trim() : '';
  }
  return version;
}

function librdkafkaSpeaksConsumer(): boolean {
  const [major = 0, minor = 0] = librdkafkaVersion().split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 12);
}

export const librdkafkaGroupClient: GroupClient = {
  name: 'librdkafka',
  unavailable: () => (commandWorks('python3', ['-c', 'import confluent_kafka']) ? null : 'python3 confluent-kafka not installed'),
  // librdkafka has group.protocol=consumer generally available since 2.12.
  protocolUnavailable: (protocol) => (protocol === 'classic' || librdkafkaSpeaksConsumer() ? null : `librdkafka ${librdkafkaVersion()} (confluent-kafka) has no group.protocol=consumer (2.12+)`),
  async start(spec: GroupSpec): Promise<GroupSession> {
    return eventProcess('python3', [
      join(projectRoot, 'bench', 'python', 'group_members.py'),
      spec.bootstrap, spec.topic, spec.group, String(spec.members), spec.assignor, String(spec.heartbeatIntervalMs), spec.protocol,
    ], spec.members);
  },
};
