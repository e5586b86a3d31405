#!/usr/bin/env bash
# Start a real single-node Apache Kafka (KRaft, combined broker+controller) on
# loopback for integration tests, and print its bootstrap address (host:port).
#
#   integration/kafka/start.sh <workdir>
#
# Writes into <workdir>: server.properties, log4j2*.properties, data/ (log.dirs),
# broker.log (log4j2), broker.out (JVM stdout/stderr), bootstrap, pid, kafka_libs.
# A workdir that already holds a formatted broker is restarted with the same
# ports and data (so tests can bounce the broker); use a fresh dir for a fresh one.
# Env: KSINK_KAFKA_HEAP (default "-Xms256m -Xmx512m"), KSINK_KAFKA_LOG_LEVEL
# (root level in broker.log, default WARN), KSINK_KAFKA_START_TIMEOUT (s, 60),
# KSINK_KAFKA_SASL_PLAIN=user:password (adds a SASL_PLAINTEXT listener with the PLAIN mechanism
# and that one user; its address goes to <workdir>/sasl_bootstrap), plus those of fetch.sh.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 <workdir>" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../log4j2.sh
source "$here/../log4j2.sh"
mkdir -p "$1"
wd="$(cd "$1" && pwd)"
timeout_s="${KSINK_KAFKA_START_TIMEOUT:-60}"

alive() { [[ -f "$wd/pid" ]] && kill -0 "$(cat "$wd/pid")" 2>/dev/null; }
if alive; then                        # idempotent: already running here
  cat "$wd/bootstrap"
  exit 0
fi

libs="$("$here/fetch.sh")"
echo "$libs" >"$wd/kafka_libs"        # topics.sh/offsets.sh use the same jars
cp="$libs/*"
# Client-side tools (StorageTool here, TopicCommand/ConsumerGroupCommand later):
# small heap, fast-start JIT, warnings to stderr so stdout stays parseable.
cat >"$wd/log4j2-tools.properties" <<'L4J'
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %d{HH:mm:ss} %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
L4J

if [[ ! -f "$wd/data/meta.properties" ]]; then
  # Two distinct free loopback ports, bound at the same time so they differ.
  # (Small race until the broker binds them; acceptable for tests.)
  read -r port cport sport < <(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
  listeners="PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport"
  protocols="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
  sasl=""
  if [[ -n "${KSINK_KAFKA_SASL_PLAIN:-}" ]]; then
    listeners="$listeners,SASL_PLAINTEXT://127.0.0.1:$sport"
    protocols="$protocols,SASL_PLAINTEXT:SASL_PLAINTEXT"
    sasl="sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${KSINK_KAFKA_SASL_PLAIN%%:*}=\"${KSINK_KAFKA_SASL_PLAIN#*:}\";"
    echo "127.0.0.1:$sport" >"$wd/sasl_bootstrap"
  fi
  cat >"$wd/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$cport
listeners=$listeners
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protocols
$sasl
log.dirs=$wd/data
num.partitions=1
auto.create.topics.enable=true
# Single node: every internal topic must have RF=1 / min.isr=1 or it never gets created.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# Fewer internal partitions: the first group/txn use creates them, 50 take seconds.
offsets.topic.num.partitions=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.num.partitions=1
# Tests want a consumer group to get its assignment immediately, not after 3 s.
group.initial.rebalance.delay.ms=0
# 2-core box: keep thread pools small.
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
background.threads=2
PROPS
  # Kafka cluster ids are 16 random bytes, base64url without padding; doing it
  # here saves a JVM start of "StorageTool random-uuid". Kafka rejects ids
  # starting with '-' (they look like CLI flags), so draw again in that case.
  cid=-
  while [[ $cid == -* ]]; do
    cid="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
  done
  # --standalone: this node is the sole KRaft voter (Kafka 4.x dynamic quorum).
  if ! java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
      -Dlog4j2.configurationFile="$wd/log4j2-tools.properties" -cp "$cp" \
      kafka.tools.StorageTool format --standalone -t "$cid" -c "$wd/server.properties" \
      >"$wd/format.log" 2>&1; then
    echo "kafka: storage format failed:" >&2; cat "$wd/format.log" >&2; exit 1
  fi
else
  port="$(sed -n 's#^listeners=PLAINTEXT://127.0.0.1:\([0-9]*\),.*#\1#p' "$wd/server.properties")"
fi

# Broker log: quiet by default (WARN), but keep the lifecycle lines
# ("Kafka Server started", shutdown) so a failed start shows how far it got.
log4j2_file_config "$wd/log4j2.properties" "$wd/broker.log" "${KSINK_KAFKA_LOG_LEVEL:-WARN}" \
  kafka.server.KafkaRaftServer=INFO kafka.server.BrokerServer=INFO \
  kafka.server.ControllerServer=INFO

# JVM sized for a 2-core / shared CI box: small heap, SerialGC (no parallel GC
# threads competing with the code under test), capped direct memory.
# setsid: own session, so ^C or a test runner killing its process group does
# not take the broker down mid-test; stop.sh is the way to end it.
# The child writes its own pid (setsid may fork, so $! is not reliable).
rm -f "$wd/pid" "$wd/bootstrap"
# SC2016: $$/$0/$@ belong to the inner bash; SC2086: KSINK_KAFKA_HEAP is a flag list.
# shellcheck disable=SC2016,SC2086
setsid bash -c 'echo $$ >"$0"; exec "$@"' "$wd/pid" \
  java ${KSINK_KAFKA_HEAP:--Xms256m -Xmx512m} -XX:+UseSerialGC -XX:MaxDirectMemorySize=256m \
  -Djava.awt.headless=true -Dlog4j2.configurationFile="$wd/log4j2.properties" \
  -cp "$cp" kafka.Kafka "$wd/server.properties" \
  </dev/null >"$wd/broker.out" 2>&1 &

fail() {
  echo "kafka: $1; tail of $wd/broker.log and broker.out:" >&2
  tail -n 40 "$wd/broker.log" "$wd/broker.out" >&2 2>/dev/null || true
  "$here/stop.sh" "$wd" >&2 || true
  exit 1
}

# Ready = the broker answers a metadata request listing itself. Uses kcat (the
# same librdkafka the SDK links) when present, else a plain TCP connect.
ready() {
  if command -v kcat >/dev/null; then
    local md
    md="$(kcat -b "127.0.0.1:$port" -L -m 2 2>/dev/null)" || return 1
    [[ $md == *"broker 1 at 127.0.0.1:$port"* ]]
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
  fi
}
deadline=$((SECONDS + timeout_s))
until ready; do
  [[ -f "$wd/pid" ]] && ! alive && fail "broker process exited during start"
  ((SECONDS < deadline)) || fail "broker not ready on 127.0.0.1:$port after ${timeout_s}s"
  sleep 0.5
done

echo "127.0.0.1:$port" >"$wd/bootstrap"
echo "127.0.0.1:$port"
