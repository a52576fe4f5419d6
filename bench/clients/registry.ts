/**
 * The clients each scenario runs; Brook's own client (./brook.ts) first.
 */
import { brookClient, brookGroupClient } from './brook.js';
import { franzClient } from './franz.js';
import { javaClient } from './java.js';
import { javaGroupClient } from './java-group.js';
import { kafkajsClient } from './kafkajs.js';
import { kcatClient } from './kcat.js';
import { librdkafkaGroupClient } from './librdkafka-group.js';
import { platformaticClient } from './platformatic.js';
import type { GroupClient, ThroughputClient } from './types.js';

/** Scenarios 1 (consume) and 2 (produce). */
export const throughputClients: readonly ThroughputClient[] = [brookClient, kafkajsClient, platformaticClient, javaClient, franzClient, kcatClient];

/** Scenarios 4 (group formation) and 5 (rebalance). */
export const groupClients: readonly GroupClient[] = [brookGroupClient, javaGroupClient, librdkafkaGroupClient];

/**
 * Clients of scenarios 1 and 2 that scenarios 4 and 5 do not run, and why; reported as
 * skipped there (the consumer protocol's line is what the benchmark's requirement asks about).
 */
export const groupClientsMissing: readonly { name: string; why: string }[] = [
  { name: 'kafkajs', why: 'KafkaJS 2.x speaks the classic protocol only (no ConsumerGroupHeartbeat), and has no group adapter here' },
  { name: 'platformatic', why: 'no group adapter here (@platformatic/kafka has a groupProtocol \'consumer\' option; not wired into scenarios 4 and 5)' },
  { name: 'kcat', why: 'kcat 1.7.1 is built on librdkafka 2.0.2, which predates group.protocol=consumer (librdkafka 2.12); librdkafka\'s members run here through confluent-kafka (the librdkafka client)' },
  { name: 'franz', why: 'no group adapter here' },
];
