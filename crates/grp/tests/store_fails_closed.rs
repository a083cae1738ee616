//! The SQLite admission store fails closed: a store file that was zeroed, truncated or
//! overwritten in places is refused when opened, or, where the damage missed everything the
//! store reads, still knows every pair it had admitted. Never does damage make a replay
//! admissible again. (The admission set is security state: losing it silently re-arms every
//! replay.)

use std::path::{Path, PathBuf};

use agentconf_grp::store::{Admission, AdmissionStore, SqliteStore};

/// Pairs admitted before the damage: enough rows for several pages.
const PAIRS: usize = 300;

struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "agentconf-store-closed-{}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn event(i: usize) -> String {
    format!("grp-evt-{i:05}")
}

/// A store with `PAIRS` pairs admitted, closed (its WAL checkpointed into the file).
fn filled(path: &Path) {
    let store = SqliteStore::open(path).unwrap();
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

#[test]
fn random_damage_never_re_admits_a_replay() {
    let dir = TempDir::new("random");
    let original = dir.0.join("original.sqlite");
    filled(&original);
    let bytes = std::fs::read(&original).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let (mut refused, mut intact) = (0, 0);
    for n in 0..100 {
        let mut damaged = bytes.clone();
        let at = (xorshift(&mut state) % damaged.len() as u64) as usize;
        // Eight random bytes from `at`.
        for k in 0..8 {
            if let Some(b) = damaged.get_mut(at + k) {
                *b = xorshift(&mut state) as u8;
            }
        }
        let copy = dir.0.join(format!("damaged-{n}.sqlite"));
        std::fs::write(&copy, &damaged).unwrap();
        match replay(&copy) {
            Err(_) => refused += 1,
            Ok(0) => intact += 1,
            Ok(again) => panic!("damage at byte {at}: {again} replays admitted again"),
        }
    }
    println!("of 100 damaged copies: {refused} refused, {intact} opened with every pair intact");
    assert!(refused > 0);
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
