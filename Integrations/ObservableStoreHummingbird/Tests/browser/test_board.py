#!/usr/bin/env python3
"""The node board in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright for Python.

Usage: test_board.py --node-board PATH --storectl PATH --out DIR

Starts node-board on a free loopback port with a temporary store and opens the board in two pages, then:
creates a node in page one (it appears in page two), drags it (the store has the new position), updates it
with storectl (both pages show it), renames the user (both headers), stops the server with SIGTERM, writes
with storectl while it is down, restarts it on the same port (both pages reconnect and catch up), inserts four
nodes with storectl (both pages show them). Saves
DIR/board.png. Exit code 0 when every step passed, 1 otherwise (the failing step, the server's log and a
screenshot DIR/failure.png). Every wait has a timeout.

Needs: apt-get install -y chromium; pip install playwright (never `playwright install`).
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"
WAIT_MS = 15_000
# EventSource's own retry plus the server's restart.
RECONNECT_MS = 30_000


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A node-board process on `port`, its output in a log file."""

    def __init__(self, binary, db, port, log_path):
        self.binary, self.db, self.port, self.log_path = binary, db, port, log_path
        self.process = None

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [self.binary, "--db", self.db, "--port", str(self.port)], stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"node-board exited with {self.process.returncode} at start")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("node-board did not answer /healthz within 20 s")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("node-board still ran 10 s after SIGTERM")
        if status != 0:
            raise AssertionError(f"node-board exited with {status} after SIGTERM")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def log(self):
        try:
            with open(self.log_path) as log:
                return log.read()[-4000:]
        except OSError:
            return ""


class Shell:
    """storectl on the board's store."""

    def __init__(self, binary, db):
        self.binary, self.db = binary, db

    def run(self, *arguments):
        result = subprocess.run(
            [self.binary, "--db", self.db, *arguments], capture_output=True, text=True, timeout=60
        )
        if result.returncode != 0:
            raise AssertionError(f"storectl {' '.join(arguments)}: exit {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def node(self, node_id):
        return json.loads(self.run("get", "nodes", str(node_id), "--format", "json"))

    def last_sequence(self):
        return json.loads(self.run("info", "--format", "json"))["last_change_seq"]


def wait_until(what, condition, seconds=WAIT_MS / 1000):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def node_text(node_id):
    return f"document.querySelector('.node[data-id=\"{node_id}\"] .node-name')?.textContent ?? ''"


def wait_for_seq(page, seq, timeout=WAIT_MS):
    page.wait_for_function(
        "seq => Number(document.querySelector('#board')?.dataset.seq ?? -1) >= seq", arg=seq, timeout=timeout
    )


def run(arguments, server, shell, step):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
        try:
            pages = [browser.new_page(viewport={"width": 1000, "height": 700}) for _ in range(2)]
            first, second = pages
            try:
                run_steps(arguments, server, shell, step, pages)
            except BaseException:
                first.screenshot(path=os.path.join(arguments.out, "failure.png"))
                raise
        finally:
            browser.close()


def run_steps(arguments, server, shell, step, pages):
    first, second = pages
    url = f"http://127.0.0.1:{server.port}/"

    step("open the board in two pages")
    for page in pages:
        page.goto(url)
        page.wait_for_function("document.querySelector('#board')?.dataset.loaded === 'true'", timeout=WAIT_MS)

    step("create a node in page one: it appears in page two")
    before = second.locator(".node").count()
    first.click("#new-node")
    second.wait_for_function(f"document.querySelectorAll('.node').length === {before + 1}", timeout=WAIT_MS)
    first.wait_for_function(f"document.querySelectorAll('.node').length === {before + 1}", timeout=WAIT_MS)
    node_id = first.evaluate("Math.max(...[...document.querySelectorAll('.node')].map(n => Number(n.dataset.id)))")
    created = shell.node(node_id)

    step(f"drag node {node_id} in page one: the store has the new position")
    box = first.locator(f'.node[data-id="{node_id}"]').bounding_box()
    start_x, start_y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    first.mouse.move(start_x, start_y)
    first.mouse.down()
    first.mouse.move(start_x + 150, start_y + 80, steps=12)
    first.mouse.up()
    moved = wait_until(
        "the dragged position in the store",
        lambda: (lambda node: node if (node["x"], node["y"]) != (created["x"], created["y"]) else None)(shell.node(node_id)),
    )
    if abs(moved["x"] - created["x"] - 150) > 20 or abs(moved["y"] - created["y"] - 80) > 20:
        raise AssertionError(f"dragged by (150, 80) from {created['x']},{created['y']}, stored {moved['x']},{moved['y']}")

    step("storectl update from the shell: both pages show it")
    shell.run("update", "nodes", str(node_id), "--set", "name=from-the-shell")
    for page in pages:
        page.wait_for_function(f"({node_text(node_id)}).includes('from-the-shell')", timeout=WAIT_MS)

    step("rename the user in page one: both headers")
    first.fill("#user-name-input", "Grace Hopper")
    first.click("#rename-user")
    for page in pages:
        page.wait_for_function(
            "document.querySelector('#user-name')?.textContent.includes('Grace Hopper')", timeout=WAIT_MS
        )

    step("SIGTERM the server, write with storectl while it is down, restart it: both pages catch up")
    server.stop()
    shell.run("update", "nodes", str(node_id), "--set", "name=written-while-down")
    server.start()
    last = shell.last_sequence()
    for page in pages:
        page.wait_for_function(f"({node_text(node_id)}).includes('written-while-down')", timeout=RECONNECT_MS)
        wait_for_seq(page, last, timeout=RECONNECT_MS)
        page.wait_for_function(
            "document.querySelector('#connection')?.dataset.state === 'live'", timeout=RECONNECT_MS
        )

    step("storectl insert of four nodes from the shell: both pages show them")
    others = [
        {"name": "Presentation model", "x": 420, "y": 120, "color": "#7B61FF", "width": 170},
        {"name": "Store", "x": 460, "y": 320, "color": "#2E9E6A"},
        {"name": "storectl", "x": 700, "y": 430, "color": "#E07A2E"},
        {"name": "Browser tab", "x": 130, "y": 400, "color": "#D94A7A", "width": 140},
    ]
    shell.run("insert", "nodes", "\n".join(json.dumps(node) for node in others), "--input-format", "ndjson")
    for page in pages:
        page.wait_for_function(f"document.querySelectorAll('.node').length === {before + 1 + len(others)}", timeout=WAIT_MS)

    step("screenshot")
    first.locator(f'.node[data-id="{node_id}"]').click()
    first.screenshot(path=os.path.join(arguments.out, "board.png"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--node-board", required=True)
    parser.add_argument("--storectl", required=True)
    parser.add_argument("--out", required=True, help="folder for board.png (and failure.png, server.log)")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("FAIL: Playwright for Python is missing: pip install playwright", file=sys.stderr)
        return 1
    if not os.access(CHROMIUM, os.X_OK):
        print(f"FAIL: {CHROMIUM} is missing: apt-get install -y chromium", file=sys.stderr)
        return 1

    directory = tempfile.mkdtemp(prefix="node-board-browser-")
    db = os.path.join(directory, "board.sqlite")
    server = Server(arguments.node_board, db, free_port(), os.path.join(arguments.out, "server.log"))
    shell = Shell(arguments.storectl, db)
    current = ["start node-board"]

    def step(name):
        current[0] = name
        print(f"step: {name}", flush=True)

    try:
        server.start()
        run(arguments, server, shell, step)
    except Exception as error:  # one clear line naming the step, then the server's log
        print(f"FAIL at '{current[0]}': {type(error).__name__}: {error}", file=sys.stderr)
        print(f"node-board's log:\n{server.log()}", file=sys.stderr)
        return 1
    finally:
        server.kill()
    print(f"PASS: every step; screenshot {os.path.join(arguments.out, 'board.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
