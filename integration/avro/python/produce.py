"""Writes Avro records to a topic as Confluent's own serializer does (confluent-kafka's
AvroSerializer: magic byte, schema id, binary; schemas registered under <topic>-key/-value), and
prints, per record written as Avro, the row a sink must hold: tab-separated text in the order of
COLUMNS, \\N for null (what the tests' SQL renders each column as).

  produce.py --bootstrap B --registry URL --topic T --count N [--first K] [--version 1|2]
             [--bad-at I]

--version 2 adds the optional field `note` (a compatible change: it has a default).
--bad-at I sends record I's value as bytes that are not Confluent's wire format (no row printed).
"""
import argparse
import datetime
import decimal
import json
import sys
import uuid

from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

KEY_SCHEMA = {"type": "record", "name": "OrderKey", "namespace": "shop",
              "fields": [{"name": "id", "type": "long"}]}

FIELDS = [
    {"name": "id", "type": "long"},
    {"name": "i", "type": "int"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "ok", "type": "boolean"},
    {"name": "s", "type": "string"},
    {"name": "b", "type": "bytes"},
    {"name": "maybe", "type": ["null", "string"], "default": None},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal",
                                "precision": 10, "scale": 2}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "color", "type": {"type": "enum", "name": "Color",
                               "symbols": ["RED", "GREEN", "BLUE"]}},
    {"name": "hash", "type": {"type": "fixed", "name": "Md5", "size": 4}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "long"}},
    {"name": "either", "type": ["null", "long", "string"], "default": None},
]
NOTE = {"name": "note", "type": ["null", "string"], "default": None}

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def number_text(x):
    """A float as PostgreSQL prints it: the shortest text, no trailing .0."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def jsonb_text(obj):
    """A JSON object as PostgreSQL's jsonb prints it: keys by length, then bytes."""
    keys = sorted(obj, key=lambda k: (len(k.encode()), k.encode()))
    return "{" + ", ".join(json.dumps(k) + ": " + json.dumps(obj[k]) for k in keys) + "}"


def record(n, version):
    day = datetime.date(2024, 2, 29) + datetime.timedelta(days=n)
    ts = EPOCH + datetime.timedelta(milliseconds=1709214307123 + n * 1001)
    us = 1709214307123456 + n
    tm = datetime.time(13, 45, 7, 250000)
    amount = decimal.Decimal(n * 101 - 5000).scaleb(-2)  # -50.00, -48.99, …
    value = {
        "id": n, "i": -n * 7, "f": (n % 100) + 0.25, "d": n * 1.5, "ok": n % 2 == 0,
        "s": "grüße %d ✓" % n, "b": bytes([n % 256, 0, 255]),
        "maybe": None if n % 3 == 0 else "m%d" % n, "amount": amount, "day": day, "tm": tm,
        "ts": ts, "us": us, "uid": uuid.UUID(int=n), "color": ["RED", "GREEN", "BLUE"][n % 3],
        "hash": bytes([1, 2, 3, n % 256]), "tags": ["t%d" % k for k in range(n % 3)],
        "attrs": {"a": n, "bb": -n}, "either": [None, n, "e%d" % n][n % 3],
    }
    if version == 2:
        value["note"] = "note %d" % n
    either = value["either"]
    row = [
        str(n), str(-n * 7), number_text(value["f"]), number_text(value["d"]),
        "t" if value["ok"] else "f", value["s"], value["b"].hex(),
        "\\N" if value["maybe"] is None else value["maybe"], str(amount),
        str((day - datetime.date(1970, 1, 1)).days), str(49507250),
        str(1709214307123 + n * 1001), str(us), str(uuid.UUID(int=n)), value["color"],
        value["hash"].hex(), "|".join(value["tags"]), jsonb_text(value["attrs"]),
        "\\N" if either is None else jsonb_text(
            {"long": either if isinstance(either, int) else None,
             "string": either if isinstance(either, str) else None}),
    ]
    if version == 2:
        row.append(value["note"])
    return value, row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--registry", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--version", type=int, default=1)
    p.add_argument("--bad-at", type=int, default=-1)
    args = p.parse_args()

    fields = FIELDS + ([NOTE] if args.version == 2 else [])
    schema = {"type": "record", "name": "Order", "namespace": "shop", "fields": fields}
    registry = SchemaRegistryClient({"url": args.registry})
    key_serializer = AvroSerializer(registry, json.dumps(KEY_SCHEMA))
    value_serializer = AvroSerializer(registry, json.dumps(schema))
    producer = Producer({"bootstrap.servers": args.bootstrap, "enable.idempotence": True})
    failures = []
    for n in range(args.first, args.first + args.count):
        value, row = record(n, args.version)
        key = key_serializer({"id": n}, SerializationContext(args.topic, MessageField.KEY))
        if n == args.bad_at:
            data = b"not Avro: no magic byte"
        else:
            data = value_serializer(value, SerializationContext(args.topic, MessageField.VALUE))
            print("\t".join(row))
        producer.produce(args.topic, key=key, value=data,
                         on_delivery=lambda err, msg: err and failures.append(err))
        producer.poll(0)
    producer.flush(30)
    if failures or len(producer):
        sys.exit("not delivered: %s (%d left)" % (failures[:3], len(producer)))


if __name__ == "__main__":
    main()
