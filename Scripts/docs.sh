#!/usr/bin/env bash
# Builds the DocC documentation of every library module that has a catalog
# (`Packages/<Package>/Sources/<Module>/Documentation.docc`) and fails on any DocC warning: a
# broken link or symbol reference, in an article or in a doc comment, fails the build.
#
# DocC reads the symbol graphs the compiler writes during the shared debug build
# (SYMBOL_GRAPH_DIR, see lib.sh), as the doc-comment check does, so nothing is compiled twice.
# With --no-build (what test-all.sh passes, right after that build) it only reads them; on its
# own it first runs the shared debug build of each package with a catalog, which compiles only
# what changed since the last one. The archives go to .build/docs/<Module>.doccarchive.
#
# `swift package generate-documentation --target <Module>` in a package folder builds one
# module's documentation through the Swift-DocC plugin too, compiling it in that package's own
# build folder.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build=1
if [ "${1:-}" = "--no-build" ]; then
    build=0
fi

cd "$REPO_ROOT"  # one working folder for every build, as in test-all.sh
mkdir -p "$SYMBOL_GRAPH_DIR"
catalogs=()
for package in "${LAYER_PACKAGES[@]}"; do
    found=("$package"/Sources/*/Documentation.docc)
    [ -d "${found[0]}" ] || continue
    if [ "$build" -eq 1 ]; then
        log "docs: building $package"
        forget_debug_plan
        swift build --package-path "$package" "${SWIFT_DEBUG_FLAGS[@]}"
    fi
    catalogs+=("${found[@]}")
done
[ "${#catalogs[@]}" -gt 0 ] || die "no documentation catalog found"

start=$SECONDS
python3 "$REPO_ROOT/Scripts/build_docs.py" "$SYMBOL_GRAPH_DIR" "$BUILD_DIR/docs" "${catalogs[@]}"
log "docs: built in $((SECONDS - start))s"
