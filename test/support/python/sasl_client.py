#!/usr/bin/env python3
"""librdkafka (confluent-kafka) over SASL, for the SASL interop tests.

    sasl_client.py login <bootstrap> <security.protocol> <mechanism> <user> <password> <caFile>
    sasl_client.py produce-consume <bootstrap> <security.protocol> <mechanism> <user> <password> <caFile> <topic> <group> <count>

login: asks for metadata (8 s at most). produce-consume: produces <count> records, then one
consumer in <group> (classic protocol, auto.offset.reset=earliest) reads them and commits
synchronously. Prints one JSON line: {"ok", "metadata" (login), "consumed" and "committed"
(produce-consume), "errors": the error callback's and the calls' errors, as librdkafka words
them}. Exit code 0 whenever the line was printed, 2 on bad arguments.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient


def settings(bootstrap, protocol, mechanism, user, password, ca, errors):
    conf = {
        'bootstrap.servers': bootstrap,
        'security.protocol': protocol,
        'sasl.mechanism': mechanism,
        'sasl.username': user,
        'sasl.password': password,
        'error_cb': lambda err: errors.append(str(err)) if len(errors) < 20 else None,
        'reconnect.backoff.ms': 200,
        'reconnect.backoff.max.ms': 1000,
    }
    if protocol.endswith('SSL'):
        conf['ssl.ca.location'] = ca
    return conf


def login(conf, errors):
    admin = AdminClient(conf)
    try:
        md = admin.list_topics(timeout=8)
        return {'ok': True, 'metadata': sorted(md.topics.keys()), 'errors': errors}
    except KafkaException as e:
        errors.append(str(e))
        # The error callback runs from poll(): collect what librdkafka reported.
        admin.poll(1)
        return {'ok': False, 'errors': errors}


def produce_consume(conf, errors, topic, group, count):
    producer = Producer(conf)
    for i in range(count):
        producer.produce(topic, value=f'{topic}-{i}'.encode(), key=str(i).encode())
    left = producer.flush(30)
    if left != 0:
        return {'ok': False, 'consumed': [], 'committed': 0, 'errors': errors + [f'{left} records not delivered']}
    consumer = Consumer({**conf, 'group.id': group, 'auto.offset.reset': 'earliest', 'enable.auto.commit': False})
    consumer.subscribe([topic])
    consumed = []
    deadline = time.time() + 60
    while len(consumed) < count and time.time() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            errors.append(str(msg.error()))
            continue
        consumed.append(msg.value().decode())
    consumer.commit(asynchronous=False)
    partitions = consumer.assignment()
    committed = sum(max(tp.offset, 0) for tp in consumer.committed(partitions, timeout=10))
    consumer.close()
    return {'ok': len(consumed) == count, 'consumed': consumed, 'committed': committed, 'errors': errors}


def main():
    args = sys.argv[1:]
    if len(args) < 7 or args[0] not in ('login', 'produce-consume') or (args[0] == 'produce-consume' and len(args) != 10):
        print(__doc__, file=sys.stderr)
        return 2
    errors = []
    conf = settings(*args[1:7], errors)
    if args[0] == 'login':
        result = login(conf, errors)
    else:
        result = produce_consume(conf, errors, args[7], args[8], int(args[9]))
    print(json.dumps(result))
    return 0


if __name__ == '__main__':
    sys.exit(main())
