#!/usr/bin/env bash
# Make sure Debian's Chromium exists (/usr/bin/chromium): the report tests render report.html and
# compare.html in it, headless and offline. Installs the `chromium` package when it is missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
else
    echo "Chromium (/usr/bin/chromium) is missing and this user cannot install it:" >&2
    echo "  run 'apt-get install -y chromium' as root, then 'make test' again" >&2
    exit 1
fi
