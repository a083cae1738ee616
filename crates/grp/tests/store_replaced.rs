//! Files of a SQLite store removed or replaced: while it is open (its write-ahead log and index
//! removed, the store file itself replaced), and between opens (an older copy put back, another
//! store put in its place). Each is refused, never a silent loss of admitted pairs; and what the
//! store cannot see (its generation record replaced along with it) is shown here too, so that
//! the module's account of it stays true. Receiver processes sharing a store whose log was
//! removed are in `crates/cli/tests/grp_processes.rs`.

use std::path::{Path, PathBuf};

use agentconf_grp::store::{Admission, AdmissionStore, OpenError, Refusal, SqliteStore};

mod support;

use support::TempDir;

fn beside(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

fn event(i: usize) -> String {
    format!("evt-{i:03}")
}

/// Admits `range` into the store, each one new.
fn admit_all(store: &SqliteStore, range: std::ops::Range<usize>) {
    for i in range {
        assert_eq!(
            store.admit("s", "p", &event(i)).unwrap(),
            Admission::Admitted,
            "{}",
            event(i)
        );
    }
}

/// How many of `range` a store opened at `path` admits again.
fn admitted_again(path: &Path, range: std::ops::Range<usize>) -> usize {
    let store = SqliteStore::open(path).unwrap();
    range
        .filter(|i| store.admit("s", "p", &event(*i)).unwrap() == Admission::Admitted)
        .count()
}

fn refusal(path: &Path) -> Refusal {
    match SqliteStore::open(path) {
        Err(OpenError::Refused { why, .. }) => why,
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("opened"),
    }
}

/// The store's log and index removed while it is open: the next admission fails, naming the
/// file, and is not recorded. Closing the store then (the process's last connection) writes
/// what its log held into the store file, so every pair admitted before is still a duplicate.
#[test]
fn a_journal_removed_while_open_stops_the_next_admission() {
    let dir = TempDir::new("journal");
    let path = dir.file("admitted.sqlite");
    let store = SqliteStore::create(&path).unwrap();
    admit_all(&store, 0..20);
    for suffix in ["-wal", "-shm"] {
        std::fs::remove_file(beside(&path, suffix)).unwrap();
    }
    let err = store.admit("s", "p", &event(20)).unwrap_err().to_string();
    assert!(
        err.contains("admitted.sqlite-wal") && err.contains("removed while the store was open"),
        "{err}"
    );
    // Every admission from now on fails the same way; a duplicate is not answered either.
    assert!(store.admit("s", "p", &event(0)).is_err());
    drop(store);
    assert_eq!(admitted_again(&path, 0..20), 0);
    // The one that failed was not recorded.
    assert_eq!(admitted_again(&path, 20..21), 1);
}

/// The store file itself replaced while open (renamed over by a copy): the receiver would write
/// into a file no other receiver opens.
#[test]
fn the_store_file_replaced_while_open_stops_the_next_admission() {
    let dir = TempDir::new("file");
    let path = dir.file("admitted.sqlite");
    drop(SqliteStore::create(&path).unwrap());
    let store = SqliteStore::open(&path).unwrap();
    admit_all(&store, 0..3);
    let copy = dir.file("copy.sqlite");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::rename(&copy, &path).unwrap();
    let err = store.admit("s", "p", &event(3)).unwrap_err().to_string();
    assert!(
        err.contains("admitted.sqlite was replaced by another file"),
        "{err}"
    );
}

/// An older copy of the store put back (a backup restored, say): it counts fewer admissions
/// than its generation record, so it is refused, and the pairs admitted since the copy cannot
/// be replayed.
#[test]
fn an_older_copy_put_back_is_refused() {
    let dir = TempDir::new("older");
    let path = dir.file("admitted.sqlite");
    admit_all(&SqliteStore::create(&path).unwrap(), 0..5);
    let old = std::fs::read(&path).unwrap();
    admit_all(&SqliteStore::open(&path).unwrap(), 5..8);
    std::fs::write(&path, &old).unwrap();
    assert!(
        matches!(
            refusal(&path),
            Refusal::LostAdmissions {
                recorded: 8,
                found: 5,
                ..
            }
        ),
        "{:?}",
        refusal(&path)
    );
    let text = OpenError::Refused {
        path: path.clone(),
        why: refusal(&path),
    }
    .to_string();
    assert!(
        text.contains("admissions were lost") && text.contains("admitted.sqlite-generation"),
        "{text}"
    );
}

/// Another store put in its place (another session's, new and empty): its identity is not the
/// one the generation record was written for.
#[test]
fn another_store_put_in_its_place_is_refused() {
    let dir = TempDir::new("other");
    let path = dir.file("admitted.sqlite");
    admit_all(&SqliteStore::create(&path).unwrap(), 0..5);
    let other = dir.file("other.sqlite");
    drop(SqliteStore::create(&other).unwrap());
    std::fs::copy(&other, &path).unwrap();
    assert!(
        matches!(refusal(&path), Refusal::OtherStore { .. }),
        "{:?}",
        refusal(&path)
    );
}

/// What the store cannot see, as its module says: the record removed too (a new one is made
/// from what the store holds), or the store and its record both replaced by a copy of the two.
/// Either way the older copy opens, and the pairs admitted since it can be admitted again.
#[test]
fn the_store_and_its_record_replaced_together_are_not_detected() {
    let dir = TempDir::new("both");
    let path = dir.file("admitted.sqlite");
    let record = beside(&path, "-generation");
    admit_all(&SqliteStore::create(&path).unwrap(), 0..5);
    let (old_store, old_record) = (
        std::fs::read(&path).unwrap(),
        std::fs::read(&record).unwrap(),
    );
    admit_all(&SqliteStore::open(&path).unwrap(), 5..8);

    std::fs::write(&path, &old_store).unwrap();
    std::fs::write(&record, &old_record).unwrap();
    assert_eq!(admitted_again(&path, 0..8), 3);

    std::fs::write(&path, &old_store).unwrap();
    std::fs::remove_file(&record).unwrap();
    assert_eq!(admitted_again(&path, 0..8), 3);
}

/// A record that is not one (damaged, or another file) is refused, not replaced.
#[test]
fn a_damaged_record_is_refused() {
    let dir = TempDir::new("record");
    let path = dir.file("admitted.sqlite");
    admit_all(&SqliteStore::create(&path).unwrap(), 0..2);
    let record = beside(&path, "-generation");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, text.replace("admissions 0", "admissions x")).unwrap();
    assert!(
        matches!(refusal(&path), Refusal::GenerationRecord { .. }),
        "{:?}",
        refusal(&path)
    );
}

/// A store opened through a symbolic link is the one file the link names: SQLite keeps its log
/// and index beside the real file, so those are what is watched, and the generation record is
/// kept there too. Removing the real log stops the receiver that opened it by the link, and a
/// receiver on the real path then does not admit those pairs again (before, the link's receiver
/// watched files beside the link, kept admitting, and the real path's receiver admitted the same
/// pairs a second time).
#[cfg(unix)]
#[test]
fn a_store_opened_through_a_link_is_watched_and_counted_at_its_real_file() {
    let dir = TempDir::new("linked");
    let real = dir.file("admitted.sqlite");
    drop(SqliteStore::create(&real).unwrap());
    let link = dir.file("by-link.sqlite");
    std::os::unix::fs::symlink(&real, &link).unwrap();

    let through_link = SqliteStore::open(&link).unwrap();
    admit_all(&through_link, 0..5);
    assert!(
        !beside(&link, "-generation").exists() && !beside(&link, "-wal").exists(),
        "nothing of the store is kept beside the link"
    );
    for suffix in ["-wal", "-shm"] {
        std::fs::remove_file(beside(&real, suffix)).unwrap();
    }
    let err = through_link
        .admit("s", "p", &event(5))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("admitted.sqlite-wal") && err.contains("removed while the store was open"),
        "{err}"
    );

    // A second receiver on the real path, while the first is still open: the pairs admitted
    // through the link were lost with the log (the record beside the real file counts them), so
    // the store is refused, or, if it opens, holds them all: never admits them again.
    match SqliteStore::open(&real) {
        Err(e) => assert!(matches!(e, OpenError::Refused { .. }), "{e}"),
        Ok(store) => {
            let again = (0..5)
                .filter(|i| store.admit("s", "p", &event(*i)).unwrap() == Admission::Admitted)
                .count();
            assert_eq!(again, 0, "pairs admitted through the link admitted again");
        }
    }
    // The same through the link once the first receiver is gone.
    drop(through_link);
    match SqliteStore::open(&link) {
        Ok(store) => {
            let again = (0..5)
                .filter(|i| store.admit("s", "p", &event(*i)).unwrap() == Admission::Admitted)
                .count();
            assert_eq!(again, 0);
        }
        Err(e) => assert!(matches!(e, OpenError::Refused { .. }), "{e}"),
    }
}

/// A FIFO planted where the generation record goes is refused at once, never waited on: opening
/// it blocking would hang the receiver until a writer came (exit 2, nothing admitted, instead).
#[cfg(unix)]
#[test]
fn a_fifo_at_the_generation_record_is_refused_without_blocking() {
    let dir = TempDir::new("fifo-record");
    let path = dir.file("admitted.sqlite");
    drop(SqliteStore::create(&path).unwrap());
    let record = beside(&path, "-generation");
    std::fs::remove_file(&record).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&record)
        .status()
        .unwrap();
    assert!(made.success());
    let (done, waited) = std::sync::mpsc::channel();
    let opening = path.clone();
    std::thread::spawn(move || {
        let _ = done.send(SqliteStore::open(&opening).map(|_| ()));
    });
    match waited.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(Err(OpenError::Refused { .. })) => {}
        Ok(other) => panic!("not refused: {other:?}"),
        Err(_) => panic!("the open waited on the FIFO"),
    }
}
