#!/usr/bin/env python3
"""A minimal implementation of the agentconf implementation contract (CONTRACT.md).

THIS IS AN EXAMPLE OF THE CONTRACT, NOT A REFERENCE. It shows how a program receives its
arguments, what it prints and how it exits. Its reading of the draft is deliberately short; the
suite's reference is `agentconf impl ...`, and where the two differ the reference and the rule
catalogue (`agentconf rules`) are what the corpus grades against.

What it implements: `aer1-timeline` under the current chain construction (revisions 07, 08 and
09 share it) of AER-1 (draft-zambo-aer1), an individual Internet-Draft: not an RFC and not
endorsed by the IETF; and, as a producer, `aer1-emit-timeline`, which writes the timeline of a
STEPS document with the same entry digest the verifier checks links with, `aer1-emit-commitment`
and `aer1-emit-receipt`, which writes the receipt of a payload's exact bytes.

    python3 minimal_impl.py aer1-timeline 09 timeline.json
    python3 minimal_impl.py aer1-emit-timeline steps.json
    python3 minimal_impl.py aer1-emit-commitment timeline.json 2026-10-01T18:30:00Z
    python3 minimal_impl.py aer1-emit-receipt payload.bin meta.json

Everything else exits 89 (unsupported), which the harness reports as unsupported, never as a
failure: the other operations (aer1-receipt under any TIER included), revision 06 and a
COMMITMENT argument. A real implementation that verifies receipts but not, say, the anchored tier
exits 89 for that TIER; it never checks it as another tier and exits 0.

On a timeline it prints one JSON object, {"verdict", "rules", "messages"}, and exits 0 (valid) or
1 (invalid). Note: Python exits 1 on an uncaught exception, which the harness would read as a
rejection; so the whole run is wrapped and an unexpected exception exits 70 instead (a crash,
never a rejection). Standard library only.
"""

import base64
import binascii
import hashlib
import json
import re
import sys

ACCEPT, REJECT, UNSUPPORTED, INTERNAL_ERROR = 0, 1, 89, 70

GENESIS = "0" * 64
STRING_MEMBERS = ("canonical_bytes", "prev_digest", "job_id", "id", "tool", "provenance_class")
NON_EMPTY = ("job_id", "id", "tool", "provenance_class")
B64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
PROVENANCE = re.compile(r"EXECUTED BY [A-Z0-9][A-Z0-9 ._-]*|OBSERVED VIA GATEWAY|LOGGED BY AGENT")


def unsupported(why):
    print(f"minimal_impl: unsupported: {why}", file=sys.stderr)  # stderr is never interpreted
    return UNSUPPORTED


def entry_digest(e, seq, output_hex):
    """Revision 07-09 entry digest: SHA-256 over the eight-member preimage, written the way
    Python's json.dumps writes it (sorted keys, no whitespace, ensure_ascii escaping)."""
    preimage = {
        "close": e.get("close", False),
        "id": e["id"],
        "job_id": e["job_id"],
        "output_hash": output_hex,  # recomputed from the bytes, bare hex, never copied
        "prev_digest": e["prev_digest"],
        "provenance_class": e["provenance_class"],
        "seq": seq,  # an int: 1.0 is written 1
        "tool": e["tool"],
    }
    text = json.dumps(preimage, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()  # ASCII already: ensure_ascii


def read_seq(e):
    """The seq as an int, or None when it is missing or not an integral number."""
    s = e.get("seq")
    if isinstance(s, bool) or not isinstance(s, (int, float)):
        return None
    if isinstance(s, float):
        if s != s or s in (float("inf"), float("-inf")) or not s.is_integer():
            return None
        return int(s)
    return s


def check_timeline(raw):
    """Returns a list of (rule id, message) failures (an empty list means valid), and the digest
    of the last entry (None when it could not be digested)."""
    fails = []

    def fail(rule, msg):
        fails.append((rule, msg))

    try:
        text = raw.decode("utf-8")  # strict: invalid UTF-8 (and UTF-16) is rejected
    except UnicodeDecodeError as err:
        return [("AER1-JSON-UTF8", f"input is not UTF-8: {err}")], None
    try:
        doc = json.loads(text)
    except RecursionError:
        return [("AER1-JSON-DEPTH", "input is nested too deeply for this parser")], None
    except ValueError as err:  # json.JSONDecodeError is a ValueError
        return [("AER1-JSON-SYNTAX", f"input is not well-formed JSON: {err}")], None
    if not isinstance(doc, list) or not doc:
        return [("AER1-TL-ARRAY", "timeline is not a non-empty JSON array")], None

    prev = None  # digest of the previous entry, or None when it could not be digested
    job = None  # the first usable job_id
    last = len(doc) - 1
    for i, e in enumerate(doc):
        if not isinstance(e, dict):
            fail("AER1-TL-ENTRY-OBJECT", f"entry {i} is not an object")
            prev = None
            continue
        digestable = True

        for m in STRING_MEMBERS:
            if not isinstance(e.get(m), str):
                fail("AER1-TL-MEMBERS", f"entry {i} {m} is missing or not a string")
                digestable = False
            elif m in NON_EMPTY and e[m] == "":
                fail("AER1-TL-MEMBERS", f"entry {i} {m} is empty")
                digestable = False

        output_hex = None
        cb = e.get("canonical_bytes")
        if isinstance(cb, str):
            try:
                if len(cb) % 4 or not B64.fullmatch(cb):
                    raise binascii.Error("not padded standard base64")
                data = base64.b64decode(cb, validate=True)
                output_hex = hashlib.sha256(data).hexdigest()
            except binascii.Error:
                fail("AER1-TL-B64", f"entry {i} canonical_bytes is not valid base64")
                digestable = False
            if output_hex is not None:
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    fail("AER1-TL-UTF8", f"entry {i} canonical_bytes does not decode to UTF-8")
                stored = e.get("output_hash")
                if "output_hash" in e and stored != "sha256:" + output_hex:
                    fail("AER1-TL-OUTPUT-HASH", f"entry {i} output_hash contradicts its bytes")

        pc = e.get("provenance_class")
        if isinstance(pc, str) and pc and not PROVENANCE.fullmatch(pc):
            fail("AER1-TL-PROVENANCE", f"entry {i} provenance_class is not a known class")

        seq = read_seq(e)
        if seq is None:
            fail("AER1-TL-SEQ-TYPE", f"entry {i} seq is not an integer")
            digestable = False
        elif seq != i + 1:
            fail("AER1-TL-SEQ", f"entry {i} seq {seq} breaks contiguity (expected {i + 1})")

        jid = e.get("job_id")
        if isinstance(jid, str) and jid:
            if job is None:
                job = jid
            elif jid != job:
                fail("AER1-TL-JOB", f"entry {i} job_id mixes jobs")

        close = e.get("close", False)
        if not isinstance(close, bool):
            fail("AER1-TL-CLOSE-TYPE", f"entry {i} close is not a boolean")
            digestable = False
            close = False  # counts as not closed
        if close and i != last:
            fail("AER1-TL-CLOSE-EARLY", f"entry {i} carries close:true before the last entry")
        if i == last and not close:
            fail("AER1-TL-CLOSE-LAST", "last entry does not carry close: true")

        pd = e.get("prev_digest")
        if isinstance(pd, str):
            if i == 0 and pd != GENESIS:
                fail("AER1-TL-GENESIS", "entry 0 prev_digest is not 64 zero characters")
            # A link from an entry that could not be digested is not judged (no cascade).
            if i > 0 and prev is not None and pd != prev:
                fail("AER1-TL-LINK", f"entry {i} prev_digest does not match the digest of entry {i - 1}")

        prev = entry_digest(e, seq, output_hex) if digestable else None
    return fails, prev


def emit_timeline(raw):
    """aer1-emit-timeline: the timeline of a STEPS document ({"job_id", "steps": [{"id", "tool",
    "provenance_class", "output_base64"}]}), each link the entry_digest of the entry before."""
    doc = json.loads(raw)
    steps, prev, entries = doc["steps"], GENESIS, []
    for i, step in enumerate(steps):
        output = base64.b64decode(step["output_base64"], validate=True)
        e = {
            "canonical_bytes": step["output_base64"],  # the same bytes, the same base64
            "prev_digest": prev,
            "seq": i + 1,
            "job_id": doc["job_id"],
            "id": step["id"],
            "tool": step["tool"],
            "provenance_class": step["provenance_class"],
        }
        if i == len(steps) - 1:
            e["close"] = True  # only the last; absent before it digests as false
        prev = entry_digest(e, i + 1, hashlib.sha256(output).hexdigest())
        entries.append(e)
    return entries


def main(argv):
    if not argv:
        return unsupported("no operation")
    op, args = argv[0], argv[1:]
    if op == "aer1-emit-timeline":
        if len(args) != 1:
            print("usage: minimal_impl.py aer1-emit-timeline STEPS", file=sys.stderr)
            return 2
        with open(args[0], "rb") as f:
            entries = emit_timeline(f.read())
        sys.stdout.write(json.dumps(entries) + "\n")
        sys.stdout.flush()
        return ACCEPT
    if op == "aer1-emit-commitment":
        if len(args) != 2:
            print("usage: minimal_impl.py aer1-emit-commitment TIMELINE PUBLISHED_AT", file=sys.stderr)
            return 2
        with open(args[0], "rb") as f:
            raw = f.read()
        fails, head = check_timeline(raw)
        if fails or head is None:
            return REJECT  # a commitment is made only for a timeline that verifies
        entries = json.loads(raw)
        commitment = {
            "job_id": entries[0]["job_id"],
            "final_entry_digest": head,
            "entry_count": len(entries),  # an int: written as a JSON integer
            "published_at": args[1],  # as given
        }
        sys.stdout.write(json.dumps(commitment) + "\n")
        sys.stdout.flush()
        return ACCEPT
    if op == "aer1-emit-receipt":
        if len(args) != 2:
            print("usage: minimal_impl.py aer1-emit-receipt PAYLOAD META", file=sys.stderr)
            return 2
        with open(args[0], "rb") as f:
            payload = f.read()  # the exact bytes: never parsed, never re-serialised
        with open(args[1], "rb") as f:
            receipt = json.loads(f.read())  # id, receipt_schema_version, created_at, tool, provenance_class
        try:
            payload.decode("utf-8")
        except UnicodeDecodeError:
            return REJECT  # no conforming receipt carries bytes that are not UTF-8
        receipt["canonical_bytes"] = base64.b64encode(payload).decode("ascii")
        receipt["output_hash"] = "sha256:" + hashlib.sha256(payload).hexdigest()
        receipt["verification_status"] = "verified"
        sys.stdout.write(json.dumps(receipt) + "\n")
        sys.stdout.flush()
        return ACCEPT
    if op != "aer1-timeline":
        return unsupported(f"operation {op}")  # aer1-receipt, aer1-workflow, grp-admit, ...
    if len(args) not in (2, 3):
        print("usage: minimal_impl.py aer1-timeline REVISION TIMELINE [COMMITMENT]", file=sys.stderr)
        return 2  # a crash, never a rejection: the harness called us wrongly
    revision, path = args[0], args[1]
    if revision not in ("07", "08", "09"):
        return unsupported(f"revision {revision}")  # 06: the historical construction
    if len(args) == 3:
        return unsupported("external commitments")

    with open(path, "rb") as f:  # unreadable input: an exception, hence a crash (exit 70)
        raw = f.read()
    fails, _ = check_timeline(raw)
    rules = list(dict.fromkeys(rule for rule, _ in fails))  # unique, in order of first failure
    result = {
        "verdict": "invalid" if fails else "valid",
        "rules": rules,
        "messages": [msg for _, msg in fails],
    }
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return REJECT if fails else ACCEPT


if __name__ == "__main__":
    try:
        code = main(sys.argv[1:])
    except Exception as err:  # noqa: BLE001 - any bug must be a crash, not a rejection
        print(f"minimal_impl: internal error: {err!r}", file=sys.stderr)
        code = INTERNAL_ERROR
    sys.exit(code)
