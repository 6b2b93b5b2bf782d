#!/usr/bin/env bash
# Make sure Debian's PostgreSQL server binaries exist (the tests start a throwaway cluster from
# /usr/lib/postgresql/*/bin). Installs the `postgresql` package when they are missing.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/initdb" > /dev/null; then
    exit 0
fi
if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
else
    echo "PostgreSQL server binaries are missing and this user cannot install them:" >&2
    echo "  run 'apt-get install -y postgresql' as root, then 'make test' again" >&2
    exit 1
fi
