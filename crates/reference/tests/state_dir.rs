//! The receiver's store in its `STATE_DIR` (`agentconf_reference::admit::open_state`, behind
//! `impl grp-admit`, the in-process receivers and the mutants): created only in an empty
//! directory, opened when there, refused when the directory holds something but no store (a
//! deleted store), and created exactly once when concurrent copies start together on an empty
//! directory, none of them refusing for seeing another mid-creation.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;

use agentconf_grp::store::{Admission, AdmissionStore, OpenError, OpenStoreError, StateDirError};
use agentconf_reference::admit::{open_state, STATE_FILE};

struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "agentconf-state-dir-{}-{}-{label}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
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

/// The name of the store's generation record.
fn record() -> String {
    format!("{STATE_FILE}-generation")
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_empty_state_dir_gets_a_store_and_keeps_it() {
    let t = TempDir::new("fresh");
    let store = open_state(&t.0).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
    drop(store);
    // A restarted receiver opens the same store.
    let store = open_state(&t.0).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Duplicate);
    drop(store);
    assert_eq!(names(&t.0), [STATE_FILE.to_string(), record()]);
}

#[test]
fn a_missing_state_dir_is_made_and_counts_as_empty() {
    let t = TempDir::new("missing");
    let dir = t.0.join("state");
    let store = open_state(&dir).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
}

#[test]
fn a_deleted_store_is_refused_and_not_recreated() {
    let t = TempDir::new("deleted");
    let path = t.0.join(STATE_FILE);
    let store = open_state(&t.0).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
    drop(store);
    // Deleted after a clean stop: its generation record is left, and tells.
    std::fs::remove_file(&path).unwrap();
    let err = open_state(&t.0).err().expect("refused");
    assert!(
        matches!(
            &err,
            OpenStoreError::StateDir(StateDirError::Store(OpenError::Deleted { .. }))
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains(&record()), "{err}");
    // Deleted with its record, beside a file of some other kind: no store, yet not empty.
    std::fs::remove_file(t.0.join(record())).unwrap();
    std::fs::write(t.0.join("notes.txt"), "x").unwrap();
    let err = open_state(&t.0).err().expect("refused");
    assert!(
        matches!(&err, OpenStoreError::StateDir(StateDirError::NoStore { entries, .. }) if entries == &["notes.txt"]),
        "{err:?}"
    );
    assert!(err.to_string().contains(STATE_FILE), "{err}");
    assert!(
        !path.exists(),
        "a store was created in a non-empty STATE_DIR"
    );
}

#[test]
fn a_store_deleted_with_its_wal_left_is_refused() {
    let t = TempDir::new("wal-left");
    let path = t.0.join(STATE_FILE);
    let store = open_state(&t.0).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
    // Deleted while a receiver has it open: its WAL and shared memory stay.
    std::fs::remove_file(&path).unwrap();
    let err = open_state(&t.0).err().expect("refused");
    assert!(
        matches!(
            &err,
            OpenStoreError::StateDir(StateDirError::Store(OpenError::Deleted { .. }))
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("admitted.sqlite-wal"), "{err}");
    assert!(!path.exists());
    drop(store);
}

#[test]
fn a_damaged_store_is_refused() {
    let t = TempDir::new("damaged");
    let path = t.0.join(STATE_FILE);
    drop(open_state(&t.0).unwrap());
    std::fs::write(&path, b"").unwrap();
    let err = open_state(&t.0).err().expect("refused");
    assert!(
        matches!(
            &err,
            OpenStoreError::StateDir(StateDirError::Store(OpenError::Empty(_)))
        ),
        "{err:?}"
    );
}

/// Copies started together on an empty `STATE_DIR`, each with its own connection, as receiver
/// processes are: none refuses (another copy's creation in progress is not "not empty"), one
/// store is made, and the pair they all deliver is admitted exactly once.
#[test]
fn concurrent_first_starts_create_one_store_and_admit_once() {
    const COPIES: usize = 8;
    const ROUNDS: usize = 40;
    let t = TempDir::new("race");
    for round in 0..ROUNDS {
        let dir = t.0.join(format!("state-{round}"));
        std::fs::create_dir(&dir).unwrap();
        let barrier = Barrier::new(COPIES);
        let results: Vec<Result<Admission, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..COPIES)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        let store = open_state(&dir).map_err(|e| e.to_string())?;
                        store.admit("s", "p", "e").map_err(|e| e.to_string())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let refused: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
        assert!(refused.is_empty(), "round {round}: refused {refused:?}");
        let admitted = results
            .iter()
            .filter(|r| matches!(r, Ok(Admission::Admitted)))
            .count();
        assert_eq!(admitted, 1, "round {round}: admitted {admitted} times");
        // No creator's temporary file is left, only the store and its generation record. The
        // WAL and shared-memory files may be: SQLite removes them only when the last connection
        // closes with the lock to checkpoint, and eight closing at once may all miss it.
        let wal = format!("{STATE_FILE}-wal");
        let shm = format!("{STATE_FILE}-shm");
        let left: Vec<String> = names(&dir)
            .into_iter()
            .filter(|n| *n != wal && *n != shm)
            .collect();
        assert_eq!(left, [STATE_FILE.to_string(), record()], "round {round}");
    }
}
