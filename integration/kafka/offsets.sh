#!/usr/bin/env bash
# Print the committed offsets of consumer group <group>, as stored by the broker
# started by start.sh in <workdir>: one "topic partition offset" line per
# partition that has a commit, sorted. No output (exit 0) if the group has no
# commits or does not exist; any other failure exits non-zero.
# The offset is Kafka's usual "next offset to consume" (last processed + 1).
#
#   integration/kafka/offsets.sh <workdir> <group>
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 <workdir> <group>" >&2; exit 2; }
wd="$1" group="$2"
bootstrap="$(cat "$wd/bootstrap")"
libs="$(cat "$wd/kafka_libs")"

# ConsumerGroupCommand prints a human table (GROUP TOPIC PARTITION CURRENT-OFFSET
# LOG-END-OFFSET LAG ...) plus notes such as "has no active members".
# The tool exits 0 even when it fails ("Error: ..." on stdout, stack trace on
# stderr), so errors are recognised by text. An unknown group is not an error
# for a test that polls offsets: it just has none yet.
out="$(java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
  -Dlog4j2.configurationFile="$wd/log4j2-tools.properties" -cp "$libs/*" \
  org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
  --bootstrap-server "$bootstrap" --describe --group "$group" 2>&1)" || rc=$?
if [[ $out == *GroupIdNotFoundException* || $out == *"does not exist"* ]]; then
  exit 0
fi
if [[ ${rc:-0} -ne 0 || $out == *"Error:"* ]]; then
  echo "offsets.sh: ConsumerGroupCommand failed for group '$group':" >&2
  echo "$out" >&2
  exit 1
fi
# Keep only rows of this group whose CURRENT-OFFSET is a number ("-" = never
# committed for that partition).
awk -v g="$group" '$1 == g && $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { print $2, $3, $4 }' \
  <<<"$out" | sort -k1,1 -k2,2n
