#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster: made in a temporary folder, listening on
# 127.0.0.1 only, on a free port, run as an unprivileged user (`postgres` when this script runs
# as root), with trust authentication for that address. The command finds it through
# RPC_POSTGRES_URL; the cluster is stopped and its folder removed when the command ends,
# however it ends.
#
#   Scripts/with-postgres.sh swift test --package-path Packages/Actors --filter Postgres
#
# With --optional first, a machine without a PostgreSQL server runs the command without one
# (the benchmarks' PostgreSQL parts are then skipped).
#
# When RPC_POSTGRES_URL is set already, the command runs against that database instead.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# With --optional, a machine without a PostgreSQL server runs the command without one.
optional=0
if [ "${1:-}" = "--optional" ]; then
    optional=1
    shift
fi
[ $# -gt 0 ] || die "usage: with-postgres.sh [--optional] COMMAND [ARGUMENTS...]"

if [ -n "${RPC_POSTGRES_URL:-}" ]; then
    exec "$@"
fi

bin_dir=""
if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    bin_dir="$(pg_config --bindir)"
else
    for candidate in /usr/lib/postgresql/*/bin; do
        [ -x "$candidate/initdb" ] && bin_dir="$candidate"
    done
fi
if [ -z "$bin_dir" ]; then
    if [ "$optional" -eq 1 ]; then
        log "postgres: no PostgreSQL server here; running without one"
        exec "$@"
    fi
    die "no PostgreSQL server found (install Debian's postgresql, or run Scripts/bootstrap.sh)"
fi

# PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user that
# Debian's package makes.
run_as=()
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || die "running as root and there is no postgres user to run the cluster as"
    run_as=(runuser -u postgres --)
fi

folder="$(mktemp -d -t rpc-postgres.XXXXXX)"
chmod 755 "$folder"
[ ${#run_as[@]} -eq 0 ] || chown postgres "$folder"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"

stop_cluster() {
    "${run_as[@]}" "$bin_dir/pg_ctl" -D "$folder/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$folder"
}
trap stop_cluster EXIT

log "postgres: a throwaway cluster on 127.0.0.1:$port"
"${run_as[@]}" "$bin_dir/initdb" -D "$folder/data" -U rpc --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
"${run_as[@]}" "$bin_dir/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$folder' -c max_connections=200 -c fsync=off" \
    start >/dev/null || { cat "$folder/server.log" >&2; die "the PostgreSQL cluster did not start"; }
"${run_as[@]}" "$bin_dir/createdb" -h 127.0.0.1 -p "$port" -U rpc rpc

export RPC_POSTGRES_URL="postgres://rpc@127.0.0.1:$port/rpc"
"$@"
