/** Many librdkafka consumers (confluent-kafka) in one python process: bench/python/group_members.py. */
import { join } from 'node:path';
import { projectRoot } from '../../test/support/brook.js';
import { commandWorks } from '../../test/support/clients/run.js';
import { eventProcess } from './event-process.js';
import type { GroupClient, GroupSession, GroupSpec } from './types.js';

export const librdkafkaGroupClient: GroupClient = {
  name: 'librdkafka',
  unavailable: () => (commandWorks('python3', ['-c', 'import confluent_kafka']) ? null : 'python3 confluent-kafka not installed'),
  async start(spec: GroupSpec): Promise<GroupSession> {
    return eventProcess('python3', [
      join(projectRoot, 'bench', 'python', 'group_members.py'),
      spec.bootstrap, spec.topic, spec.group, String(spec.members), spec.assignor, String(spec.heartbeatIntervalMs),
    ], spec.members);
  },
};
