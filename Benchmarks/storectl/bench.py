#!/usr/bin/env python3
"""storectl against the tools people compare it with: import, export and peak memory.

Builds nothing. First, from the repository root:
    swift build -c release --product storectl
    swift build -c release --product store-fixture
Then:
    python3 Benchmarks/storectl/bench.py [--rows 1000000] [--small-rows 100000] [--repeat 1] [--markdown FILE]

sqlite-utils 4.2.1 is found on PATH, or given with --sqlite-utils; to install it in a virtual environment:
    python3 -m venv /tmp/bench-venv && /tmp/bench-venv/bin/pip install sqlite-utils==4.2.1
    ... --sqlite-utils /tmp/bench-venv/bin/sqlite-utils
Cases whose tool is missing are reported as "not run". Each case runs in a child process; its wall time and its
peak RSS (ru_maxrss from os.wait4) are measured; with --repeat N the median of N runs is reported.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NODES_DDL = open(os.path.join(ROOT, "Migrations", "0001_create_nodes.sql")).read()
COLUMNS = ["id", "name", "x", "y", "color", "width", "height", "created_at", "updated_at"]
STAMP = "2026-11-26T10:00:00.000Z"


def node(i):
    return (i, f"node {i}", i * 0.5, i * 0.25 + 0.1, "#4A90D9", 120.0, 60.0, STAMP, STAMP)


def write_inputs(directory, rows):
    """1..rows nodes, every column given, as NDJSON and CSV (header line first)."""
    ndjson = os.path.join(directory, f"nodes-{rows}.ndjson")
    csv = os.path.join(directory, f"nodes-{rows}.csv")
    with open(ndjson, "w") as out:
        for i in range(1, rows + 1):
            n = node(i)
            out.write('{"id":%d,"name":"%s","x":%r,"y":%r,"color":"%s","width":%r,"height":%r,'
                      '"created_at":"%s","updated_at":"%s"}\n' % n)
    with open(csv, "w") as out:
        out.write(",".join(COLUMNS) + "\n")
        for i in range(1, rows + 1):
            out.write("%d,%s,%r,%r,%s,%r,%r,%s,%s\n" % node(i))
    return ndjson, csv


def run(argv, stdin=None, stdout=subprocess.DEVNULL, env=None):
    """Runs argv to completion; returns (seconds, peak RSS in MB). Fails loudly on a non-zero exit."""
    stdin_file = open(stdin, "rb") if stdin else subprocess.DEVNULL
    err = tempfile.TemporaryFile()
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=stdin_file, stdout=stdout, stderr=err, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if stdin:
        stdin_file.close()
    if child.returncode != 0:
        err.seek(0)
        raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}: {err.read().decode()[:500]}")
    return seconds, usage.ru_maxrss / 1024.0


def measure(repeat, prepare, argv_of):
    """Median wall time and peak RSS of `repeat` runs; `prepare()` makes a fresh target before each and
    returns what `argv_of` needs."""
    times, peaks = [], []
    for _ in range(repeat):
        target = prepare()
        seconds, peak = run(*argv_of(target))
        times.append(seconds)
        peaks.append(peak)
    return statistics.median(times), statistics.median(peaks)


class Bench:
    """Fresh stores and plain databases in the temporary directory."""

    def __init__(self, args, directory):
        self.args = args
        self.dir = directory
        self.storectl = args.storectl
        self.counter = 0

    def fresh(self, name):
        self.counter += 1
        return os.path.join(self.dir, f"{name}-{self.counter}.sqlite")

    def store(self):
        """A new store made by `storectl init` (change log and all)."""
        path = self.fresh("store")
        run([self.storectl, "init", "--db", path])
        return path

    def plain_db(self):
        """A plain SQLite file (WAL) with the same `nodes` table and nothing else: no change log."""
        path = self.fresh("plain")
        run(["sqlite3", path, "PRAGMA journal_mode=WAL;" + NODES_DDL])
        return path

    def insert_ndjson(self, ndjson):
        return measure(self.args.repeat, self.store,
                       lambda db: ([self.storectl, "--db", db, "-q", "insert", "nodes", ndjson],))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--small-rows", type=int, default=100_000, help="the size the memory rows compare with")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--storectl", default=os.path.join(ROOT, ".build", "release", "storectl"))
    parser.add_argument("--store-fixture", default=os.path.join(ROOT, ".build", "release", "store-fixture"))
    parser.add_argument("--sqlite-utils", default=shutil.which("sqlite-utils"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    if not os.access(args.storectl, os.X_OK):
        sys.exit(f"bench.py: {args.storectl} not found; run `swift build -c release --product storectl` first")
    directory = tempfile.mkdtemp(prefix="storectl-bench-")
    try:
        lines = run_cases(args, directory)
    finally:
        if args.keep:
            print(f"kept {directory}", file=sys.stderr)
        else:
            shutil.rmtree(directory, ignore_errors=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)


def run_cases(args, directory):
    bench = Bench(args, directory)
    rows, small = args.rows, args.small_rows
    say = lambda message: print(f"bench.py: {message}", file=sys.stderr, flush=True)
    say(f"writing {rows:,} and {small:,} nodes as NDJSON and CSV")
    ndjson, csv = write_inputs(directory, rows)
    small_ndjson, _ = write_inputs(directory, small)
    table = []

    # insert NDJSON, all or nothing
    say("insert NDJSON")
    mine = bench.insert_ndjson(ndjson)
    utils = None
    if args.sqlite_utils:
        utils = measure(args.repeat, bench.plain_db,
                        lambda db: ([args.sqlite_utils, "insert", db, "nodes", ndjson, "--nl"],))
    library = None
    if os.access(args.store_fixture, os.X_OK):
        library = measure(args.repeat, lambda: bench.fresh("library"),
                          lambda db: ([args.store_fixture, "write-batch", db, str(rows), "12"],))
    table.append(("`insert` NDJSON (all or nothing)", "sqlite-utils `insert --nl`", mine, utils,
                  "≥ 3× faster", None if utils is None else utils[0] / mine[0], lambda r: r >= 3, "× faster"))
    table.append(("`insert` NDJSON (all or nothing)", "library bulk insert (store-fixture write-batch)", mine, library,
                  "≤ 1.5×", None if library is None else mine[0] / library[0], lambda r: r <= 1.5, "×"))

    # insert CSV
    say("insert CSV")
    mine_csv = measure(args.repeat, bench.store,
                       lambda db: ([bench.storectl, "--db", db, "-q", "insert", "nodes", csv, "--input-format", "csv"],))
    shell = measure(args.repeat, bench.plain_db,
                    lambda db: (["sqlite3", db, f".import --csv --skip 1 {csv} nodes"],))
    table.append(("`insert` CSV", "sqlite3 `.import --csv` (no log)", mine_csv, shell, "≤ 2×",
                  mine_csv[0] / shell[0], lambda r: r <= 2, "×"))

    # list --format ndjson
    say("list")
    listed = bench.store()
    run([bench.storectl, "--db", listed, "-q", "insert", "nodes", ndjson])
    mine_list = measure(args.repeat, lambda: listed,
                        lambda db: ([bench.storectl, "--db", db, "list", "nodes", "--format", "ndjson"],))
    sqlite_json = measure(args.repeat, lambda: listed, lambda db: (["sqlite3", "-json", db, "SELECT * FROM nodes"],))
    table.append(("`list --format ndjson`", "`sqlite3 -json`", mine_list, sqlite_json, "≤ 1.3×",
                  mine_list[0] / sqlite_json[0], lambda r: r <= 1.3, "×"))
    if args.sqlite_utils:
        utils_rows = measure(args.repeat, lambda: listed, lambda db: ([args.sqlite_utils, "rows", db, "nodes", "--nl"],))
        table.append(("`list --format ndjson`", "sqlite-utils `rows --nl`", mine_list, utils_rows, "(reference)",
                      mine_list[0] / utils_rows[0], None, "×"))

    # peak RSS at rows against small rows
    say("memory")
    small_insert = bench.insert_ndjson(small_ndjson)
    small_store = bench.store()
    run([bench.storectl, "--db", small_store, "-q", "insert", "nodes", small_ndjson])
    small_list = measure(args.repeat, lambda: small_store,
                         lambda db: ([bench.storectl, "--db", db, "list", "nodes", "--format", "ndjson"],))
    for label, big, little in (("import", mine, small_insert), ("export", mine_list, small_list)):
        ratio = big[1] / little[1]
        table.append((f"peak RSS, {label} of {rows:,} rows", f"the same at {small:,}",
                      (None, big[1]), (None, little[1]), "≤ 1.2×, < 64 MB", ratio,
                      lambda r, peak=big[1]: r <= 1.2 and peak < 64, "×"))

    out = [f"storectl benchmark: {rows:,} nodes (memory rows against {small:,}); median of {args.repeat} run(s); "
           f"`python3 Benchmarks/storectl/bench.py --rows {rows} --small-rows {small} --repeat {args.repeat}`", "",
           "| case | compared with | storectl | other | ratio | target | met |", "|---|---|---|---|---|---|---|"]
    for case, other_name, mine_value, other_value, target, ratio, check, unit in table:
        def show(value):
            if value is None:
                return "not run"
            if value[0] is None:
                return f"{value[1]:.0f} MB"
            return f"{value[0]:.2f} s, {value[1]:.0f} MB"
        ratio_text = "–" if ratio is None else f"{ratio:.2f}{unit}"
        met = "–" if ratio is None or check is None else ("met" if check(ratio) else "not met")
        out.append(f"| {case} | {other_name} | {show(mine_value)} | {show(other_value)} | {ratio_text} | {target} | {met} |")
    return out


if __name__ == "__main__":
    main()
