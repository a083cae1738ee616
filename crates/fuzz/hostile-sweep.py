#!/usr/bin/env python3
"""The hostile-input sweep: every command of `agentconf` that reads a file, handed what an attacker
would hand it, each run bounded in time and measured in memory.

    python3 crates/fuzz/hostile-sweep.py [--bin target/release/agentconf] [--quick]

Kinds of input: truncations and bit flips of the corpus's own inputs (receipts, timelines,
workflows, commitments), non-regular files (a FIFO, a directory, /dev/zero, a socket), deep
nesting, huge strings, and 1 GiB inputs (a timeline of one huge entry, a results file of one
endless line, two such files to `report diff`). What it checks of every run: it ended within its
deadline, never by a panic (exit 101 or "panicked" on standard error) or a signal, with a
documented exit code (0 valid, 1 invalid, 2 refused); and how much memory it took at most (the
kernel's peak RSS of the process, from wait4). It prints the counts per kind and the worst peak
RSS, and exits non-zero when any run failed a check.

Scratch files go to a temporary directory (the 1 GiB inputs are sparse where they can be, and
removed at the end). It takes a few minutes; --quick does a tenth of the truncations and flips.
"""

import argparse
import json
import os
import random
import shutil
import socket
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEADLINE = 120  # seconds a single run may take
GIB = 1 << 30


def run_measured(binary, args):
    """Runs `binary args` with a deadline: (exit code, or "timeout"; the child's peak RSS in bytes,
    from wait4; seconds; the first 64 KiB of its standard error)."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        err = os.open(ERR_PATH, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(err, 2)
        try:
            os.execv(binary, [binary] + args)
        finally:
            os._exit(127)
    deadline = start + DEADLINE
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.wait4(pid, 0)
            return ("timeout", 0, DEADLINE, b"")
        time.sleep(0.01)
    with open(ERR_PATH, "rb") as f:
        stderr = f.read(1 << 16)
    code = os.waitstatus_to_exitcode(status)
    return (code, usage.ru_maxrss * 1024, time.monotonic() - start, stderr)


ERR_PATH = ""


class Sweep:
    def __init__(self, binary):
        self.binary = binary
        self.counts = {}
        self.failures = []
        self.worst = (0, "")

    def check(self, kind, args, allowed=(0, 1, 2)):
        code, rss, seconds, stderr = run_measured(self.binary, args)
        c = self.counts.setdefault(kind, {"runs": 0, "by_exit": {}})
        c["runs"] += 1
        c["by_exit"][str(code)] = c["by_exit"].get(str(code), 0) + 1
        if rss > self.worst[0]:
            self.worst = (rss, f"{kind}: agentconf {' '.join(args)}")
        problem = None
        if code == "timeout":
            problem = f"ran past {DEADLINE} s"
        elif b"panicked" in stderr or code == 101:
            problem = "panicked"
        elif isinstance(code, int) and code < 0:
            problem = f"killed by signal {-code}"
        elif code not in allowed:
            problem = f"exit {code}"
        if problem:
            self.failures.append(f"{kind}: agentconf {' '.join(args)}: {problem}: {stderr[:300]!r}")


def corpus_inputs():
    """(verify kind, bytes) of every input of the corpus a verifier reads."""
    out = []
    roles = {"receipt": "receipt", "timeline": "timeline", "workflow": "workflow"}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "vectors")):
        for name in files:
            if not name.endswith(".json") or "schema" in dirpath:
                continue
            try:
                v = json.load(open(os.path.join(dirpath, name), encoding="utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue
            if not isinstance(v, dict) or "inputs" not in v:
                continue
            for i in v["inputs"]:
                if i.get("role") in roles and i.get("encoding") == "utf8":
                    out.append((roles[i["role"]], i["content"].encode("utf-8")))
    return out


def main():
    global ERR_PATH
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.path.join(ROOT, "target/release/agentconf"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--seed", type=int, default=20261203)
    a = p.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"no agentconf at {a.bin}: cargo build --release -p agentconf-cli first")
    rnd = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="agentconf-sweep-")
    ERR_PATH = os.path.join(work, "stderr")
    s = Sweep(a.bin)
    try:
        inputs = corpus_inputs()
        share = 10 if a.quick else 1
        doc = os.path.join(work, "doc.json")
        # Truncations and bit flips of the corpus's own inputs.
        for n, (kind, data) in enumerate(inputs):
            if n % share:
                continue
            for cut in sorted({len(data) // 2, len(data) - 1, rnd.randrange(len(data) or 1)}):
                open(doc, "wb").write(data[:cut])
                s.check(f"truncated {kind}", ["verify", kind, doc])
            for _ in range(2):
                flipped = bytearray(data)
                if flipped:
                    i = rnd.randrange(len(flipped))
                    flipped[i] ^= 1 << rnd.randrange(8)
                open(doc, "wb").write(bytes(flipped))
                s.check(f"bit-flipped {kind}", ["verify", kind, doc])
        # Non-regular files in every place a file is read.
        fifo = os.path.join(work, "fifo")
        os.mkfifo(fifo)
        sock_path = os.path.join(work, "sock")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(sock_path)
        timeline = os.path.join(ROOT, "crates/aer1/testdata/v07-valid-5.json")
        for special in [fifo, sock_path, work, "/dev/zero"]:
            for args in (
                ["verify", "receipt", special],
                ["verify", "timeline", special],
                ["verify", "timeline", timeline, "--commitment", special],
                ["verify", "workflow", special],
                ["digest", special],
                ["report", special],
                ["claim", "verify", special],
                ["grp", "admit", special],
                ["run", "--adapter", special, "--out", os.path.join(work, "r.jsonl")],
            ):
                s.check("non-regular file", args, allowed=(2,))
        sock.close()
        # Deep nesting and huge strings.
        open(doc, "wb").write(b"[" * 1_000_000)
        s.check("deep nesting", ["verify", "timeline", doc], allowed=(1, 2))
        open(doc, "wb").write(b"[" * 1_000_000)
        s.check("deep nesting", ["verify", "receipt", doc], allowed=(1, 2))
        open(doc, "wb").write(b'{"id":"' + b"a" * (100 << 20) + b'"}')
        s.check("huge string", ["verify", "receipt", doc], allowed=(1, 2))
        # 1 GiB inputs: one endless timeline entry, one endless results line.
        big = os.path.join(work, "big")
        with open(big, "wb") as f:
            f.write(b'[{"canonical_bytes":"')
            chunk = b"A" * (1 << 20)
            for _ in range(1024):
                f.write(chunk)
        s.check("1 GiB input", ["verify", "timeline", big], allowed=(1, 2))
        s.check("1 GiB input", ["report", big], allowed=(2,))
        with open(big, "r+b") as f:
            f.write(b'{"type":"header","x":"')
        s.check("1 GiB input", ["report", big], allowed=(2,))
        s.check("1 GiB input", ["report", "diff", big, big], allowed=(2,))
        s.check("1 GiB input", ["claim", "verify", big], allowed=(2,))
        os.remove(big)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(c["runs"] for c in s.counts.values())
    print(f"{total} runs of {a.bin}")
    for kind, c in s.counts.items():
        print(f"  {kind:<20} {c['runs']:>5}  exits {c['by_exit']}")
    print(f"worst peak RSS: {s.worst[0] / (1 << 20):.1f} MiB ({s.worst[1]})")
    if s.failures:
        print(f"{len(s.failures)} runs failed a check:")
        for f in s.failures:
            print("  " + f)
        sys.exit(1)
    print("no panic, no signal, no timeout, every exit code documented")


if __name__ == "__main__":
    main()
