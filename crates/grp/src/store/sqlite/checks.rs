//! What opening a SQLite store checks before it admits anything: identity, SQLite's integrity
//! check, the layout, every row and the row count.

use rusqlite::Connection;

use super::{retry_while_busy, Refusal};

/// The layout. SQLite keeps no checksums of its own, so damage that leaves the file well formed
/// (a changed byte inside an event id, a flipped `handed_off`) would go unseen: every row carries
/// `row_check`, SHA-256 over its four values, and `row_count` counts the rows (kept by triggers in
/// the same transaction as the insert or delete). Opening a store verifies both. `generation`
/// holds the store's identity and counts every admission ever recorded (never decreased), which
/// the record beside the store is compared with ([`super::generation`]); a new store gets its
/// one row when it is made.
pub(super) const SCHEMA: &str = "
CREATE TABLE admitted (
    session_id   TEXT NOT NULL,
    publisher_id TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    handed_off   INTEGER NOT NULL DEFAULT 0 CHECK (handed_off IN (0, 1)),
    row_check    BLOB NOT NULL,
    PRIMARY KEY (session_id, publisher_id, event_id)
) WITHOUT ROWID;
CREATE TABLE row_count (n INTEGER NOT NULL);
INSERT INTO row_count (n) VALUES (0);
CREATE TRIGGER count_insert AFTER INSERT ON admitted BEGIN UPDATE row_count SET n = n + 1; END;
CREATE TRIGGER count_delete AFTER DELETE ON admitted BEGIN UPDATE row_count SET n = n - 1; END;
CREATE TABLE generation (store_id TEXT NOT NULL, admissions INTEGER NOT NULL);
CREATE TRIGGER generation_insert AFTER INSERT ON admitted
    BEGIN UPDATE generation SET admissions = admissions + 1; END;
";

/// A row's check value: SHA-256 over its values, each length-prefixed so no two rows share one.
/// Public for tools that write rows in bulk without the store (the admission benchmark); a row
/// written without it is refused when the store is next opened.
pub fn row_check(session: &str, publisher: &str, event: &str, handed_off: bool) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [session, publisher, event] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    h.update([u8::from(handed_off)]);
    h.finalize().to_vec()
}

/// The SQLite `application_id` of an agentconf admission store ("AGRP"): a file of any other
/// kind is refused rather than written into.
pub(super) const APPLICATION_ID: i32 = 0x4147_5250;
/// The layout (`user_version`); a store of another layout is refused. 3: the `generation` table.
pub(super) const SCHEMA_VERSION: i32 = 3;
/// The integrity check run on every open: the full one, see [`check_integrity`] for why.
pub(super) const INTEGRITY_CHECK: &str = "integrity_check";

/// Refuses a file that is not a whole agentconf admission store of this layout.
pub(super) fn check_contents(conn: &Connection) -> Result<(), Refusal> {
    check_identity(conn)?;
    check_integrity(conn)?;
    check_schema(conn)?;
    check_rows(conn)
}

/// The reads of an open: `what` names the read in a refusal.
fn read<T>(what: &'static str, f: impl FnMut() -> rusqlite::Result<T>) -> Result<T, Refusal> {
    retry_while_busy(f).map_err(|e| Refusal::Unreadable { what, error: e.0 })
}

/// Another kind of database, or an admission store of another layout, is refused rather than
/// written into.
fn check_identity(conn: &Connection) -> Result<(), Refusal> {
    let pragma = |name: &str| {
        read("as a database", || {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
        })
    };
    let id = pragma("application_id")?;
    if id != i64::from(APPLICATION_ID) {
        return Err(Refusal::ForeignApplication(id));
    }
    let version = pragma("user_version")?;
    if version != i64::from(SCHEMA_VERSION) {
        return Err(Refusal::SchemaVersion(version));
    }
    Ok(())
}

/// SQLite's own check of the file's structure (pages, b-trees, free list, NOT NULL and CHECK
/// constraints), the full `integrity_check` rather than `quick_check`: `quick_check` does not
/// check that the rows of a `WITHOUT ROWID` table are in key order, and two swapped cell
/// pointers in a page of `admitted` (every row intact, so the row checks and the count agree)
/// make the unique key's look-up miss recorded pairs, which are then admitted again
/// (`tests/store_fails_closed.rs`, `out_of_order_rows_are_refused`). Measured on a store of
/// 10,000 pairs (release build): the full check takes about 1.25 times `quick_check` (1.6 ms
/// against 1.3), a whole open about 5% longer (7.5 ms against 7.2).
fn check_integrity(conn: &Connection) -> Result<(), Refusal> {
    let problems: Vec<String> = read("for an integrity check", || {
        let mut stmt = conn.prepare(&format!("PRAGMA {INTEGRITY_CHECK}"))?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<rusqlite::Result<Vec<String>>>()
    })?;
    if problems != ["ok"] {
        return Err(Refusal::Damaged(problems));
    }
    Ok(())
}

/// One entry of `sqlite_master`: type, name, table and the SQL text SQLite runs (a trigger's
/// body is this text, so a changed byte in it that still parses would change what a trigger
/// does, unseen by any structural check).
type SchemaEntry = (String, String, String, Option<String>);

fn schema_of(conn: &Connection) -> rusqlite::Result<Vec<SchemaEntry>> {
    let mut stmt =
        conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    rows.collect()
}

/// The tables and triggers must be exactly those a new store gets (compared with a store made
/// in memory from [`SCHEMA`]).
fn check_schema(conn: &Connection) -> Result<(), Refusal> {
    let expected = Connection::open_in_memory()
        .and_then(|fresh| fresh.execute_batch(SCHEMA).and_then(|()| schema_of(&fresh)))
        .map_err(|e| Refusal::Unreadable {
            what: "against the layout (no store can be made in memory)",
            error: e.to_string(),
        })?;
    if read("as a schema", || schema_of(conn))? != expected {
        return Err(Refusal::Schema);
    }
    Ok(())
}

/// Every row as it was written, and as many rows as were written: read in one transaction, so a
/// receiver admitting meanwhile cannot put a row between the two reads.
fn check_rows(conn: &Connection) -> Result<(), Refusal> {
    type Row = (String, String, String, i64, Vec<u8>);
    let (rows, recorded): (Vec<Row>, i64) = read("as rows", || {
        let tx = conn.unchecked_transaction()?;
        let rows = {
            let mut stmt = tx.prepare(
                "SELECT session_id, publisher_id, event_id, handed_off, row_check FROM admitted",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            rows.collect::<rusqlite::Result<Vec<Row>>>()?
        };
        let recorded: i64 = tx.query_row("SELECT n FROM row_count", [], |r| r.get(0))?;
        tx.commit()?;
        Ok((rows, recorded))
    })?;
    for (session, publisher, event, handed_off, check) in &rows {
        if *check != row_check(session, publisher, event, *handed_off == 1) {
            return Err(Refusal::RowCheck {
                publisher: publisher.clone(),
                event: event.clone(),
            });
        }
    }
    if recorded != rows.len() as i64 {
        return Err(Refusal::RowCount {
            rows: rows.len(),
            recorded,
        });
    }
    Ok(())
}
