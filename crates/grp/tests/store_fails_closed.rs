//! The SQLite admission store fails closed: a store file that was zeroed, truncated or
//! overwritten in places is refused when opened, or, where the damage missed everything the
//! store reads, still holds exactly what it held. Never does damage make a replay admissible
//! again. (The admission set is security state: losing it silently re-arms every replay.)

use std::path::Path;

use agentconf_grp::store::{Admission, AdmissionStore, OpenError, Refusal, SqliteStore};

mod support;

use support::TempDir;

/// Pairs admitted before the damage: enough rows for several pages.
const PAIRS: usize = 300;

fn event(i: usize) -> String {
    format!("grp-evt-{i:05}")
}

/// A store with `PAIRS` pairs admitted, closed (its WAL checkpointed into the file).
fn filled(path: &Path) {
    let store = SqliteStore::create(path).unwrap();
    for i in 0..PAIRS {
        assert_eq!(
            store.admit("s1", "pub", &event(i)).unwrap(),
            Admission::Admitted
        );
    }
}

/// What opening the damaged copy at `path` and replaying every pair gives: `Err` (refused), or
/// how many replays were admitted again.
fn replay(path: &Path) -> Result<usize, String> {
    let store = SqliteStore::open(path).map_err(|e| e.to_string())?;
    let mut again = 0;
    for i in 0..PAIRS {
        match store.admit("s1", "pub", &event(i)) {
            Ok(Admission::Admitted) => again += 1,
            Ok(Admission::Duplicate) => {}
            // A failure while admitting fails closed too: nothing is handed on.
            Err(_) => return Err("failed while admitting".into()),
        }
    }
    Ok(again)
}

/// A small deterministic generator (xorshift), so every run damages the same places.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn zeroed_and_truncated_stores_are_refused() {
    let dir = TempDir::new("truncated");
    let original = dir.0.join("original.sqlite");
    filled(&original);
    let len = std::fs::metadata(&original).unwrap().len();
    for keep in [0, 1, 100, 4096, len / 2] {
        let copy = dir.0.join(format!("cut-{keep}.sqlite"));
        std::fs::copy(&original, &copy).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&copy)
            .unwrap()
            .set_len(keep)
            .unwrap();
        let got = replay(&copy);
        assert!(
            got.is_err(),
            "cut to {keep} bytes: opened and admitted {got:?} again"
        );
    }
    // The untouched store is opened, and every replay is a duplicate.
    assert_eq!(replay(&original), Ok(0));
}

/// Everything a store holds that decides admissions, read with plain SQLite (no check of
/// agentconf's): identity, tables and triggers as SQL text, every row, the row count. `Err` when
/// any of it cannot be read.
#[derive(Debug, PartialEq)]
struct Logical {
    application_id: i64,
    user_version: i64,
    schema: Vec<(String, String, Option<String>)>,
    rows: Vec<(String, String, String, i64, Vec<u8>)>,
    row_count: i64,
}

fn logical(path: &Path) -> Result<Logical, rusqlite::Error> {
    let conn = rusqlite::Connection::open(path)?;
    let pragma = |name: &str| conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0));
    let all = |sql: &str| -> rusqlite::Result<Vec<rusqlite::types::Value>> {
        let mut stmt = conn.prepare(sql)?;
        let width = stmt.column_count();
        let rows = stmt.query_map([], |r| {
            (0..width)
                .map(|i| r.get::<_, rusqlite::types::Value>(i))
                .collect::<rusqlite::Result<Vec<_>>>()
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?.concat())
    };
    let text = |v: &rusqlite::types::Value| match v {
        rusqlite::types::Value::Text(t) => Some(t.clone()),
        _ => None,
    };
    let schema = all("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")?
        .chunks(3)
        .map(|c| {
            (
                text(&c[0]).unwrap_or_default(),
                text(&c[1]).unwrap_or_default(),
                text(&c[2]),
            )
        })
        .collect();
    let mut stmt = conn.prepare(
        "SELECT session_id, publisher_id, event_id, handed_off, row_check FROM admitted \
         ORDER BY session_id, publisher_id, event_id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Logical {
        application_id: pragma("application_id")?,
        user_version: pragma("user_version")?,
        schema,
        rows,
        row_count: conn.query_row("SELECT n FROM row_count", [], |r| r.get(0))?,
    })
}

/// Eight random bytes of the file overwritten, 100 times at random places: each damaged copy is
/// refused, or opens holding exactly what the original held (the damage hit bytes SQLite never
/// reads, free space in a page). A copy whose logical content changed is never opened, and no
/// copy ever admits a recorded pair again.
#[test]
fn random_damage_never_re_admits_a_replay() {
    let dir = TempDir::new("random");
    let original = dir.0.join("original.sqlite");
    filled(&original);
    let bytes = std::fs::read(&original).unwrap();
    let whole = logical(&original).expect("the original reads back");
    assert_eq!(whole.rows.len(), PAIRS);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let (mut refused, mut intact, mut changed) = (0, 0, 0);
    for n in 0..100 {
        let mut damaged = bytes.clone();
        let at = (xorshift(&mut state) % damaged.len() as u64) as usize;
        // Eight random bytes from `at`.
        for k in 0..8 {
            if let Some(b) = damaged.get_mut(at + k) {
                *b = xorshift(&mut state) as u8;
            }
        }
        // The content is read from a copy of its own, so reading it cannot touch the copy the
        // store opens.
        let probe = dir.0.join(format!("probe-{n}.sqlite"));
        std::fs::write(&probe, &damaged).unwrap();
        let same = logical(&probe).is_ok_and(|l| l == whole);
        if !same {
            changed += 1;
        }
        let copy = dir.0.join(format!("damaged-{n}.sqlite"));
        std::fs::write(&copy, &damaged).unwrap();
        match replay(&copy) {
            Err(_) => refused += 1,
            Ok(0) if same => intact += 1,
            Ok(0) => panic!("damage at byte {at} changed the store's content, yet it opened"),
            Ok(again) => panic!("damage at byte {at}: {again} replays admitted again"),
        }
    }
    println!(
        "of 100 damaged copies: {refused} refused ({changed} with their content changed), \
         {intact} opened with every pair intact"
    );
    assert!(refused > 0);
}

/// Two cell pointers swapped in a leaf page of `admitted`: four bytes, every row intact (so the
/// row checks and the count agree, and `quick_check` finds nothing), but the rows are out of key
/// order, so the unique key's look-up misses some recorded pairs and would admit them again.
/// Every such copy must be refused (the full `integrity_check` sees the order).
#[test]
fn out_of_order_rows_are_refused() {
    let dir = TempDir::new("order");
    let original = dir.0.join("original.sqlite");
    filled(&original);
    let bytes = std::fs::read(&original).unwrap();
    let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65_536,
        n => usize::from(n),
    };
    let mut swapped = 0;
    for (n, page) in bytes.chunks(page_size).enumerate().skip(1) {
        // 0x0a: a leaf page of an index b-tree; `admitted` (WITHOUT ROWID) is the only one.
        let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
        if page[0] != 0x0a || cells < 2 {
            continue;
        }
        let mut damaged = bytes.clone();
        let (first, last) = (n * page_size + 8, n * page_size + 8 + 2 * (cells - 1));
        let (a, b) = (
            [damaged[first], damaged[first + 1]],
            [damaged[last], damaged[last + 1]],
        );
        damaged[first..first + 2].copy_from_slice(&b);
        damaged[last..last + 2].copy_from_slice(&a);
        let copy = dir.0.join(format!("swapped-{n}.sqlite"));
        std::fs::write(&copy, &damaged).unwrap();
        let got = replay(&copy);
        assert!(
            got.is_err(),
            "page {n}: opened, {got:?} replays admitted again"
        );
        swapped += 1;
    }
    assert!(swapped >= 2, "only {swapped} leaf pages of admitted found");
}

#[test]
fn a_file_of_another_kind_is_refused() {
    let dir = TempDir::new("foreign");
    // A SQLite database that is not an admission store.
    let other = dir.0.join("other.sqlite");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(conn);
    let err = SqliteStore::open(&other).err().expect("refused");
    assert!(
        err.to_string().contains("not an agentconf admission store"),
        "{err}"
    );
    // Not a database at all.
    let text = dir.0.join("text.sqlite");
    std::fs::write(&text, "hello, world\n").unwrap();
    assert!(SqliteStore::open(&text).is_err());
}

/// A trigger's SQL text changed in place so that it still parses (the row count would go up by
/// 9 per insert): SQLite's checks see a well-formed file, the rows and the count still agree, so
/// only the comparison with the layout a new store gets can refuse it.
#[test]
fn a_changed_trigger_is_refused() {
    let dir = TempDir::new("trigger");
    let path = dir.0.join("store.sqlite");
    filled(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(9)
        .position(|w| w == b"n = n + 1")
        .expect("the insert trigger's text is in the file");
    bytes[at + 8] = b'9';
    std::fs::write(&path, &bytes).unwrap();
    let err = SqliteStore::open(&path).err().expect("refused");
    assert!(
        matches!(
            err,
            OpenError::Refused {
                why: Refusal::Schema,
                ..
            }
        ),
        "{err:?}"
    );
}

/// The cost of SQLite's full `integrity_check` (what an open runs) against `quick_check` on a
/// store of 10,000 pairs, and of a whole open. Timing only, asserted nowhere: run with
/// `cargo test --release -p agentconf-grp --test store_fails_closed -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_integrity_check_cost() {
    use agentconf_grp::store::Durability;
    use std::time::Instant;
    const ROWS: usize = 10_000;
    const OPENS: u32 = 20;
    let dir = TempDir::new("cost");
    let path = dir.0.join("big.sqlite");
    {
        let store = SqliteStore::create_with(&path, Durability::ProcessCrash).unwrap();
        for i in 0..ROWS {
            store.admit("s1", "pub", &event(i)).unwrap();
        }
    }
    let time = |f: &dyn Fn()| {
        f();
        let start = Instant::now();
        for _ in 0..OPENS {
            f();
        }
        start.elapsed().as_secs_f64() * 1000.0 / f64::from(OPENS)
    };
    let pragma = |name: &str| {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let mut stmt = conn.prepare(&format!("PRAGMA {name}")).unwrap();
        let v: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(v, ["ok"]);
    };
    let quick = time(&|| pragma("quick_check"));
    let full = time(&|| pragma("integrity_check"));
    let open = time(&|| drop(SqliteStore::open(&path).unwrap()));
    println!(
        "{ROWS} pairs, {} bytes, mean of {OPENS}: quick_check {quick:.2} ms, integrity_check \
         {full:.2} ms (ratio {:.2}); a whole open (integrity_check, schema, row checks) \
         {open:.2} ms, with quick_check instead about {:.2} ms (ratio {:.3})",
        std::fs::metadata(&path).unwrap().len(),
        full / quick,
        open - full + quick,
        open / (open - full + quick)
    );
}
