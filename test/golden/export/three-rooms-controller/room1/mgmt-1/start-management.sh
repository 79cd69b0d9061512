#!/bin/sh
# Starts management node mgmt-1 (room room1): the address server its room's brokers and
# clients ask for name servers (GET /rocketmq/nsaddr). Start it first, before name servers and brokers.
set -eu
cd "$(dirname "$0")"
if grep -Eq '<[A-Za-z0-9][A-Za-z0-9_.-]*>' management.json; then
  echo "management.json still has placeholders to fill (see README.md, Placeholders):" >&2
  grep -En '<[A-Za-z0-9][A-Za-z0-9_.-]*>' management.json >&2
  exit 1
fi
exec drstudio mgmt --config "$(pwd)/management.json"
