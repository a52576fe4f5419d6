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
