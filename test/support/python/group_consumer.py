#!/usr/bin/env python3
"""One member of a consumer group with librdkafka, through confluent-kafka: the classic protocol
with a client-side assignor, or the consumer protocol (KIP-848) with the broker's assignor
(consumer-uniform, consumer-range).

    group_consumer.py <bootstrap> <topic> <group> <range|cooperative-sticky|roundrobin|consumer-uniform|consumer-range> <expectedTotal> <timeoutMs> [<stopFile>]

The same contract as test/support/java/.../GroupConsumer.java: subscribes
(enable.auto.commit=false, auto.offset.reset=earliest), commits synchronously after every poll
that returned records and, for offsets processed but not yet committed, in the revoke callback.
Stops (and leaves the group with close()) once the end offsets add up to at least expectedTotal
and the group's committed offset of every partition equals its end offset (checked every
250 ms), or after timeoutMs; or, given a stopFile, as soon as that file exists (a rolling
restart takes the member out: "stopped": true); or at a fatal error (in "errors"). Prints one
JSON line:
{"clientId","assignor","timedOut","stopped","ms","events":[{"t","type","gen","partitions","owned"}],
 "records":[[partition,offset],...],"committed":{..},"endOffsets":{..},"errors":[..]}
("member": the member id, consumer.memberid(); "gen" is -1: librdkafka does not expose the
generation, unless GROUP_CONSUMER_GENERATIONS=1 is set in the environment: then librdkafka's
cgrp debug log is read through a Python logger, and "gen" is the generation of the last
"JoinGroup response: GenerationId N" line before the event (classic), or the member epoch of
the last "ConsumerGroupHeartbeat response received for member id ... with epoch N" line (consumer
protocol); the log is delivered by the same poll calls as the rebalance callbacks, in order.
Then also, after every consume() whose outcome changed what the member says of itself, one
line on stderr: state {"gen","member","owned"}). Exit code 0 whenever the summary was printed,
2 on bad arguments.
"""
import json
import logging
import os
import re
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

CHECK_EVERY_S = 0.25
# Commits a rebalance may refuse, by Kafka and Brook alike; the offsets stay pending and are
# committed after it: REBALANCE_IN_PROGRESS while the group awaits its assignment, and
# ILLEGAL_GENERATION for a commit that carried the generation the join phase had just replaced
# (seen once in CI against Kafka 4.1, a cooperative member committing after poll() during the
# rebalance a leaving Brook member started). A lost commit would
# still be caught: the run ends only once every committed offset equals its end offset, and
# the test checks that every record was consumed exactly once.
RETRY_COMMIT_ERRORS = (KafkaError.REBALANCE_IN_PROGRESS, KafkaError.ILLEGAL_GENERATION)


def main() -> int:
    if len(sys.argv) not in (7, 8):
        print(__doc__, file=sys.stderr)
        return 2
    bootstrap, topic, group, assignor, expected_total, timeout_ms = sys.argv[1:7]
    stop_file = sys.argv[7] if len(sys.argv) == 8 else None
    if assignor not in ('range', 'cooperative-sticky', 'roundrobin', 'consumer-uniform', 'consumer-range'):
        print(f'group_consumer.py: unknown assignor {assignor}', file=sys.stderr)
        return 2
    expected_total = int(expected_total)
    timeout_s = int(timeout_ms) / 1000
    start = time.time()
    client_id = f'brook-group-consumer-py-{os.getpid()}'
    events: list = []
    records: list = []
    errors: list = []
    warnings: list = []
    pending: dict = {}  # partition -> next offset, processed but not known committed

    def error(message: str) -> None:
        if len(errors) < 20:
            errors.append(message)

    # GROUP_CONSUMER_GENERATIONS=1: the generation (member epoch) from librdkafka's cgrp log lines.
    generation = {'id': -1}
    log_config: dict = {}
    print_states = os.environ.get('GROUP_CONSUMER_GENERATIONS') == '1'
    if print_states:
        joined = re.compile(r'JoinGroup response: GenerationId (-?\d+)|ConsumerGroupHeartbeat response received for member id "[^"]*" with epoch (-?\d+)')

        class JoinGroupLog(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                m = joined.search(record.getMessage())
                if m:
                    gen = int(m.group(1) if m.group(1) is not None else m.group(2))
                    if gen >= 0:
                        generation['id'] = gen

        rdkafka_log = logging.getLogger('group_consumer.librdkafka')
        rdkafka_log.setLevel(logging.DEBUG)
        rdkafka_log.propagate = False
        rdkafka_log.addHandler(JoinGroupLog())
        log_config = {'debug': 'cgrp', 'logger': rdkafka_log}

    if assignor.startswith('consumer-'):
        # KIP-848: the broker assigns (group.remote.assignor) and sets session and heartbeat.
        protocol = {'group.protocol': 'consumer', 'group.remote.assignor': assignor[len('consumer-'):]}
    else:
        protocol = {'group.protocol': 'classic', 'partition.assignment.strategy': assignor,
                    'session.timeout.ms': 10000, 'heartbeat.interval.ms': 300}
    consumer = Consumer({
        'bootstrap.servers': bootstrap,
        'client.id': client_id,
        'group.id': group,
        **protocol,
        'enable.auto.commit': False,
        'auto.offset.reset': 'earliest',
        'max.poll.interval.ms': 20000,
        'fetch.wait.max.ms': 100,
        'topic.metadata.refresh.interval.ms': 1000,
        **log_config,
    })

    def owned() -> list:
        try:
            return sorted(tp.partition for tp in consumer.assignment())
        except KafkaException:
            return []

    def event(kind: str, partitions: list) -> None:
        events.append({'t': int(time.time() * 1000), 'type': kind, 'gen': generation['id'], 'member': consumer.memberid(),
                       'partitions': sorted(tp.partition for tp in partitions), 'owned': owned()})

    def commit_pending(only) -> None:
        offsets = [TopicPartition(topic, p, pending[p]) for p in only if p in pending]
        if not offsets:
            return
        try:
            consumer.commit(offsets=offsets, asynchronous=False)
            for tp in offsets:
                pending.pop(tp.partition, None)
        except KafkaException as e:
            # Refused by a rebalance in progress (RETRY_COMMIT_ERRORS; cooperative members keep
            # consuming then): the offsets stay pending and are committed after it.
            if e.args and e.args[0].code() in RETRY_COMMIT_ERRORS:
                warnings.append(f'commit retried later: {e}')
            else:
                error(f'commit {[(tp.partition, tp.offset) for tp in offsets]}: {e}')

    # confluent-kafka (incrementally) assigns / unassigns after these callbacks return.
    def on_assign(_c, partitions):
        event('assigned', partitions)

    def on_revoke(_c, partitions):
        commit_pending([tp.partition for tp in partitions])
        event('revoked', partitions)

    def on_lost(_c, partitions):
        event('lost', partitions)

    consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    timed_out = True
    stopped = False
    last_committed: dict = {}
    last_ends: dict = {}
    all_partitions: list = []
    next_check = 0.0
    last_state = ''
    try:
        while time.time() - start < timeout_s:
            batch = consumer.consume(num_messages=200, timeout=0.1)
            if print_states:
                state = json.dumps({'gen': generation['id'], 'member': consumer.memberid(), 'owned': owned()})
                if state != last_state:
                    last_state = state
                    print(f'state {state}', file=sys.stderr, flush=True)
            fatal = False
            for m in batch:
                if m.error():
                    error(f'message error: {m.error()}')
                    fatal = fatal or m.error().fatal() or m.error().code() == KafkaError._FATAL
                    continue
                records.append([m.partition(), m.offset()])
                pending[m.partition()] = m.offset() + 1
            if fatal:  # the consumer is unusable (e.g. the broker refused it the group): the error ends the run
                timed_out = False
                break
            if pending:
                commit_pending(list(pending))
            now = time.time()
            if now < next_check:
                continue
            next_check = now + CHECK_EVERY_S
            if stop_file is not None and os.path.exists(stop_file):
                timed_out = False
                stopped = True
                break
            try:
                if not all_partitions:
                    md = consumer.list_topics(topic, timeout=5)
                    t = md.topics.get(topic)
                    if t is None or t.error is not None or not t.partitions:
                        continue
                    all_partitions = sorted(t.partitions)
                last_ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=5)[1] for p in all_partitions}
                if sum(last_ends.values()) < expected_total:
                    continue
                committed = consumer.committed([TopicPartition(topic, p) for p in all_partitions], timeout=5)
                last_committed = {tp.partition: tp.offset for tp in committed}
                if all(last_committed.get(p) == last_ends[p] for p in all_partitions):
                    timed_out = False
                    break
            except KafkaException as e:
                warnings.append(f'progress check: {e}')  # retried at the next check
        events.append({'t': int(time.time() * 1000), 'type': 'closing', 'gen': -1, 'partitions': owned(), 'owned': owned()})
        consumer.close()  # leaves the group (revoke callback first)
        events.append({'t': int(time.time() * 1000), 'type': 'closed', 'gen': -1, 'partitions': [], 'owned': []})
    except Exception as e:  # noqa: BLE001 - reported in the summary
        error(f'consumer: {e!r}')

    print(json.dumps({
        'clientId': client_id, 'assignor': assignor, 'timedOut': timed_out, 'stopped': stopped,
        'ms': int((time.time() - start) * 1000), 'events': events, 'records': records,
        'committed': {str(p): o for p, o in last_committed.items()},
        'endOffsets': {str(p): o for p, o in last_ends.items()}, 'errors': errors,
        'warnings': warnings[:20],
    }), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
