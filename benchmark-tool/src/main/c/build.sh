#!/usr/bin/env bash
# Builds dtlsbench (benchmark-only, not part of the Maven build or CI): needs gcc and the OpenSSL
# headers (Debian: libssl-dev). Output: benchmark-tool/target/dtlsbench.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../../../target/dtlsbench"
mkdir -p "$(dirname "$out")"
if [ ! -x "$out" ] || [ "$here/dtlsbench.c" -nt "$out" ]; then
  gcc -O2 -Wall -Wextra -o "$out" "$here/dtlsbench.c" -lssl -lcrypto
fi
echo "$(cd "$(dirname "$out")" && pwd)/dtlsbench"
