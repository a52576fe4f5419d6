/**
 * The clients each scenario runs. Brook's own consumer and producer join here as one adapter
 * file each (a ThroughputClient, a GroupClient) and one entry below.
 */
import { franzClient } from './franz.js';
import { javaClient } from './java.js';
import { javaGroupClient } from './java-group.js';
import { kafkajsClient } from './kafkajs.js';
import { kcatClient } from './kcat.js';
import { librdkafkaGroupClient } from './librdkafka-group.js';
import { platformaticClient } from './platformatic.js';
import type { GroupClient, ThroughputClient } from './types.js';

/** Scenarios 1 (consume) and 2 (produce). */
export const throughputClients: readonly ThroughputClient[] = [kafkajsClient, platformaticClient, javaClient, franzClient, kcatClient];

/** Scenarios 4 (group formation) and 5 (rebalance). */
export const groupClients: readonly GroupClient[] = [javaGroupClient, librdkafkaGroupClient];
