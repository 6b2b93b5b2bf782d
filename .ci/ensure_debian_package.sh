#!/usr/bin/env bash
# Make sure a Debian package the tests need is installed: `ensure_debian_package.sh PACKAGE CHECK`
# runs the shell test CHECK (e.g. 'test -x /usr/bin/chromium') and installs PACKAGE when it fails.
# Used by `make test` for PostgreSQL (throwaway clusters), Java (local PySpark) and Chromium (report tests).
set -euo pipefail
package="$1"
check="$2"
if bash -c "$check" > /dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"
elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"
else
    echo "the tests need Debian's '$package' package and this user cannot install it:" >&2
    echo "  run 'apt-get install -y $package' as root, then 'make test' again" >&2
    exit 1
fi
