#!/bin/sh
# Starts name server ns-2 (room room2). Start it after the management nodes, before the brokers.
set -eu
cd "$(dirname "$0")"
if grep -Eq '<[A-Za-z0-9][A-Za-z0-9_.-]*>' namesrv.properties; then
  echo "namesrv.properties still has placeholders to fill (see README.md, Placeholders):" >&2
  grep -En '<[A-Za-z0-9][A-Za-z0-9_.-]*>' namesrv.properties >&2
  exit 1
fi
: "${ROCKETMQ_HOME:?set ROCKETMQ_HOME to the Apache RocketMQ 5.3.3 binary distribution directory}"
# Heap: runserver.sh uses -Xms4g -Xmx4g; a name server is fine with 1g. JAVA_OPT_EXT overrides it.
# JDK 17: the embedded controller serialises its state with hessian, which needs java.lang opened.
export JAVA_OPT_EXT="${JAVA_OPT_EXT:--Xms1g -Xmx1g --add-opens java.base/java.lang=ALL-UNNAMED}"
exec sh "$ROCKETMQ_HOME/bin/mqnamesrv" -c "$(pwd)/namesrv.properties"
