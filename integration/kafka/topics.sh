#!/usr/bin/env bash
# Topic admin against the broker started by start.sh in <workdir>, using Kafka's
# own TopicCommand from the same jars (so RF/partitions are exactly as asked,
# unlike auto-creation which always gives num.partitions=1).
#
#   integration/kafka/topics.sh <workdir> create <topic> <partitions>   (idempotent)
#   integration/kafka/topics.sh <workdir> delete <topic>
#   integration/kafka/topics.sh <workdir> list
#   integration/kafka/topics.sh <workdir> describe [<topic>]
set -euo pipefail

usage() { sed -n 's/^#   //p' "$0" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
wd="$1" cmd="$2"; shift 2
bootstrap="$(cat "$wd/bootstrap")"
libs="$(cat "$wd/kafka_libs")"

case "$cmd" in
  create) [[ $# -eq 2 ]] || usage
          args=(--create --if-not-exists --topic "$1" --partitions "$2" --replication-factor 1) ;;
  delete) [[ $# -eq 1 ]] || usage; args=(--delete --if-exists --topic "$1") ;;
  list)   [[ $# -eq 0 ]] || usage; args=(--list) ;;
  describe) args=(--describe ${1:+--topic "$1"}) ;;
  *) usage ;;
esac

# Short-lived client JVM: C1 only and SerialGC start fastest on 2 cores.
exec java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
  -Dlog4j2.configurationFile="$wd/log4j2-tools.properties" -cp "$libs/*" \
  org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" "${args[@]}"
