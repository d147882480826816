#!/usr/bin/env bash
# Removes every build folder in the repository.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

find "$REPO_ROOT" -type d \( -name '.build' -o -name '.build-*' -o -name '.build_*' \) -prune -print0 |
    while IFS= read -r -d '' dir; do
        log "clean: removing ${dir#"$REPO_ROOT"/}"
        rm -rf "$dir"
    done
rm -rf "$REPO_ROOT/Tests/Fuzz/artifacts"
