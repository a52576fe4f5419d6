#!/usr/bin/env python3
"""librdkafka (confluent-kafka) with isolation.level=read_committed, without a group: reads
partition 0 of a topic from the beginning and prints the values as one JSON list, once
`expected` records were read and a further second brought nothing (records past the expected
would show up then), or after timeoutMs.

    read_committed.py <bootstrap> <topic> <expected> <timeoutMs>
"""
import json
import sys
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


def main() -> int:
    bootstrap, topic, expected, timeout_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    consumer = Consumer({
        'bootstrap.servers': bootstrap,
        'group.id': 'read-committed-unused',  # librdkafka wants one; assign() joins no group
        'enable.auto.commit': False,
        'isolation.level': 'read_committed',
    })
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    values = []
    deadline = time.monotonic() + timeout_ms / 1000
    quiet_until = None
    while time.monotonic() < (quiet_until or deadline) and time.monotonic() < deadline:
        msg = consumer.poll(0.2)
        if msg is not None:
            if msg.error():
                print(json.dumps({'error': str(msg.error())}), file=sys.stderr)
            else:
                values.append(msg.value().decode())
        if len(values) >= expected and quiet_until is None:
            quiet_until = time.monotonic() + 1
    consumer.close()
    print(json.dumps(values))
    return 0


if __name__ == '__main__':
    sys.exit(main())
