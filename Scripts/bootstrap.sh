#!/usr/bin/env bash
# Installs the system packages the stack builds against, when they are missing.
# Idempotent: on a machine that has everything it only says so.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

APT_PACKAGES=(pkg-config libssl-dev zlib1g-dev)

missing=()
for package in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    log "bootstrap: system packages present (${APT_PACKAGES[*]})"
else
    command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get to install them"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "missing ${missing[*]}; run as root or install sudo"
        SUDO="sudo"
    fi
    log "bootstrap: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    log "bootstrap: installed ${missing[*]}"
fi

command -v swift >/dev/null 2>&1 || die "no swift toolchain on PATH (Swift 6.1 or later is required)"
