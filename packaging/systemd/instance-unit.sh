#!/usr/bin/env bash
# ksink@.service from ksink.service (stdin to stdout): the same unit, one instance <name> a
# configuration directory /etc/ksink/<name>, a state directory /var/lib/ksink/<name> and an
# environment file /etc/default/ksink-<name>. Generated, so the two units never drift apart.
set -euo pipefail
sed -e '1,4c\
# ksink: Kafka Connect'"'"'s connectors without a JVM, one of several workers of this host.\
# Instance <name>: /etc/ksink/<name>/worker.properties and the connector files in\
# /etc/ksink/<name>/connectors.d; secrets in /etc/default/ksink-<name>; state in\
# /var/lib/ksink/<name>. Give each instance its own listeners port and state paths.' \
  -e 's|^Description=ksink worker (Kafka connectors)|Description=ksink worker %i (Kafka connectors)|' \
  -e 's|^EnvironmentFile=-/etc/default/ksink$|EnvironmentFile=-/etc/default/ksink-%i|' \
  -e 's|/etc/ksink/worker.properties /etc/ksink/connectors.d|/etc/ksink/%i/worker.properties /etc/ksink/%i/connectors.d|' \
  -e 's|^StateDirectory=ksink$|StateDirectory=ksink/%i|' \
  -e 's|^WorkingDirectory=/var/lib/ksink$|WorkingDirectory=/var/lib/ksink/%i|'
