#!/usr/bin/env bash
# Make sure a Java runtime exists: the gold-SQL tests run the Spark SQL dialect on a local PySpark
# session, which needs Java 17+. Installs Debian's `default-jre-headless` when `java` is missing.
set -euo pipefail
if command -v java > /dev/null; then
    exit 0
fi
if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless
elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless
else
    echo "Java is missing and this user cannot install it:" >&2
    echo "  run 'apt-get install -y default-jre-headless' as root, then 'make test' again" >&2
    exit 1
fi
