export { StorageError } from './errors.js';
export { openFileStorage, CLEAN_SHUTDOWN_MARKER, CATALOG_FILE } from './file-storage.js';
export { openMemoryStorage } from './memory-storage.js';
export { nodeFileSystem, type FileSystem, type FileStat, type ThreadFileSystem, type ThreadFileSystemModule } from './file-system.js';
export { readIfExists, writeAtomic } from './fs-util.js';
export { MAX_TOPIC_NAME_LENGTH, randomUuid, validateTopicName } from './catalog.js';
export { LEADER_EPOCH } from './partition-log.js';
export { ReadBufferPool, ReadLease } from './read-buffer-pool.js';
export type { AbortedTxn } from './txn-index.js';
export {
  describeTopicConfigs,
  effectiveTopicConfigs,
  TOPIC_CONFIG_DEFAULTS,
  TOPIC_CONFIG_DEFS,
  topicDefaultsFromBrokerConfig,
  validateTopicConfigs,
  type ConfigType,
  type TopicConfigDef,
  type TopicConfigEntry,
} from './topic-configs.js';
export type {
  AppendOptions,
  AppendOrigin,
  AppendResult,
  CreateTopicOptions,
  FlushPolicy,
  LogCleanerStats,
  OffsetAndTimestamp,
  PartitionLog,
  ReadOptions,
  ReadResult,
  SegmentInfo,
  Storage,
  StorageOptions,
  StorageStats,
  TopicConfigs,
  TopicMetadata,
} from './types.js';
