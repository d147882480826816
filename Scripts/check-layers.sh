#!/usr/bin/env bash
# Checks the layering: each layer package's manifest names exactly the layer below it, and the
# Cap'n Web core builds without SwiftNIO. Reads the manifests only; builds nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

python3 "$REPO_ROOT/Scripts/check_layers.py" "$REPO_ROOT" "${LAYER_SPECS[@]}"
