#!/usr/bin/env python3
"""Many librdkafka consumers (confluent-kafka) of one group in ONE process (bench/, scenarios 4, 5).

    group_members.py <bootstrap> <topic> <group> <members> <assignor> <heartbeat.interval.ms> [classic|consumer]

The same contract as test/support/java/.../BenchGroup.java: all consumers are constructed
first, then subscribed together after a {"ev":"start","t":us} line; each change of a member's
owned partitions, as its rebalance callbacks report it, prints
{"ev":"owned","t":us,"m":i,"p":[...]}. Commands on stdin: "leave i" (prints "leave", then
"left" after close()), "join" (prints "join"), "quit". Times are epoch microseconds.
One thread polls every consumer in turn (poll(0)): librdkafka runs the group protocol on its
own threads and only hands over the rebalance callbacks in poll().
Classic protocol (the default): the assignor is the client's (range, cooperative-sticky),
session.timeout.ms 45000 and the given heartbeat interval. Consumer protocol (KIP-848,
group.protocol=consumer): the assignor is the broker's (group.remote.assignor: uniform, range),
the heartbeat interval and session timeout are the broker's (librdkafka refuses the client
settings with this protocol), and every rebalance is incremental.
"""
import json
import queue
import sys
import threading
import time

from confluent_kafka import Consumer


def now_us() -> int:
    return time.time_ns() // 1000


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(',', ':')) + '\n')
    sys.stdout.flush()


def joined_epoch(c: Consumer) -> int:
    """The member epoch librdkafka holds: the generation in its serialized group metadata
    (b'CGMDv2:' + int32 in host order + ...); -1 before the first heartbeat answer."""
    metadata = c.consumer_group_metadata()
    if not isinstance(metadata, bytes) or not metadata.startswith(b'CGMDv2:'):
        return -1
    return int.from_bytes(metadata[7:11], sys.byteorder, signed=True)


def main() -> int:
    if len(sys.argv) not in (7, 8):
        print(__doc__, file=sys.stderr)
        return 2
    bootstrap, topic, group, count, assignor, heartbeat_ms = sys.argv[1:7]
    protocol = sys.argv[7] if len(sys.argv) == 8 else 'classic'
    if protocol not in ('classic', 'consumer'):
        print(f'group_members.py: unknown group protocol {protocol}', file=sys.stderr)
        return 2
    if assignor not in (('uniform', 'range') if protocol == 'consumer' else ('range', 'cooperative-sticky')):
        print(f'group_members.py: unknown assignor {assignor} for the {protocol} protocol', file=sys.stderr)
        return 2
    cooperative = protocol == 'consumer' or assignor == 'cooperative-sticky'
    if protocol == 'consumer':
        protocol_config = {'group.protocol': 'consumer', 'group.remote.assignor': assignor}
    else:
        protocol_config = {
            'group.protocol': 'classic',
            'partition.assignment.strategy': assignor,
            'session.timeout.ms': 45000,
            'heartbeat.interval.ms': int(heartbeat_ms),
        }
    members: dict = {}
    owned: dict = {}
    callbacks: dict = {}

    def make(i: int) -> Consumer:
        c = Consumer({
            'bootstrap.servers': bootstrap,
            'client.id': f'brook-bench-group-{i}',
            'group.id': group,
            'enable.auto.commit': False,
            'log_level': 3,
            **protocol_config,
        })

        def on_assign(consumer, partitions):
            if cooperative:
                consumer.incremental_assign(partitions)
                owned[i] = owned.get(i, set()) | {tp.partition for tp in partitions}
            else:
                consumer.assign(partitions)
                owned[i] = {tp.partition for tp in partitions}
            emit({'ev': 'owned', 't': now_us(), 'm': i, 'p': sorted(owned[i])})

        def on_revoke(consumer, partitions):
            if cooperative:
                consumer.incremental_unassign(partitions)
                owned[i] = owned.get(i, set()) - {tp.partition for tp in partitions}
            else:
                consumer.unassign()
                owned[i] = set()
            if partitions:
                emit({'ev': 'owned', 't': now_us(), 'm': i, 'p': sorted(owned[i])})

        callbacks[i] = (on_assign, on_revoke)
        return c

    for i in range(int(count)):
        members[i] = make(i)
    commands: queue.Queue = queue.Queue()

    def read_stdin() -> None:
        for line in sys.stdin:
            commands.put(line.split())
        commands.put(['quit'])

    threading.Thread(target=read_stdin, daemon=True).start()
    emit({'ev': 'start', 't': now_us()})
    for i, c in members.items():
        on_assign, on_revoke = callbacks[i]
        c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
    next_index = int(count)
    while True:
        try:
            cmd = commands.get_nowait()
        except queue.Empty:
            cmd = None
        if cmd:
            if cmd[0] == 'quit':
                break
            if cmd[0] == 'leave' and len(cmd) == 2 and int(cmd[1]) in members:
                i = int(cmd[1])
                c = members.pop(i)
                emit({'ev': 'leave', 't': now_us(), 'm': i})
                c.close()
                emit({'ev': 'left', 't': now_us(), 'm': i})
            elif cmd[0] == 'join':
                i = next_index
                next_index += 1
                c = make(i)
                members[i] = c
                emit({'ev': 'join', 't': now_us(), 'm': i})
                on_assign, on_revoke = callbacks[i]
                c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
        for i, c in list(members.items()):
            try:
                c.poll(0)
                # Consumer protocol: librdkafka calls no rebalance callback for a first
                # assignment that is empty (a member beyond the partitions' count); its
                # member epoch (the generation in consumer_group_metadata()) says it joined.
                if protocol == 'consumer' and i not in owned and joined_epoch(c) >= 0:
                    owned[i] = set()
                    emit({'ev': 'owned', 't': now_us(), 'm': i, 'p': []})
            except Exception as e:  # noqa: BLE001 - reported, the run goes on
                emit({'ev': 'error', 't': now_us(), 'm': i, 'message': str(e)})
        time.sleep(0.001)
    return 0


if __name__ == '__main__':
    sys.exit(main())
