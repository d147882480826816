#!/usr/bin/env bash
# Runs every benchmark (release builds), one layer after the other.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for script in "$REPO_ROOT"/Scripts/bench-*.sh; do
    log "bench: $(basename "$script" .sh)"
    "$script"
done
