#!/usr/bin/env python3
"""The hostile-input sweep: every command of `agentconf` that reads a file, handed what an attacker
would hand it, each run bounded in time and measured in memory.

    python3 crates/fuzz/hostile-sweep.py [--bin target/release/agentconf] [--quick]

Kinds of input: truncations and bit flips of the corpus's own inputs (receipts, timelines,
workflows, commitments), non-regular files (a FIFO, a directory, /dev/zero, a socket), deep
nesting, huge strings, 1 GiB inputs (a timeline of one huge entry, a results file of one
endless line, two such files to `report diff`), and the files and outputs around a run
(`files_and_outputs`: a link planted at the results lock, one file for two outputs, a file size
limit, a dead run's temporary, hostile bytes in a file name, a million workers, an emitter's flood
of values, FIFOs and missing files as programs, store URLs that can never work). Containment
(no terminal, no capabilities) and escaping of claims and corpus ids are tested in the Rust tests
(crates/cli/tests), which need a pseudo-terminal and sealed files this script does not make. What it checks of every run: it ended within its
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
import subprocess
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


def run_captured(binary, args, cwd=None, env=None, shell_prefix=None, deadline=DEADLINE):
    """Runs `binary args` (under `sh -c 'PREFIX; exec …'` when a prefix is given) with a
    deadline: (exit code or "timeout", stdout, stderr, seconds)."""
    argv = [binary] + args
    if shell_prefix:
        quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)
        argv = ["sh", "-c", f"{shell_prefix}; exec {quoted}"]
    start = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=deadline,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return ("timeout", b"", b"", deadline)
    return (p.returncode, p.stdout, p.stderr, time.monotonic() - start)


def acting(data):
    """The bytes of `data` that act on a terminal or reorder text (C0 but line breaks and tabs,
    DEL, C1 in UTF-8, bidirectional controls)."""
    text = data.decode("utf-8", "replace")
    bidi = {0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
    return [hex(ord(c)) for c in text
            if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or ord(c) in bidi]


def files_and_outputs(s, work):
    """What this round's fixes hold, each a kind of its own: outputs through planted links, two
    outputs on one file, a file size limit, a dead run's temporary, hostile names on the
    terminal, unbounded work, emitter floods, FIFOs as programs, store URLs that cannot work."""
    def expect(kind, ok, what):
        c = s.counts.setdefault(kind, {"runs": 0, "by_exit": {}})
        c["runs"] += 1
        c["by_exit"]["ok" if ok else "failed"] = c["by_exit"].get("ok" if ok else "failed", 0) + 1
        if not ok:
            s.failures.append(f"{kind}: {what}")

    sel = ["--include", "aer1/workflow/valid"]
    d = os.path.join(work, "outputs")
    os.makedirs(d)
    out = os.path.join(d, "r.jsonl")
    # A link planted at the lock's name: refused, its target untouched.
    victim = os.path.join(d, "victim")
    open(victim, "wb").write(b"keep")
    os.symlink(victim, os.path.join(d, ".r.jsonl.lock"))
    code, _, err, _ = run_captured(s.binary, ["run", *sel, "--out", out])
    expect("planted lock link", code == 2 and open(victim, "rb").read() == b"keep",
           f"exit {code}: {err[:200]!r}")
    os.remove(os.path.join(d, ".r.jsonl.lock"))
    # One file for two outputs: refused before running, nothing written there.
    for flag in ("--html", "--emit-xfail"):
        code, _, err, _ = run_captured(s.binary, ["run", *sel, "--out", out, flag, out])
        expect("two outputs, one file", code == 2 and not os.path.exists(out),
               f"{flag}: exit {code}: {err[:200]!r}")
    # A file size limit: a write error said as such (not SIGXFSZ, exit 153), whole lines kept.
    code, _, err, _ = run_captured(s.binary, ["run", "--jobs", "1", "--include", "aer1/workflow/",
                                              "--out", out], shell_prefix="ulimit -f 20")
    expect("file size limit", code == 2 and b"file size limit" in err,
           f"exit {code}: {err[-300:]!r}")
    # A dead run's temporary beside the target is removed by the next run.
    stale = os.path.join(d, ".r.jsonl.4194000.1f.0.tmp")
    open(stale, "wb").write(b"{}\n")
    code, _, _, _ = run_captured(s.binary, ["run", *sel, "--out", out])
    expect("stale temporary", code == 0 and not os.path.exists(stale), f"exit {code}")
    # Hostile bytes in a file name: no terminal control on standard error.
    hostile = os.path.join(d, "r\x1b]52;c;eA==\x07\r\u202e.jsonl")
    open(hostile, "wb").write(b"not results\n")
    code, o, err, _ = run_captured(s.binary, ["report", hostile])
    expect("hostile name on the terminal", code == 2 and not acting(o + err),
           f"exit {code}: {acting(o + err)}")
    # Unbounded work: a million workers for twelve cases finishes like a few.
    code, _, err, secs = run_captured(s.binary, ["run", *sel, "--jobs", "1000000",
                                                 "--out", out], deadline=60)
    expect("jobs far past the cases", code in (0, 2) and secs < 30, f"exit {code} in {secs:.1f} s")
    # An emitter that floods its output with values: refused unparsed, memory bounded.
    flood = os.path.join(d, "flood.py")
    open(flood, "w").write("import sys\nsys.stdout.write('[' + '0,' * (8 << 20) + '0]')\n")
    start = time.monotonic()
    code, rss, secs, err = run_measured(s.binary, ["run", "--include", "aer1/emit-timeline/scale",
                                                   "--jobs", "2", "--out", out, "--", "python3",
                                                   flood])
    expect("emitter flood", code in (0, 1, 2) and rss < (400 << 20),
           f"exit {code}, peak RSS {rss >> 20} MiB")
    # FIFOs where a program, a generation record or an input is expected: refused, no hang.
    fifo = os.path.join(d, "prog-fifo")
    os.mkfifo(fifo)
    results = os.path.join(work, "claim.jsonl")
    run_captured(s.binary, ["run", *sel, "--out", results])
    for args in (["run", *sel, "--out", out, "--", fifo],
                 ["claim", "verify", results, "--", fifo],
                 ["impl", "aer1-timeline", "09", fifo],
                 ["matrix", "--out", os.path.join(d, "m"), f"x={fifo}"],
                 ["matrix", "--out", os.path.join(d, "m2"), "x=" + os.path.join(d, "missing.toml")]):
        code, _, err, secs = run_captured(s.binary, args, deadline=20)
        expect("FIFO or missing program", code in (2, 89) and secs < 15,
               f"{' '.join(args[:2])}: exit {code} in {secs:.1f} s: {err[:200]!r}")
    # Store URLs that can never work: one line and exit 2 at start, not `deferred` for ever.
    session = os.path.join(d, "session.json")
    code, o, _, _ = run_captured(s.binary, ["vectors", "show",
                                            "grp/admission/duplicate-event/redelivery-after-restart",
                                            "--input", "session"])
    open(session, "wb").write(o)
    for url in ("postgres://u@127.0.0.1:1/db%00x", "postgres://", "postgres:///agentconf",
                "postgres://u@no-such-host.invalid/db"):
        env = dict(os.environ, AGENTCONF_GRP_STORE=url)
        state = tempfile.mkdtemp(dir=d)
        code, o, err, _ = run_captured(s.binary, ["impl", "grp-admit", "01", session, state],
                                       env=env, deadline=20)
        expect("store URL that cannot work", code == 2 and not o, f"{url}: exit {code}: {err[:200]!r}")


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
        files_and_outputs(s, work)
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
