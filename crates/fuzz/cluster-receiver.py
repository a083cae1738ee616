#!/usr/bin/env python3
"""A GRP cluster receiver written from CONTRACT.md alone (sections 5 and 7), on PostgreSQL through
psycopg, as an outside implementer would write one: `grp-admit REVISION SESSION STATE_DIR`, one
decision line per event line. Only the duplicate check is implemented (every line of the cluster
vectors is admissible), so it is run on those alone. Not run in CI (it needs psycopg); to try
the `cluster` profile from outside:

    python3 -m venv /tmp/outside && /tmp/outside/bin/pip install 'psycopg[binary]'
    export AGENTCONF_GRP_STORE=$(.ci/postgres start)
    VARIANT=right agentconf run --profile cluster --include grp/admission/cluster \
        -- /tmp/outside/bin/python crates/fuzz/cluster-receiver.py

VARIANT selects the receiver; every one but `right` is deliberately wrong and must fail:

  right              key (cluster, session, publisher, event); deferred on a fault; an admission
                     whose commit is unknown is resolved by its own attempt token
  no_session_key     key (cluster, publisher, event)
  no_publisher_key   key (cluster, session, event)
  fallback_on_timeout  admits into a local set (STATE_DIR) when the store times out
  commit_then_defer  commits, answers deferred, never resolves
  no_resolution      right, but an unknown commit is never resolved (a naive receiver)
"""
import asyncio
import json
import os
import secrets
import sys

import psycopg

VARIANT = os.environ.get("VARIANT", "right")
TIMEOUT_S = 2.0


def decision(e, p, outcome, reason=None):
    d = {"event_id": e, "publisher_id": p, "outcome": outcome,
         "ale": "ALE-064" if outcome == "rejected" else None,
         "rejection_reason": reason,
         "rule": "GRP-DUP-EVENT" if reason == "duplicate_event_id" else None}
    sys.stdout.write(json.dumps(d) + "\n")
    sys.stdout.flush()


def main():
    revision, session_path, state = sys.argv[2], sys.argv[3], sys.argv[4]
    if sys.argv[1] != "grp-admit":
        sys.exit(89)
    if revision != "01":
        sys.exit(89)
    session = json.load(open(session_path))["session_id"]
    url = os.environ["AGENTCONF_GRP_STORE"]
    addr = os.environ.get("AGENTCONF_STORE_ADDR")
    host, port = (addr.rsplit(":", 1) if addr else (None, None))
    cluster = os.environ.get("AGENTCONF_CLUSTER", "")
    conn = None
    unresolved = {}  # pair -> attempt token
    local = set()

    loop = asyncio.new_event_loop()

    async def connect():
        kw = {"connect_timeout": 2, "autocommit": True}
        if host:
            kw.update(host=host, port=port)
        c = await psycopg.AsyncConnection.connect(url, **kw)
        await c.execute("CREATE TABLE IF NOT EXISTS outside_pairs (k text PRIMARY KEY, attempt text)")
        return c

    async def admit(key, attempt):
        nonlocal conn
        if conn is None or conn.closed:
            conn = await connect()
        cur = await conn.execute(
            "INSERT INTO outside_pairs VALUES (%s, %s) ON CONFLICT DO NOTHING", (key, attempt))
        if cur.rowcount == 1:
            return "inserted"
        cur = await conn.execute("SELECT attempt FROM outside_pairs WHERE k = %s", (key,))
        row = await cur.fetchone()
        return ("recorded", row[0] if row else None)

    for line in sys.stdin:
        ev = json.loads(line)
        e, p = ev["event_id"], ev["publisher_id"]
        parts = [cluster, session, p, e]
        if VARIANT == "no_session_key":
            parts = [cluster, p, e]
        if VARIANT == "no_publisher_key":
            parts = [cluster, session, e]
        key = json.dumps(parts)
        attempt = unresolved.get(key) or secrets.token_hex(12)
        try:
            got = loop.run_until_complete(asyncio.wait_for(admit(key, attempt), TIMEOUT_S))
        except (psycopg.Error, OSError, asyncio.TimeoutError) as err:
            timed_out = isinstance(err, asyncio.TimeoutError)
            old, conn = conn, None
            if old is not None:
                try:
                    old.pgconn.finish()
                except Exception:
                    pass
            if VARIANT == "fallback_on_timeout" and timed_out:
                if key in local:
                    decision(e, p, "rejected", "duplicate_event_id")
                else:
                    local.add(key)
                    decision(e, p, "admitted")
                continue
            unresolved[key] = attempt
            print(f"store: {err!r}", file=sys.stderr)
            decision(e, p, "deferred")
            continue
        if got == "inserted":
            unresolved.pop(key, None)
            decision(e, p, "deferred" if VARIANT == "commit_then_defer" else "admitted")
        elif key in unresolved and got[1] == unresolved[key] and VARIANT != "no_resolution":
            unresolved.pop(key)
            decision(e, p, "admitted")
        else:
            unresolved.pop(key, None)
            decision(e, p, "rejected", "duplicate_event_id")


if __name__ == "__main__":
    main()
