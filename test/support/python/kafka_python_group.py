#!/usr/bin/env python3
"""One member of a consumer group (classic protocol) with kafka-python (pure Python client).

    kafka_python_group.py <bootstrap> <topic> <group> <range|roundrobin|sticky|cooperative-sticky> <expectedTotal> <timeoutMs>

The same contract and JSON summary as group_consumer.py (confluent-kafka) and
GroupConsumer.java: enable_auto_commit off, earliest reset, a synchronous commit after every
poll that returned records and, for offsets processed but not committed, in the revoke
callback; stops and leaves once the committed offsets equal the end offsets (or after
timeoutMs). "gen" is -1: kafka-python does not expose the generation to listeners.
"""
import json
import os
import sys
import time

from kafka import KafkaConsumer, TopicPartition
from kafka.consumer.subscription_state import ConsumerRebalanceListener
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.errors import RebalanceInProgressError
from kafka.structs import OffsetAndMetadata

CHECK_EVERY_S = 0.25
ASSIGNORS = {
    'range': RangePartitionAssignor,
    'roundrobin': RoundRobinPartitionAssignor,
    'sticky': StickyPartitionAssignor,
}
try:
    from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyPartitionAssignor
    ASSIGNORS['cooperative-sticky'] = CooperativeStickyPartitionAssignor
except ImportError:  # older kafka-python
    pass


def main() -> int:
    if len(sys.argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    bootstrap, topic, group, assignor, expected_total, timeout_ms = sys.argv[1:]
    if assignor not in ASSIGNORS:
        print(f'kafka_python_group.py: unknown assignor {assignor}', file=sys.stderr)
        return 2
    expected_total = int(expected_total)
    timeout_s = int(timeout_ms) / 1000
    start = time.time()
    client_id = f'brook-group-consumer-kafka-python-{os.getpid()}'
    events: list = []
    records: list = []
    errors: list = []
    warnings: list = []
    pending: dict = {}

    def error(message: str) -> None:
        if len(errors) < 20:
            errors.append(message)

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, client_id=client_id, group_id=group,
        partition_assignment_strategy=[ASSIGNORS[assignor]],
        enable_auto_commit=False, auto_offset_reset='earliest',
        session_timeout_ms=10000, heartbeat_interval_ms=300, max_poll_interval_ms=20000,
        fetch_max_wait_ms=100, metadata_max_age_ms=1000,
    )

    def owned() -> list:
        return sorted(tp.partition for tp in consumer.assignment())

    def event(kind: str, partitions) -> None:
        events.append({'t': int(time.time() * 1000), 'type': kind, 'gen': -1,
                       'partitions': sorted(tp.partition for tp in partitions), 'owned': owned()})

    def commit_pending(only) -> None:
        offsets = {TopicPartition(topic, p): OffsetAndMetadata(pending[p], '', -1) for p in only if p in pending}
        if not offsets:
            return
        try:
            consumer.commit(offsets=offsets)
            for tp in offsets:
                pending.pop(tp.partition, None)
        except RebalanceInProgressError as e:
            # Refused while the group completes a rebalance (Kafka and Brook alike): the
            # offsets stay pending and are committed after it.
            warnings.append(f'commit retried later: {e!r}')
        except Exception as e:  # noqa: BLE001 - reported in the summary
            error(f'commit {[(tp.partition, o.offset) for tp, o in offsets.items()]}: {e!r}')

    class Listener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            commit_pending([tp.partition for tp in revoked])
            event('revoked', revoked)

        def on_partitions_assigned(self, assigned):
            event('assigned', assigned)

        def on_partitions_lost(self, lost):
            event('lost', lost)

    consumer.subscribe([topic], listener=Listener())
    timed_out = True
    last_committed: dict = {}
    last_ends: dict = {}
    next_check = 0.0
    try:
        while time.time() - start < timeout_s:
            batch = consumer.poll(timeout_ms=100, max_records=200)
            for tp, messages in batch.items():
                for m in messages:
                    records.append([tp.partition, m.offset])
                    pending[tp.partition] = m.offset + 1
            if pending:
                commit_pending(list(pending))
            now = time.time()
            if now < next_check:
                continue
            next_check = now + CHECK_EVERY_S
            try:
                partitions = consumer.partitions_for_topic(topic)
                if not partitions:
                    continue
                tps = [TopicPartition(topic, p) for p in sorted(partitions)]
                last_ends = {tp.partition: o for tp, o in consumer.end_offsets(tps).items()}
                if sum(last_ends.values()) < expected_total:
                    continue
                last_committed = {tp.partition: consumer.committed(tp) for tp in tps}
                if all(last_committed.get(p) == last_ends[p] for p in last_ends):
                    timed_out = False
                    break
            except Exception as e:  # noqa: BLE001 - retried at the next check
                warnings.append(f'progress check: {e!r}')
        events.append({'t': int(time.time() * 1000), 'type': 'closing', 'gen': -1, 'partitions': owned(), 'owned': owned()})
        consumer.close()  # leaves the group
        events.append({'t': int(time.time() * 1000), 'type': 'closed', 'gen': -1, 'partitions': [], 'owned': []})
    except Exception as e:  # noqa: BLE001 - reported in the summary
        error(f'consumer: {e!r}')

    print(json.dumps({
        'clientId': client_id, 'assignor': assignor, 'timedOut': timed_out,
        'ms': int((time.time() - start) * 1000), 'events': events, 'records': records,
        'committed': {str(p): o for p, o in last_committed.items()},
        'endOffsets': {str(p): o for p, o in last_ends.items()}, 'errors': errors,
        'warnings': warnings[:20],
    }), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
