/** Every API the broker serves: ApiVersions advertises exactly these. */
import type { ApiHandler } from '../handler.js';
import { apiVersionsHandler } from './api-versions.js';
import { metadataHandler } from './metadata.js';
import { describeClusterHandler } from './describe-cluster.js';
import { deleteTopicsHandler } from './delete-topics.js';
import { produceHandler } from './produce.js';
import { fetchHandler } from './fetch.js';
import { listOffsetsHandler } from './list-offsets.js';
import { initProducerIdHandler } from './init-producer-id.js';
import { createTopicsHandler } from './create-topics.js';
import { describeConfigsHandler } from './describe-configs.js';

export const ALL_HANDLERS: readonly ApiHandler<never, unknown>[] = [
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  metadataHandler,
  apiVersionsHandler,
  createTopicsHandler,
  deleteTopicsHandler,
  initProducerIdHandler,
  describeConfigsHandler,
  describeClusterHandler,
];
