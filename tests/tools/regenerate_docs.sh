#!/usr/bin/env bash
# Rewrites what the docs take from the code and from a run, never by hand:
#  - docs/configuration.md: tsserve-config-reference's page of the option table (checked by
#    CTest docs_configuration_current);
#  - each <!-- output --> block after a <!-- runnable --> shell block in README.md and
#    docs/: that block's stdout against a real tsserve (checked by docs_runnable_blocks).
#   bash tests/tools/regenerate_docs.sh [--no-build] [BUILD_DIR]   (default: build/)
# Builds tsserve-config-reference, tsserve and tsserve-client first unless --no-build.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_first=1
if [ "${1:-}" = --no-build ]; then build_first=; shift; fi
build=$(cd "${1:-$root/build}" && pwd)
if [ -n "$build_first" ]; then
  cmake --build "$build" --target tsserve-config-reference tsserve tsserve-client
fi

page="$root/docs/configuration.md"
"$build/server/config/tsserve-config-reference" >"$page.new"
mv "$page.new" "$page"
echo "wrote $page"

bash "$root/tests/e2e/doc_blocks_test.sh" "$build/server/tsserve" "$build/client/tsserve-client" \
  "$build/e2e-doc-blocks" --write
