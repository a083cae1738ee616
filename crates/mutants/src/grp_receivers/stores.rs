//! The mutants' admission stores: the reference's store with part of its key thrown away, and
//! stores of their own that are not atomic or not durable (pairs as files in `STATE_DIR`, or a
//! set kept in memory and written back at exit).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agentconf_aer1::digest::sha256;
use agentconf_aer1::hex;
use agentconf_grp::store::{Admission, AdmissionStore, BoxedStore, StoreError};

/// The reference's SQLite store with part of the key thrown away.
pub struct Rekeyed {
    pub inner: BoxedStore,
    pub ignore_publisher: bool,
    pub ignore_session: bool,
}

impl Rekeyed {
    fn key<'a>(&self, session: &'a str, publisher: &'a str) -> (&'a str, &'a str) {
        (
            if self.ignore_session { "*" } else { session },
            if self.ignore_publisher {
                "*"
            } else {
                publisher
            },
        )
    }
}

impl AdmissionStore for Rekeyed {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let (s, p) = self.key(session, publisher);
        self.inner.admit(s, p, event)
    }
    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        let (s, p) = self.key(session, publisher);
        self.inner.handed_off(s, p, event)
    }
    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.inner.pending(self.key(session, "").0)
    }
    fn count(&self, session: &str) -> Result<u64, StoreError> {
        self.inner.count(self.key(session, "").0)
    }
    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        self.inner.close_session(self.key(session, "").0)
    }
    fn is_durable(&self) -> bool {
        true
    }
}

/// The window between look-up and insert of the non-atomic store, on a process's first
/// admission (when concurrent copies race) and afterwards.
const RACE_WINDOW_FIRST: Duration = Duration::from_millis(100);
const RACE_WINDOW_LATER: Duration = Duration::from_millis(1);

/// How a [`FileStore`] records a pair.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Recording {
    /// `create_new`: the look-up and the insert are one step.
    Atomic,
    /// A look-up, then a separate write after a wait ([`RACE_WINDOW_FIRST`], then
    /// [`RACE_WINDOW_LATER`]): the race is won by whoever is slower.
    Widened,
    /// A look-up, then a durable write as a careful receiver without a lock would do it (a
    /// temporary file, fsync, rename into place): the window is the time that write takes,
    /// with no delay added.
    Racy,
}

/// Admitted pairs as files in STATE_DIR, one per pair: durable and shared between processes.
pub struct FileStore {
    dir: PathBuf,
    recording: Recording,
    first: AtomicBool,
}

impl FileStore {
    pub fn open(state_dir: &Path, recording: Recording) -> Result<FileStore, String> {
        let dir = state_dir.join("mutant-pairs");
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(FileStore {
            dir,
            recording,
            first: AtomicBool::new(true),
        })
    }

    fn path(&self, session: &str, publisher: &str, event: &str) -> PathBuf {
        // Length-prefixed, so no two pairs share a name.
        let key = format!(
            "{}:{session}{}:{publisher}{event}",
            session.len(),
            publisher.len()
        );
        self.dir.join(hex::lower(&sha256(key.as_bytes())))
    }

    pub fn contains(
        &self,
        session: &str,
        publisher: &str,
        event: &str,
    ) -> Result<bool, StoreError> {
        self.path(session, publisher, event)
            .try_exists()
            .map_err(|e| StoreError(e.to_string()))
    }
}

impl AdmissionStore for FileStore {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let path = self.path(session, publisher, event);
        let err = |e: io::Error| StoreError(format!("{}: {e}", path.display()));
        if self.recording == Recording::Atomic {
            return match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(_) => Ok(Admission::Admitted),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(Admission::Duplicate),
                Err(e) => Err(err(e)),
            };
        }
        // The defect: a look-up, then an insert that does not check again.
        if path.try_exists().map_err(err)? {
            return Ok(Admission::Duplicate);
        }
        if self.recording == Recording::Widened {
            std::thread::sleep(if self.first.swap(false, Ordering::Relaxed) {
                RACE_WINDOW_FIRST
            } else {
                RACE_WINDOW_LATER
            });
        }
        if self.recording == Recording::Racy {
            let temp = path.with_extension(format!("tmp-{}", std::process::id()));
            let file = File::create(&temp).map_err(err)?;
            file.sync_all().map_err(err)?;
            fs::rename(&temp, &path).map_err(err)?;
            return Ok(Admission::Admitted);
        }
        fs::write(&path, b"").map_err(err)?;
        Ok(Admission::Admitted)
    }
    fn handed_off(&self, _: &str, _: &str, _: &str) -> Result<(), StoreError> {
        Ok(())
    }
    fn pending(&self, _: &str) -> Result<Vec<(String, String)>, StoreError> {
        Ok(Vec::new())
    }
    fn count(&self, _: &str) -> Result<u64, StoreError> {
        let entries = fs::read_dir(&self.dir).map_err(|e| StoreError(e.to_string()))?;
        Ok(entries.count() as u64)
    }
    fn close_session(&self, _: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
    fn is_durable(&self) -> bool {
        true
    }
}

/// The admitted set in memory, read from a file in STATE_DIR at start; `pending("")` lists every
/// pair (as one key per line) so that the exit can write them back.
pub struct FlushAtExit {
    pairs: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

impl FlushAtExit {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join("mutant-flushed-pairs")
    }

    pub fn load(state_dir: &Path) -> Result<FlushAtExit, String> {
        let text = match fs::read_to_string(Self::path(state_dir)) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e.to_string()),
        };
        Ok(FlushAtExit {
            pairs: std::sync::Mutex::new(text.lines().map(str::to_string).collect()),
        })
    }

    fn key(session: &str, publisher: &str, event: &str) -> String {
        // Length-prefixed, so no two pairs share a key; hex keeps it on one line.
        let raw = format!(
            "{}:{session}{}:{publisher}{event}",
            session.len(),
            publisher.len()
        );
        hex::lower(&sha256(raw.as_bytes()))
    }
}

impl AdmissionStore for FlushAtExit {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let mut pairs = self
            .pairs
            .lock()
            .map_err(|_| StoreError("poisoned".into()))?;
        Ok(if pairs.insert(Self::key(session, publisher, event)) {
            Admission::Admitted
        } else {
            Admission::Duplicate
        })
    }
    fn handed_off(&self, _: &str, _: &str, _: &str) -> Result<(), StoreError> {
        Ok(())
    }
    fn pending(&self, _: &str) -> Result<Vec<(String, String)>, StoreError> {
        let pairs = self
            .pairs
            .lock()
            .map_err(|_| StoreError("poisoned".into()))?;
        Ok(pairs.iter().map(|k| (k.clone(), String::new())).collect())
    }
    fn count(&self, _: &str) -> Result<u64, StoreError> {
        Ok(self.pending("")?.len() as u64)
    }
    fn close_session(&self, _: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
    fn is_durable(&self) -> bool {
        true
    }
}
