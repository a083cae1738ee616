"""Independent oracle: entry digests computed the way the draft's reference kit computes them.

Reads a timeline (JSON array) on stdin and prints one lowercase hex digest per entry. With
--batch, reads a JSON array of timelines and prints a JSON array of digest arrays. Written in
Python on purpose: the kit's preimage is Python's json.dumps(sort_keys=True, compact separators,
ensure_ascii), so this is the behaviour itself, not a re-implementation of it.
"""
import base64
import hashlib
import json
import sys


def entry_digest(entry):
    seq = entry["seq"]
    if isinstance(seq, float):
        seq = int(seq)
    preimage = {
        "close": entry.get("close", False),
        "id": entry["id"],
        "job_id": entry["job_id"],
        "output_hash": hashlib.sha256(base64.b64decode(entry["canonical_bytes"], validate=True)).hexdigest(),
        "prev_digest": entry["prev_digest"],
        "provenance_class": entry["provenance_class"],
        "seq": seq,
        "tool": entry["tool"],
    }
    text = json.dumps(preimage, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


if "--batch" in sys.argv[1:]:
    timelines = json.load(sys.stdin)
    print(json.dumps([[entry_digest(e) for e in t] for t in timelines]))
else:
    for entry in json.load(sys.stdin):
        print(entry_digest(entry))
