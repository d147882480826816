#!/usr/bin/env bash
# Checks that every public symbol of every layer package's library modules has a doc comment.
#
# Reads the symbol graphs the compiler writes during the shared debug build (SYMBOL_GRAPH_DIR,
# see lib.sh), so the check never compiles anything a second time. With --no-build (what
# test-all.sh passes, right after that build) it only reads them; on its own it first runs the
# shared debug build of each layer package, which compiles only what changed since the last one.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build=1
if [ "${1:-}" = "--no-build" ]; then
    build=0
fi

mkdir -p "$SYMBOL_GRAPH_DIR"
work="$(mktemp -d "${TMPDIR:-/tmp}/check-docs.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cd "$REPO_ROOT"  # one working folder for every build, as in test-all.sh
descriptions=()
for package in "${LAYER_PACKAGES[@]}"; do
    if [ "$build" -eq 1 ]; then
        log "check-docs: building $package"
        forget_debug_plan
        swift build --package-path "$package" "${SWIFT_DEBUG_FLAGS[@]}"
    fi
    # The package's targets, so only its own library modules are checked (not swift-nio's).
    description="$work/$(basename "$package").json"
    swift package --package-path "$package" --scratch-path "$BUILD_DIR" describe --type json >"$description" ||
        die "could not describe $package"
    descriptions+=("$description")
done
python3 "$REPO_ROOT/Scripts/check_docs.py" "$SYMBOL_GRAPH_DIR" "${descriptions[@]}"
