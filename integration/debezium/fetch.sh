#!/usr/bin/env bash
# Resolve a Kafka Connect runtime and one Debezium connector (plain jars from Maven Central) into
# a cache directory outside the repo, and print two directories on stdout:
#
#   integration/debezium/fetch.sh [postgres|jdbc]
#     -> line 1: the Connect runtime's jars, for the JVM classpath
#        e.g. ~/.cache/ksink/debezium-3.5.0.Final-connect-4.1.1-apicurio-<v>/dist/connect-libs
#     -> line 2: the plugin.path directory; the connector is in its own folder under it
#        e.g. ~/.cache/ksink/debezium-3.5.0.Final-connect-4.1.1-apicurio-<v>/dist/plugins
#
# The connector: postgres (default) is the Debezium PostgreSQL source, for start.sh; its plugin
# directory also holds Apicurio Registry's AvroConverter (plugins/apicurio-avro-converter), so a
# connector may set key.converter/value.converter to io.apicurio.registry.utils.converter.
# AvroConverter and write Avro in Confluent's wire format to a registry. jdbc is the Debezium JDBC
# sink with the JDBC drivers it declares (PostgreSQL's among them), for the benchmark's peer
# (bench/peer/connect-sink.sh), cached apart in debezium-jdbc-<v>-connect-<v>.
# Env: KSINK_CACHE (default ~/.cache/ksink), KSINK_CONNECT_VERSION (default 4.1.1: Debezium
# 3.5's source and its JDBC sink both fail on Connect 4.4.0, see pom.xml),
# KSINK_DEBEZIUM_VERSION (default 3.5.0.Final), KSINK_APICURIO_VERSION (the converter's, default
# 2.6.13.Final: integration/schema-registry's registry).
# Idempotent (integration/fetch_once.sh).
set -euo pipefail
# shellcheck source=../fetch_once.sh
source "$(dirname "${BASH_SOURCE[0]}")/../fetch_once.sh"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
connector="${1:-postgres}"
apicurio_version="${KSINK_APICURIO_VERSION:-2.6.13.Final}"
case "$connector" in
  postgres) default_connect=4.1.1 tag="" converter=apicurio-avro-converter ;;
  jdbc) default_connect=4.1.1 tag="-jdbc" converter="" ;;
  *) echo "usage: $0 [postgres|jdbc]" >&2; exit 2 ;;
esac
connect_version="${KSINK_CONNECT_VERSION:-$default_connect}"
debezium_version="${KSINK_DEBEZIUM_VERSION:-3.5.0.Final}"
cache="${KSINK_CACHE:-$HOME/.cache/ksink}"
dest="$cache/debezium$tag-$debezium_version-connect-$connect_version"
# The converter's version is part of the cache's name: fetch_once only checks that a directory
# is complete, so a cache filled before the converter was added (the name without it) is never
# reused, and a converter version of its own gets a directory of its own.
[[ -z $converter ]] || dest="$dest-apicurio-$apicurio_version"
dist="$dest/dist"

print() { printf "%s\n%s\n" "$dist/connect-libs" "$dist/plugins"; }
fill() {  # <tmp>: connect-libs/ and plugins/
  local tmp="$1" plugin="$1/plugins/debezium-connector-$connector"
  # -B: batch mode (no prompts or progress bars); mvn output goes to stderr so stdout stays just
  # the paths. runtime scope = what runs (no test/provided jars).
  local mvn=(mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dconnect.version="$connect_version"
       -Ddebezium.version="$debezium_version" -Ddebezium.connector="debezium-connector-$connector"
       -Dapicurio.version="$apicurio_version" dependency:copy-dependencies -DincludeScope=runtime)
  "${mvn[@]}" -P runtime -DoutputDirectory="$tmp/connect-libs" >&2
  # Connect loads org.apache.kafka.* (connect-api, kafka-clients) and slf4j from the worker's
  # classpath, never from a plugin; leaving them out also keeps the connector's slf4j 1.7 away.
  "${mvn[@]}" -P plugin -DexcludeGroupIds=org.apache.kafka,org.slf4j -DoutputDirectory="$plugin" >&2
  dedupe "$tmp" "$plugin"
  # Fail loudly on an empty resolve.
  ls "$tmp/connect-libs/connect-runtime-$connect_version.jar" \
     "$plugin/debezium-connector-$connector-$debezium_version.jar" >/dev/null
  [[ -z $converter ]] || fill_converter "$tmp" "$tmp/plugins/$converter"
}
# Jars the runtime already has, same artifact and version: a plugin needs no second copy.
dedupe() {  # <tmp> <plugin folder>
  local jar
  for jar in "$2"/*.jar; do
    if [[ -f "$1/connect-libs/$(basename "$jar")" ]]; then rm "$jar"; fi
  done
}
# Apicurio's converter, a plugin folder of its own (its own class loader: its avro 1.12 and
# jackson stay apart from the connector's), Kafka and slf4j excluded as for the connector.
# Called from fill, whose local `mvn` command it uses.
fill_converter() {  # <tmp> <plugin folder>
  local tmp="$1" plugin="$2"
  "${mvn[@]}" -P avro-converter -DexcludeGroupIds=org.apache.kafka,org.slf4j \
    -DoutputDirectory="$plugin" >&2
  dedupe "$tmp" "$plugin"
  ls "$plugin/apicurio-registry-utils-converter-$apicurio_version.jar" >/dev/null
  # The worker finds plugins by their META-INF/services manifests (plugin.discovery=service_load,
  # worker_config.sh), and Apicurio's jar has none: without this one, a connector naming
  # AvroConverter fails with "Class ... could not be found". This is what Kafka's
  # `connect-plugin-path sync-manifests` would write, as a jar of its own in the folder.
  python3 - "$plugin/ksink-connect-manifests.jar" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("META-INF/services/org.apache.kafka.connect.storage.Converter",
               "io.apicurio.registry.utils.converter.AvroConverter\n")
PY
}
fetch_once "$dist" fill
print
