#!/bin/sh
# Starts broker broker-a-2 (room room2). Start the management node of room room2
# and the name servers first. Needs JDK 8 or 17 and the RocketMQ 5.3.3 binary distribution.
set -eu
cd "$(dirname "$0")"
if grep -Eq '<[A-Za-z0-9][A-Za-z0-9_.-]*>' broker.conf; then
  echo "broker.conf still has placeholders to fill (see README.md, Placeholders):" >&2
  grep -En '<[A-Za-z0-9][A-Za-z0-9_.-]*>' broker.conf >&2
  exit 1
fi
: "${ROCKETMQ_HOME:?set ROCKETMQ_HOME to the Apache RocketMQ 5.3.3 binary distribution directory}"
# Zone room2: replicas of broker-a keep their own rooms; the name server shows the
# zone of the replica that registered last, so clients should place brokers by address instead.
export ROCKETMQ_ZONE=room2
# With address-server discovery an inherited name-server list would win over the management node.
unset NAMESRV_ADDR
# Heap: runbroker.sh uses -Xms8g -Xmx8g -XX:MaxDirectMemorySize=15g. JAVA_OPT_EXT comes last on the
# java command line, so it overrides them, e.g. JAVA_OPT_EXT='-Xms4g -Xmx4g -XX:MaxDirectMemorySize=8g'.
export JAVA_OPT_EXT="${JAVA_OPT_EXT:-}"
exec sh "$ROCKETMQ_HOME/bin/mqbroker" -c "$(pwd)/broker.conf"
