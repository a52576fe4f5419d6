/**
 * TEMPORARY, minimal topology configuration, until the real one replaces this file
 * wholesale: source topics must exist; a repartition topic without a partition count gets
 * the largest task count of the subtopologies writing to it; a subtopology has as many tasks
 * as its largest source or repartition source topic has partitions; a changelog topic has one
 * partition per task. Internal topics that do not exist are listed to be created.
 */
import { StreamsGroupStatus, type ConfiguredInternalTopic, type ConfiguredSubtopology, type ConfiguredTopology, type PartitionCountLookup, type StreamsTopology } from './types.js';

function internal(name: string, partitions: number, replicationFactor: number, configs: readonly { key: string; value: string }[]): ConfiguredInternalTopic {
  return { name, numberOfPartitions: partitions, replicationFactor: replicationFactor > 0 ? replicationFactor : null, topicConfigs: new Map(configs.map((c) => [c.key, c.value])) };
}

export function configureTopology(topology: StreamsTopology, partitionCount: PartitionCountLookup): ConfiguredTopology {
  const fail = (status: number, message: string, toCreate: ConfiguredInternalTopic[] = []): ConfiguredTopology =>
    ({ topologyEpoch: topology.epoch, subtopologies: null, internalTopicsToBeCreated: toCreate, error: { status, message } });
  const missing = topology.subtopologies.flatMap((s) => s.sourceTopics).filter((t) => partitionCount(t) === undefined);
  if (missing.length > 0) return fail(StreamsGroupStatus.MISSING_SOURCE_TOPICS, `Source topics ${[...new Set(missing)].sort().join(', ')} are missing.`);

  // Repartition topics: declared counts, else the tasks of the subtopologies writing them.
  const repartition = new Map<string, number>();
  for (const s of topology.subtopologies) for (const r of s.repartitionSourceTopics) if (r.partitions > 0) repartition.set(r.name, r.partitions);
  const tasks = new Map<string, number>();
  for (let progress = true; progress;) {
    progress = false;
    for (const s of topology.subtopologies) {
      if (tasks.has(s.subtopologyId)) continue;
      const counts = [...s.sourceTopics.map((t) => partitionCount(t) ?? 0), ...s.repartitionSourceTopics.map((r) => repartition.get(r.name))];
      if (counts.some((c) => c === undefined)) continue;
      tasks.set(s.subtopologyId, Math.max(0, ...(counts as number[])));
      for (const sink of s.repartitionSinkTopics) if (!repartition.has(sink)) repartition.set(sink, tasks.get(s.subtopologyId)!);
      progress = true;
    }
  }
  if (tasks.size !== topology.subtopologies.length) return fail(StreamsGroupStatus.MISSING_SOURCE_TOPICS, 'The partition count of some repartition topics cannot be derived.');

  const subtopologies = new Map<string, ConfiguredSubtopology>();
  const toCreate: ConfiguredInternalTopic[] = [];
  const wrong: string[] = [];
  const check = (t: ConfiguredInternalTopic): void => {
    const existing = partitionCount(t.name);
    if (existing === undefined) toCreate.push(t);
    else if (existing !== t.numberOfPartitions) wrong.push(t.name);
  };
  for (const s of topology.subtopologies) {
    const n = tasks.get(s.subtopologyId)!;
    const repartitionSources = new Map(s.repartitionSourceTopics.map((r) => [r.name, internal(r.name, repartition.get(r.name)!, r.replicationFactor, r.topicConfigs)]));
    const changelogs = new Map(s.stateChangelogTopics.map((c) => [c.name, internal(c.name, n, c.replicationFactor, c.topicConfigs)]));
    for (const t of [...repartitionSources.values(), ...changelogs.values()]) check(t);
    subtopologies.set(s.subtopologyId, {
      numberOfTasks: n,
      sourceTopics: new Set(s.sourceTopics),
      repartitionSourceTopics: repartitionSources,
      repartitionSinkTopics: new Set(s.repartitionSinkTopics),
      stateChangelogTopics: changelogs,
    });
  }
  if (wrong.length > 0) return fail(StreamsGroupStatus.INCORRECTLY_PARTITIONED_TOPICS, `Internal topics ${wrong.sort().join(', ')} have the wrong number of partitions.`);
  if (toCreate.length > 0) return fail(StreamsGroupStatus.MISSING_INTERNAL_TOPICS, `Internal topics are missing: [${toCreate.map((t) => t.name).sort().join(', ')}]`, toCreate);
  return { topologyEpoch: topology.epoch, subtopologies, internalTopicsToBeCreated: [], error: null };
}
