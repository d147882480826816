#!/usr/bin/env bash
# Removes every build folder in the repository: the shared debug and release scratch paths at the
# root (see lib.sh), and any build folder inside a package (the fuzz build's, or one a plain
# `swift build` in a package folder made).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for dir in "$BUILD_DIR" "$RELEASE_BUILD_DIR"; do
    if [ -d "$dir" ]; then
        log "clean: removing ${dir#"$REPO_ROOT"/}"
        rm -rf "$dir"
    fi
done
find "$REPO_ROOT" -path "$REPO_ROOT/.venv*" -prune -o \
    -type d \( -name '.build' -o -name '.build-*' -o -name '.build_*' \) -prune -print0 |
    while IFS= read -r -d '' dir; do
        log "clean: removing ${dir#"$REPO_ROOT"/}"
        rm -rf "$dir"
    done
rm -rf "$REPO_ROOT/Tests/Fuzz/artifacts"
