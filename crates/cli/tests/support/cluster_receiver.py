"""A GRP receiver for the cluster tests (CONTRACT.md 5 and 7), started as
`python3 cluster_receiver.py grp-admit REVISION SESSION STATE_DIR`.

It admits each (publisher_id, event_id) once across all nodes by asking a tiny TCP store at
AGENTCONF_STORE_ADDR (one connection per line: it sends `CLUSTER/PUBLISHER/EVENT` and reads `new`
or `dup`), and answers `deferred` whenever the store cannot be reached. It checks no signature
and keeps nothing in STATE_DIR: every line of the cluster vectors is admissible once, and what
is tested is the sharing.
"""

import json
import os
import socket
import sys


def ask(key):
    """`new`, `dup`, or None when the store cannot be reached (or no address was given)."""
    if "AGENTCONF_STORE_ADDR" not in os.environ:
        return None
    host, port = os.environ["AGENTCONF_STORE_ADDR"].rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall((key + "\n").encode())
            reply = s.makefile().readline().strip()
    except OSError:
        return None
    return reply if reply in ("new", "dup") else None


def decision(line):
    event = json.loads(line)
    base = {"event_id": event.get("event_id"), "publisher_id": event.get("publisher_id")}
    cluster = os.environ.get("AGENTCONF_CLUSTER", "")
    key = "/".join([cluster, str(base["publisher_id"]), str(base["event_id"])])
    reply = ask(key)
    if reply == "new":
        return {**base, "outcome": "admitted", "ale": None, "rejection_reason": None, "rule": None}
    if reply == "dup":
        return {**base, "outcome": "rejected", "ale": "ALE-064",
                "rejection_reason": "duplicate_event_id", "rule": "GRP-DUP-EVENT"}
    return {**base, "outcome": "deferred", "ale": None, "rejection_reason": None, "rule": None}


for line in sys.stdin:
    print(json.dumps(decision(line)), flush=True)
