#!/usr/bin/env bash
# Installs the system packages the stack builds against, and the interop tests' Python peer in a
# virtual environment inside the clone, when they are missing.
# Idempotent: on a machine that has everything it only says so. Nothing is installed globally.
# With --system, only the system packages (what a build needs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# openssl: the command line makes the certificates of the TLS tests. libsqlite3-dev: the SQLite
# that GRDB (Tinyvex's store) links against.
APT_PACKAGES=(pkg-config libssl-dev zlib1g-dev openssl libsqlite3-dev)

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

# `bootstrap.sh --system` stops here: what building the packages needs (`make demo`).
if [ "${1:-}" = "--system" ]; then
    exit 0
fi

# The PostgreSQL-backed tests run against a throwaway cluster (Scripts/with-postgres.sh) of
# Debian's PostgreSQL server.
if ! dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q "install ok installed"; then
    command -v apt-get >/dev/null 2>&1 || die "missing postgresql and no apt-get to install it"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "missing postgresql; run as root or install sudo"
        SUDO="sudo"
    fi
    log "bootstrap: installing postgresql"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    # Debian's package starts a cluster of its own; the tests make their own, so it is stopped.
    $SUDO service postgresql stop >/dev/null 2>&1 || true
    log "bootstrap: installed postgresql"
else
    log "bootstrap: postgresql present"
fi

# The interop tests (Tests/Interop) run against the Python `websockets` package at a pinned
# version, installed in $INTEROP_VENV only.
interop_python="$INTEROP_VENV/bin/python"
interop_version_check="import websockets, sys; sys.exit(0 if websockets.__version__ == '$INTEROP_WEBSOCKETS_VERSION' else 1)"
if [ -x "$interop_python" ] && "$interop_python" -c "$interop_version_check" >/dev/null 2>&1; then
    log "bootstrap: interop peer present (websockets $INTEROP_WEBSOCKETS_VERSION in ${INTEROP_VENV#"$REPO_ROOT"/})"
else
    if [ ! -x "$interop_python" ]; then
        base_python=""
        for candidate in python3.11 python3; do
            if command -v "$candidate" >/dev/null 2>&1 &&
                "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 9) else 1)' >/dev/null 2>&1; then
                base_python="$candidate"
                break
            fi
        done
        [ -n "$base_python" ] || die "the interop tests need Python 3.9 or later with the venv module (python3.11 or python3)"
        log "bootstrap: creating ${INTEROP_VENV#"$REPO_ROOT"/} with $("$base_python" --version 2>&1)"
        "$base_python" -m venv "$INTEROP_VENV" || die "could not create the virtual environment $INTEROP_VENV"
    fi
    log "bootstrap: installing websockets==$INTEROP_WEBSOCKETS_VERSION into ${INTEROP_VENV#"$REPO_ROOT"/}"
    "$interop_python" -m pip install --quiet --disable-pip-version-check "websockets==$INTEROP_WEBSOCKETS_VERSION" ||
        die "could not install websockets==$INTEROP_WEBSOCKETS_VERSION into $INTEROP_VENV"
    "$interop_python" -c "$interop_version_check" || die "websockets $INTEROP_WEBSOCKETS_VERSION is not importable from $interop_python"
    log "bootstrap: installed websockets $INTEROP_WEBSOCKETS_VERSION in ${INTEROP_VENV#"$REPO_ROOT"/}"
fi
