//! The stores' own tests: both backends through the trait, crash recovery, creation.

use std::path::{Path, PathBuf};

use super::*;

fn exercise(store: &dyn AdmissionStore) {
    assert_eq!(store.admit("s1", "p", "e").unwrap(), Admission::Admitted);
    assert_eq!(store.admit("s1", "p", "e").unwrap(), Admission::Duplicate);
    // The key is the pair, within a session.
    assert_eq!(store.admit("s1", "q", "e").unwrap(), Admission::Admitted);
    assert_eq!(store.admit("s2", "p", "e").unwrap(), Admission::Admitted);
    assert_eq!(store.pending("s1").unwrap().len(), 2);
    store.handed_off("s1", "p", "e").unwrap();
    assert_eq!(
        store.pending("s1").unwrap(),
        [("q".to_string(), "e".to_string())]
    );
    assert_eq!(store.count("s1").unwrap(), 2);
    assert_eq!(store.close_session("s1").unwrap(), 2);
    assert_eq!(store.count("s1").unwrap(), 0);
    assert_eq!(store.admit("s1", "p", "e").unwrap(), Admission::Admitted);
    assert_eq!(store.count("s2").unwrap(), 1);
}

#[test]
fn memory_store() {
    exercise(&MemoryStore::new());
}

#[test]
fn sqlite_store_and_reopening() {
    let dir = std::env::temp_dir().join(format!("agentconf-grp-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("admitted.sqlite");
    exercise(&SqliteStore::create(&path).unwrap());
    // A new connection (a restarted receiver) sees what the first admitted.
    let again = SqliteStore::open(&path).unwrap();
    assert_eq!(again.admit("s1", "p", "e").unwrap(), Admission::Duplicate);
    assert_eq!(again.admit("s2", "p", "e").unwrap(), Admission::Duplicate);
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A receiver that dies after admitting a pair and before handing it on leaves the pair
/// pending: recovery resumes it, and a re-delivered copy is still a duplicate.
#[test]
fn pending_hand_off_is_resumed_not_duplicated() {
    let dir = std::env::temp_dir().join(format!("agentconf-grp-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("admitted.sqlite");
    {
        let crashed = SqliteStore::create(&path).unwrap();
        assert_eq!(crashed.admit("s", "p", "e1").unwrap(), Admission::Admitted);
        crashed.handed_off("s", "p", "e1").unwrap();
        assert_eq!(crashed.admit("s", "p", "e2").unwrap(), Admission::Admitted);
        // The process dies here: e2 was admitted, its hand-off never completed.
    }
    let recovered = SqliteStore::open(&path).unwrap();
    assert_eq!(
        recovered.pending("s").unwrap(),
        [("p".to_string(), "e2".to_string())]
    );
    assert_eq!(
        recovered.admit("s", "p", "e2").unwrap(),
        Admission::Duplicate
    );
    recovered.handed_off("s", "p", "e2").unwrap();
    assert!(recovered.pending("s").unwrap().is_empty());
    drop(recovered);
    let _ = std::fs::remove_dir_all(&dir);
}

fn scratch(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "agentconf-grp-create-{}-{label}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_missing_store_is_not_created_by_opening() {
    let dir = scratch("missing");
    let path = dir.join("admitted.sqlite");
    let err = SqliteStore::open(&path).err().expect("refused");
    assert!(
        matches!(&err, OpenError::Missing(p) if *p == path),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("admitted.sqlite") && text.contains("grp init"),
        "{text}"
    );
    assert!(!path.exists(), "opening created the file");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn create_refuses_an_existing_file_and_open_then_works() {
    let dir = scratch("exists");
    let path = dir.join("admitted.sqlite");
    let store = SqliteStore::create(&path).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
    drop(store);
    let err = SqliteStore::create(&path).err().expect("refused");
    assert!(matches!(err, OpenError::Exists(_)), "{err:?}");
    // Refusing to create touched nothing: the pair is still there.
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Duplicate);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_store_deleted_with_its_journal_left_is_neither_opened_nor_created() {
    let dir = scratch("deleted");
    let path = dir.join("admitted.sqlite");
    let store = SqliteStore::create(&path).unwrap();
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
    // While the store is open its WAL is there; the file is deleted from under it.
    let wal = dir.join("admitted.sqlite-wal");
    assert!(wal.exists());
    std::fs::remove_file(&path).unwrap();
    for err in [
        SqliteStore::open(&path).err().expect("open refused"),
        SqliteStore::create(&path).err().expect("create refused"),
    ] {
        match &err {
            OpenError::Deleted { leftovers, .. } => assert!(leftovers.contains(&wal)),
            other => panic!("expected Deleted, got {other:?}"),
        }
        assert!(err.to_string().contains("admitted.sqlite-wal"), "{err}");
    }
    assert!(!path.exists());
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn creation_files_are_recognised_and_nothing_else() {
    let path = Path::new("/state/admitted.sqlite");
    let yes = [
        ".admitted.sqlite.new-12-0",
        ".admitted.sqlite.new-12-0-journal",
    ];
    for name in yes {
        assert!(SqliteStore::is_creation_file(path, name.as_ref()), "{name}");
    }
    let no = [
        "admitted.sqlite",
        "admitted.sqlite-wal",
        "admitted.sqlite-shm",
        ".admitted.sqlite",
        ".other.sqlite.new-1-0",
        "notes.txt",
    ];
    for name in no {
        assert!(
            !SqliteStore::is_creation_file(path, name.as_ref()),
            "{name}"
        );
    }
}

/// Creators started together on one path: exactly one creates, every other is told the
/// store exists, and no creation file is left behind.
#[test]
fn concurrent_creators_one_wins() {
    let dir = scratch("race");
    for round in 0..20 {
        let path = dir.join(format!("admitted-{round}.sqlite"));
        let barrier = std::sync::Barrier::new(8);
        let results: Vec<Result<SqliteStore, OpenError>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        SqliteStore::create(&path)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let created = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(created, 1, "round {round}: {created} creators succeeded");
        for r in &results {
            if let Err(e) = r {
                assert!(matches!(e, OpenError::Exists(_)), "round {round}: {e}");
            }
        }
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".new-"))
        .collect();
    assert!(left.is_empty(), "creation files left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Taken by value, as a receiver takes its store.
fn exercise_owned<S: AdmissionStore>(store: S) {
    exercise(&store);
}

#[test]
fn boxed_and_borrowed_stores_are_stores() {
    exercise_owned(Box::new(MemoryStore::new()) as BoxedStore);
    let shared = MemoryStore::new();
    exercise_owned(&shared);
    // What the borrower admitted is in the store it borrowed.
    assert_eq!(shared.count("s2").unwrap(), 1);
}

/// What `open` hands out is durable, and a store `open` hands out again remembers what the
/// first admitted.
fn remembers(open: impl Fn() -> BoxedStore) {
    let store = open();
    assert!(store.is_durable());
    assert_eq!(store.admit("s", "p", "e").unwrap(), Admission::Admitted);
    drop(store);
    assert_eq!(open().admit("s", "p", "e").unwrap(), Admission::Duplicate);
}

#[test]
fn the_opener_opens_each_backend() {
    let dir = scratch("opener");
    let path = dir.join("admitted.sqlite");
    let spec = format!("sqlite:{}", path.display());
    let missing = open(&spec, Opening::EXISTING).err().expect("refused");
    assert!(
        matches!(missing, OpenStoreError::Sqlite(OpenError::Missing(_))),
        "{missing:?}"
    );
    let if_absent = Opening {
        create: Create::IfAbsent,
        ..Opening::EXISTING
    };
    remembers(|| open(&spec, if_absent).unwrap());
    let only = Opening {
        create: Create::Only,
        ..Opening::EXISTING
    };
    let exists = open(&spec, only).err().expect("refused");
    assert!(
        matches!(exists, OpenStoreError::Sqlite(OpenError::Exists(_))),
        "{exists:?}"
    );
    let state = StoreSpec::StateDir(dir.join("state"));
    remembers(|| state.open(Opening::RECEIVER).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}
