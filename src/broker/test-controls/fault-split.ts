/**
 * A Produce fault with a topic filter fails only the partitions the filter names: the
 * handler runs on the rest of the request, and its answer is merged with the injected error
 * for the faulted partitions. So a producer that batches several topics in one request sees
 * the error only where the test put it, and the other partitions are appended as usual.
 */
import type { ProduceRequestData, ProduceResponseData } from '../../protocol/messages/index.js';
import type { Storage } from '../../storage/types.js';
import { everyPartition } from '../handlers/produce.js';
import { topicNameById } from '../topic-ids.js';
import type { FaultFilter } from './fault-targets.js';

export interface ProduceSplit {
  /** The partitions the filter names (answered with the error). */
  readonly faulted: ProduceRequestData;
  /** The others (handled as usual). */
  readonly rest: ProduceRequestData;
}

/** The request split by the filter; null when the filter names every partition of it (no topic filter included). */
export function splitProduce(request: ProduceRequestData, filter: FaultFilter, storage: Storage): ProduceSplit | null {
  if (filter.topic === undefined) return null;
  const faulted: ProduceRequestData['topicData'] = [];
  const rest: ProduceRequestData['topicData'] = [];
  for (const t of request.topicData) {
    const name = t.name !== undefined && t.name !== '' ? t.name : topicNameById(storage, t.topicId);
    const named = (index: number): boolean => name === filter.topic && (filter.partition === undefined || index === filter.partition);
    const hit = t.partitionData.filter((p) => named(p.index));
    const miss = t.partitionData.filter((p) => !named(p.index));
    if (hit.length > 0) faulted.push({ ...t, partitionData: hit });
    if (miss.length > 0) rest.push({ ...t, partitionData: miss });
  }
  if (rest.length === 0) return null;
  return { faulted: { ...request, topicData: faulted }, rest: { ...request, topicData: rest } };
}

/** The handler's answer to the rest, with the faulted partitions answered with `errorCode`. */
export function mergeProduce(split: ProduceSplit, answer: ProduceResponseData, errorCode: number): ProduceResponseData {
  const responses = answer.responses.map((r) => ({ ...r, partitionResponses: [...r.partitionResponses] }));
  for (const failed of everyPartition(split.faulted, errorCode).responses) {
    const same = responses.find((r) => (failed.name !== undefined && failed.name !== '' ? r.name === failed.name : r.topicId === failed.topicId));
    if (same !== undefined) same.partitionResponses.push(...failed.partitionResponses);
    else responses.push(failed);
  }
  return { ...answer, responses };
}
