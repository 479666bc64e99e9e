#!/usr/bin/env bash
# The benchmarks of the Hummingbird integration (RESULTS.md), on loopback, release builds:
#  - GET /api/nodes?limit=100 and PATCH /api/nodes/:id with wrk, against node-board and against the HTTP floor
#    (`sse-load floor`: node-board's own answers, saved with curl, served from memory through the same
#    Hummingbird stack), each REPEAT times, alternating; the medians and their ratio;
#  - SSE fan-out: commit -> event received by 1, 100 and 500 clients (`sse-load run`, one writer process posting
#    to node-board's API, so the commit is made in node-board's process), p50 / p99, REPEAT times each;
#  - the load test: 500 clients, 2,000 commits from two writer processes writing through the library (node-board
#    sees their commits with the change feed's poll, 250 ms by default), memory per client.
# Usage (from anywhere): Integrations/ObservableStoreHummingbird/Benchmarks/run.sh [OUTPUT_DIR]
# Needs wrk and curl (apt-get install -y wrk curl). Environment: REPEAT (3), DURATION (wrk seconds, 10),
# CONNECTIONS (wrk, 64), FANOUT_COMMITS (1000), FANOUT_RATE (commits/s, 100).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/benchmarks}
repeat=${REPEAT:-3}
duration=${DURATION:-10}
connections=${CONNECTIONS:-64}
fanout_commits=${FANOUT_COMMITS:-1000}
fanout_rate=${FANOUT_RATE:-100}
mkdir -p "$out"

flock -o /tmp/swift-build.lock swift build -c release --product node-board
flock -o /tmp/swift-build.lock swift build -c release --product sse-load
bin=.build/release

work=$(mktemp -d)
db=$work/board.sqlite
port=$((20000 + RANDOM % 20000))
floor_port=$((port + 1))
"$bin/node-board" --db "$db" --port "$port" >"$out/node-board.log" 2>&1 &
server=$!
floor=""
trap 'kill $server $floor 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -sr)"
echo "seeding 1000 nodes"
"$bin/sse-load" write --db "$db" --commits 1000
# First, while node-board is fresh (its memory per client is measured against its size at start).
echo "load test: 500 clients, 2000 commits from 2 writer processes"
"$bin/sse-load" run --port "$port" --db "$db" --clients 500 --commits 2000 --writers 2 --server-pid "$server" \
    | tee -a "$out/load.log"
curl -sf "http://127.0.0.1:$port/api/nodes?limit=100" >"$out/nodes.json"
curl -sf "http://127.0.0.1:$port/api/nodes/1" >"$out/node.json"
"$bin/sse-load" floor --port "$floor_port" --json "$out/nodes.json" --node "$out/node.json" >"$out/floor.log" 2>&1 &
floor=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$floor_port/api/nodes" >/dev/null && break; sleep 0.1; done

# Requests/s of one wrk run: wrk_rate URL [wrk options...]
wrk_rate() {
    local url=$1
    shift
    wrk -t2 -c"$connections" -d"${duration}s" "$@" "$url" | tee -a "$out/wrk.log" | awk '/^Requests\/sec:/ { print $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for route in get patch; do
    board_rates=()
    floor_rates=()
    for _ in $(seq "$repeat"); do
        if [ "$route" = get ]; then
            board_rates+=("$(wrk_rate "http://127.0.0.1:$port/api/nodes?limit=100")")
            floor_rates+=("$(wrk_rate "http://127.0.0.1:$floor_port/api/nodes?limit=100")")
        else
            board_rates+=("$(wrk_rate "http://127.0.0.1:$port/api/nodes/1" -s Benchmarks/patch.lua)")
            floor_rates+=("$(wrk_rate "http://127.0.0.1:$floor_port/api/nodes/1" -s Benchmarks/patch.lua)")
        fi
    done
    board=$(printf '%s\n' "${board_rates[@]}" | median)
    floor_rate=$(printf '%s\n' "${floor_rates[@]}" | median)
    echo "$route: node-board ${board_rates[*]} req/s (median $board); floor ${floor_rates[*]} req/s (median $floor_rate);" \
        "ratio $(awk -v a="$board" -v b="$floor_rate" 'BEGIN { printf "%.2f", a / b }')x"
done

for clients in 1 100 500; do
    for run in $(seq "$repeat"); do
        echo "fan-out: $clients clients, run $run"
        "$bin/sse-load" run --port "$port" --db "$db" --clients "$clients" --commits "$fanout_commits" --writers 1 \
            --write-via api --rate "$fanout_rate" --server-pid "$server" | tee -a "$out/fanout.log"
    done
done
