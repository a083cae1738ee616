//! The in-memory store (`memory`): one process's admitted set.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{Admission, AdmissionStore, StoreError};

type Key = (String, String, String);

/// An in-memory store: correct within one process, gone on restart (not `durable`).
#[derive(Debug, Default)]
pub struct MemoryStore {
    /// Pair -> handed off.
    pairs: Mutex<HashMap<Key, bool>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<Key, bool>>, StoreError> {
        self.pairs
            .lock()
            .map_err(|_| StoreError("in-memory store poisoned by a panic".into()))
    }
}

fn key(session: &str, publisher: &str, event: &str) -> Key {
    (
        session.to_string(),
        publisher.to_string(),
        event.to_string(),
    )
}

impl AdmissionStore for MemoryStore {
    fn admit(&self, session: &str, publisher: &str, event: &str) -> Result<Admission, StoreError> {
        let mut pairs = self.lock()?;
        let k = key(session, publisher, event);
        if pairs.contains_key(&k) {
            return Ok(Admission::Duplicate);
        }
        pairs.insert(k, false);
        Ok(Admission::Admitted)
    }

    fn handed_off(&self, session: &str, publisher: &str, event: &str) -> Result<(), StoreError> {
        if let Some(done) = self.lock()?.get_mut(&key(session, publisher, event)) {
            *done = true;
        }
        Ok(())
    }

    fn pending(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut out: Vec<(String, String)> = self
            .lock()?
            .iter()
            .filter(|((s, _, _), done)| s == session && !**done)
            .map(|((_, p, e), _)| (p.clone(), e.clone()))
            .collect();
        out.sort();
        Ok(out)
    }

    fn count(&self, session: &str) -> Result<u64, StoreError> {
        Ok(self.lock()?.keys().filter(|(s, _, _)| s == session).count() as u64)
    }

    fn close_session(&self, session: &str) -> Result<u64, StoreError> {
        let mut pairs = self.lock()?;
        let before = pairs.len();
        pairs.retain(|(s, _, _), _| s != session);
        Ok((before - pairs.len()) as u64)
    }

    fn is_durable(&self) -> bool {
        false
    }
}
