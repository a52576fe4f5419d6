/** Many Java KafkaConsumers (kafka-clients 4.4.0) in one JVM: BenchGroup in the test-support jar. */
import { benchJar, clientJvmOptions, javaUnavailable } from './java.js';
import { eventProcess } from './event-process.js';
import type { GroupClient, GroupSession, GroupSpec } from './types.js';

export const javaGroupClient: GroupClient = {
  name: 'java',
  unavailable: javaUnavailable,
  // kafka-clients 4.x: group.protocol=consumer (BenchGroup's last argument).
  protocolUnavailable: () => null,
  async start(spec: GroupSpec): Promise<GroupSession> {
    return eventProcess('java', [
      ...clientJvmOptions, '-Xss512k', '-cp', benchJar(), 'brook.conformance.BenchGroup',
      spec.bootstrap, spec.topic, spec.group, String(spec.members), spec.assignor, String(spec.heartbeatIntervalMs), spec.protocol,
    ], spec.members);
  },
};
