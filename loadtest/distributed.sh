#!/usr/bin/env bash
# Locust's distributed mode, for loads bigger than one machine (loadtest/README.md, "Distributed load").
#
# One Locust process uses one CPU core. To go past that, run one master (it runs the step load, merges
# the statistics, writes the CSV/HTML reports and decides the exit status) and any number of workers
# (they run the simulated tables). Every machine needs this checkout and the same corpus (`make corpus`
# is deterministic, so generating it on each machine gives the same bytes).
#
#   loadtest/distributed.sh local [WORKERS] [loadtest.run options...]
#       Everything on this machine, on 127.0.0.1: the service, a master and WORKERS (default 2) worker
#       processes; bounded by --time (default 60s). This is `make loadtest-distributed`.
#
#   loadtest/distributed.sh master SERVICE_HOST:PORT WORKERS [locust options...]
#       On the master machine: a headless master that waits for WORKERS workers (at most 60 s), runs the
#       step load for LOADTEST_TIME (default 60s) and writes loadtest/results/distributed*. It listens for
#       workers on LOADTEST_MASTER_BIND (default 127.0.0.1: set it to an address the workers can reach)
#       port LOADTEST_MASTER_PORT (default 5557).
#
#   loadtest/distributed.sh worker MASTER_HOST [locust options...]
#       On each load machine: one worker process per core (Locust's --processes -1 forks them); they
#       take the service's address from the master and stop when the master stops.
#
# On one machine with several cores, plain `--processes N` does the same without the ceremony:
#   python -m loadtest.run --processes 4    (or: make loadtest LOADTEST_ARGS="--processes 4")
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
LOCUSTFILES=loadtest/locustfile.py,loadtest/shapes.py

usage() {
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

mode=${1:-}
[ -n "$mode" ] || usage
shift
case "$mode" in
local)
    workers=${1:-2}
    [ $# -gt 0 ] && shift
    exec "$BIN/python" -m loadtest.run --distributed "$workers" "$@"
    ;;
master)
    [ $# -ge 2 ] || usage
    host=$1 workers=$2
    shift 2
    mkdir -p loadtest/results
    exec "$BIN/locust" -f "$LOCUSTFILES" --master --headless --host "$host" \
        --master-bind-host "${LOADTEST_MASTER_BIND:-127.0.0.1}" --master-bind-port "${LOADTEST_MASTER_PORT:-5557}" \
        --expect-workers "$workers" --expect-workers-max-wait 60 -t "${LOADTEST_TIME:-60s}" \
        --csv loadtest/results/distributed --csv-full-history --html loadtest/results/distributed.html \
        --only-summary "$@"
    ;;
worker)
    [ $# -ge 1 ] || usage
    master=$1
    shift
    exec "$BIN/locust" -f "$LOCUSTFILES" --worker --master-host "$master" \
        --master-port "${LOADTEST_MASTER_PORT:-5557}" --processes -1 "$@"
    ;;
*)
    usage
    ;;
esac
