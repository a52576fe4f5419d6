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
import { findCoordinatorHandler } from './find-coordinator.js';
import { joinGroupHandler } from './join-group.js';
import { syncGroupHandler } from './sync-group.js';
import { heartbeatHandler } from './heartbeat.js';
import { leaveGroupHandler } from './leave-group.js';
import { offsetCommitHandler } from './offset-commit.js';
import { offsetFetchHandler } from './offset-fetch.js';
import { txnOffsetCommitHandler } from './txn-offset-commit.js';
import { describeGroupsHandler } from './describe-groups.js';
import { listGroupsHandler } from './list-groups.js';
import { deleteGroupsHandler } from './delete-groups.js';
import { offsetDeleteHandler } from './offset-delete.js';
import { consumerGroupHeartbeatHandler } from './consumer-group-heartbeat.js';
import { consumerGroupDescribeHandler } from './consumer-group-describe.js';
import { shareGroupHeartbeatHandler } from './share-group-heartbeat.js';
import { shareGroupDescribeHandler } from './share-group-describe.js';
import { streamsGroupHeartbeatHandler } from './streams-group-heartbeat.js';
import { streamsGroupDescribeHandler } from './streams-group-describe.js';
import { createPartitionsHandler } from './create-partitions.js';
import { alterConfigsHandler } from './alter-configs.js';
import { incrementalAlterConfigsHandler } from './incremental-alter-configs.js';
import { deleteRecordsHandler } from './delete-records.js';
import { describeLogDirsHandler } from './describe-log-dirs.js';
import { describeProducersHandler } from './describe-producers.js';
import { describeTopicPartitionsHandler } from './describe-topic-partitions.js';
import { saslHandshakeHandler } from './sasl-handshake.js';
import { saslAuthenticateHandler } from './sasl-authenticate.js';
import { describeClientQuotasHandler } from './describe-client-quotas.js';
import { alterClientQuotasHandler } from './alter-client-quotas.js';
import { describeUserScramCredentialsHandler } from './describe-user-scram-credentials.js';
import { alterUserScramCredentialsHandler } from './alter-user-scram-credentials.js';
import { alterPartitionReassignmentsHandler } from './alter-partition-reassignments.js';
import { listPartitionReassignmentsHandler } from './list-partition-reassignments.js';
import { describeAclsHandler } from './describe-acls.js';
import { createAclsHandler } from './create-acls.js';
import { deleteAclsHandler } from './delete-acls.js';
import { addPartitionsToTxnHandler } from './add-partitions-to-txn.js';
import { addOffsetsToTxnHandler } from './add-offsets-to-txn.js';
import { endTxnHandler } from './end-txn.js';
import { writeTxnMarkersHandler } from './write-txn-markers.js';
import { describeTransactionsHandler } from './describe-transactions.js';
import { listTransactionsHandler } from './list-transactions.js';
import { shareFetchHandler } from './share-fetch.js';
import { shareAcknowledgeHandler } from './share-acknowledge.js';
import { initializeShareGroupStateHandler } from './initialize-share-group-state.js';
import { readShareGroupStateHandler } from './read-share-group-state.js';
import { writeShareGroupStateHandler } from './write-share-group-state.js';
import { deleteShareGroupStateHandler } from './delete-share-group-state.js';
import { readShareGroupStateSummaryHandler } from './read-share-group-state-summary.js';
import { describeShareGroupOffsetsHandler } from './describe-share-group-offsets.js';
import { alterShareGroupOffsetsHandler } from './alter-share-group-offsets.js';
import { deleteShareGroupOffsetsHandler } from './delete-share-group-offsets.js';

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
  findCoordinatorHandler,
  joinGroupHandler,
  syncGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  txnOffsetCommitHandler,
  describeGroupsHandler,
  listGroupsHandler,
  deleteGroupsHandler,
  offsetDeleteHandler,
  consumerGroupHeartbeatHandler,
  consumerGroupDescribeHandler,
  shareGroupHeartbeatHandler,
  shareGroupDescribeHandler,
  streamsGroupHeartbeatHandler,
  streamsGroupDescribeHandler,
  createPartitionsHandler,
  alterConfigsHandler,
  incrementalAlterConfigsHandler,
  deleteRecordsHandler,
  describeLogDirsHandler,
  describeProducersHandler,
  describeTopicPartitionsHandler,
  saslHandshakeHandler,
  saslAuthenticateHandler,
  describeClientQuotasHandler,
  alterClientQuotasHandler,
  describeUserScramCredentialsHandler,
  alterUserScramCredentialsHandler,
  alterPartitionReassignmentsHandler,
  listPartitionReassignmentsHandler,
  describeAclsHandler,
  createAclsHandler,
  deleteAclsHandler,
  addPartitionsToTxnHandler,
  addOffsetsToTxnHandler,
  endTxnHandler,
  writeTxnMarkersHandler,
  describeTransactionsHandler,
  listTransactionsHandler,
  initializeShareGroupStateHandler,
  readShareGroupStateHandler,
  writeShareGroupStateHandler,
  deleteShareGroupStateHandler,
  readShareGroupStateSummaryHandler,
  shareFetchHandler,
  shareAcknowledgeHandler,
  describeShareGroupOffsetsHandler,
  alterShareGroupOffsetsHandler,
  deleteShareGroupOffsetsHandler,
];
