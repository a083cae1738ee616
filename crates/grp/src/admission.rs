//! The receiver's admission stage: every pre-admission check in the order the drafts give, the
//! revision-01 duplicate check, and the ALE-064 decision for each delivered line.
//!
//! Order (GRP.md §3 and this project's interpretation 1): event shape → publisher registration
//! and authority → signature → session nonce → (revision 01) duplicate pair → atomic admission →
//! hand-off. A forged or wrong-session copy of an admitted event therefore gets its signature or
//! nonce reason, never `duplicate_event_id`; and only admitted pairs are recorded.
//!
//! After the event is read, each check and the admission is a [`Step`]; a [`Receiver`] walks a
//! [`Pipeline`] of them, by default [`Pipeline::reference`]. A receiver with a step left out or
//! two swapped is another list, not another copy of the checks.

use std::fmt;

use agentconf_rules::{Rule, RuleError};
use serde::Serialize;

use crate::event::{parse_event, ChangeEvent, EventError, Identity, PublisherType};
use crate::jws::{verify_event_signature_decoded, DecodedKeys, SignatureError};
use crate::session::{instant, Publisher, SessionContext};
use crate::store::{Admission, AdmissionStore, StoreError};

/// The largest event (one line) a receiver reads; larger ones are rejected unread.
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// The ALE code of every rejection in scope.
pub const ALE_064: &str = "ALE-064";

/// Which draft revision the receiver implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Revision {
    /// Revision 00: no duplicate check.
    #[serde(rename = "00")]
    R00,
    /// Revision 01: the `(publisher_id, event_id)` duplicate check.
    #[serde(rename = "01")]
    R01,
}

impl Revision {
    /// The receiver behaviour a draft revision asks for, as the revisions table
    /// (`spec-notes/revisions.toml`) names it: `None` for a revision the table does not know, or
    /// one whose construction this code does not implement (a new construction is a code change).
    pub fn parse(revision: &str) -> Option<Revision> {
        let table = agentconf_rules::Revisions::embedded();
        Revision::for_construction(
            table.construction(agentconf_rules::draft_revisions::GRP, revision)?,
        )
    }

    /// The code for a construction named in the revisions table.
    pub fn for_construction(construction: &str) -> Option<Revision> {
        match construction {
            "no-dedup" => Some(Revision::R00),
            "dedup" => Some(Revision::R01),
            _ => None,
        }
    }
}

/// Why an event was rejected. Each variant maps to one rule and one `rejection_reason`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RejectError {
    Event(EventError),
    UnknownPublisher {
        publisher_id: String,
    },
    TypeMismatch {
        declared: PublisherType,
        registered: PublisherType,
    },
    Revoked,
    NotYetValid {
        not_before: String,
        clock: String,
    },
    Expired {
        not_after: String,
        clock: String,
    },
    EventTypeNotPermitted {
        change_class: String,
    },
    Signature {
        publisher_type: PublisherType,
        error: SignatureError,
    },
    NonceMismatch,
    Duplicate,
}

impl RuleError for RejectError {
    /// The catalogue rule the rejection is graded on.
    fn rule(&self) -> Rule {
        match self {
            RejectError::Event(e) => e.rule(),
            RejectError::UnknownPublisher { .. } => Rule::GrpPubKnown,
            RejectError::TypeMismatch { .. } => Rule::GrpPubType,
            RejectError::Revoked => Rule::GrpPubRevoked,
            RejectError::NotYetValid { .. } | RejectError::Expired { .. } => Rule::GrpPubWindow,
            RejectError::EventTypeNotPermitted { .. } => Rule::GrpPubEventType,
            RejectError::Signature { error, .. } => error.rule(),
            RejectError::NonceMismatch => Rule::GrpNonce,
            RejectError::Duplicate => Rule::GrpDupEvent,
        }
    }

    fn member(&self) -> Option<String> {
        match self {
            RejectError::Event(e) => e.member(),
            RejectError::Signature { error, .. } => error.member(),
            RejectError::NonceMismatch => Some("session_nonce".into()),
            RejectError::UnknownPublisher { .. }
            | RejectError::TypeMismatch { .. }
            | RejectError::Revoked
            | RejectError::NotYetValid { .. }
            | RejectError::Expired { .. }
            | RejectError::EventTypeNotPermitted { .. }
            | RejectError::Duplicate => None,
        }
    }
}

impl RejectError {
    /// The catalogue rule the rejection is graded on: [`RuleError::rule`], callable without the
    /// trait in scope.
    pub fn rule(&self) -> Rule {
        <Self as RuleError>::rule(self)
    }

    /// The ALE-064 `rejection_reason`. The draft names five; the others are this project's
    /// names for cases the draft leaves unnamed (vectors accept any reason there unless strict
    /// grading is asked for).
    pub fn reason(&self) -> &'static str {
        match self {
            RejectError::Event(_) => "malformed_event",
            RejectError::UnknownPublisher { .. } => "unknown_publisher",
            RejectError::TypeMismatch { .. } => "publisher_type_mismatch",
            RejectError::Revoked => "kia_signature_invalid",
            RejectError::NotYetValid { .. } => "publisher_registration_not_yet_valid",
            RejectError::Expired { .. } => "publisher_registration_expired",
            RejectError::EventTypeNotPermitted { .. } => "event_type_not_permitted",
            RejectError::Signature { publisher_type, .. } => match publisher_type {
                PublisherType::Principal => "kia_signature_invalid",
                PublisherType::Registered => "epr_signature_invalid",
                PublisherType::WellKnown => "well_known_signature_invalid",
            },
            RejectError::NonceMismatch => "session_nonce_mismatch",
            RejectError::Duplicate => "duplicate_event_id",
        }
    }

    /// Whether the draft itself names this reason (else it is this project's name).
    pub fn reason_is_drafts(&self) -> bool {
        DRAFT_REASONS.contains(&self.reason())
    }
}

/// The rejection reasons the drafts name.
pub const DRAFT_REASONS: [&str; 5] = [
    "kia_signature_invalid",
    "publisher_registration_expired",
    "well_known_signature_invalid",
    "session_nonce_mismatch",
    "duplicate_event_id",
];

impl fmt::Display for RejectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectError::Event(e) => write!(f, "malformed change event: {e}"),
            RejectError::UnknownPublisher { publisher_id } => write!(
                f,
                "publisher {publisher_id:?} is not registered for this session"
            ),
            RejectError::TypeMismatch {
                declared,
                registered,
            } => write!(
                f,
                "the event declares {} but the publisher is registered as {}",
                declared.as_str(),
                registered.as_str()
            ),
            RejectError::Revoked => f.write_str("the P-TYPE-1 publisher's credential is revoked"),
            RejectError::NotYetValid { not_before, clock } => write!(
                f,
                "the registration is valid from {not_before}; the session clock is {clock}"
            ),
            RejectError::Expired { not_after, clock } => write!(
                f,
                "the registration ended at {not_after}; the session clock is {clock}"
            ),
            RejectError::EventTypeNotPermitted { change_class } => write!(
                f,
                "the publisher is not permitted to send {change_class} events"
            ),
            RejectError::Signature { error, .. } => write!(f, "publisher_signature: {error}"),
            RejectError::NonceMismatch => {
                f.write_str("session_nonce is not the nonce this session issued")
            }
            RejectError::Duplicate => f.write_str(
                "this (publisher_id, event_id) pair was already admitted in this session; \
                 the copy is discarded without any further action",
            ),
        }
    }
}

/// Admitted, rejected, or not decided now (`deferred`: the admission store could not be
/// consulted, a shared store's link refused, lost or timed out; never an admission, nothing
/// recorded or handed on, so the line may be delivered again once the store is reachable). The
/// contract's one type, which the harness reads.
pub use agentconf_rules::DecisionOutcome;

/// One decision line: `{"event_id", "publisher_id", "outcome", "ale", "rejection_reason", …}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub event_id: Option<String>,
    pub publisher_id: Option<String>,
    pub outcome: DecisionOutcome,
    /// `ALE-064` for rejections, null for admissions.
    pub ale: Option<&'static str>,
    pub rejection_reason: Option<&'static str>,
    /// The catalogue rule a rejection is graded on.
    pub rule: Option<Rule>,
    /// The member concerned, where there is one.
    pub member: Option<String>,
    pub message: Option<String>,
}

impl Decision {
    /// The rejection of a line whose pair, as far as it could be read, is `identity`.
    pub fn rejected(identity: &Identity, error: &RejectError) -> Decision {
        Decision {
            event_id: identity.event_id.clone(),
            publisher_id: identity.publisher_id.clone(),
            outcome: DecisionOutcome::Rejected,
            ale: Some(ALE_064),
            rejection_reason: Some(error.reason()),
            rule: Some(error.rule()),
            member: error.member(),
            message: Some(error.to_string()),
        }
    }
}

impl Decision {
    /// The decision for an event (its pair `identity`) that passed every check but whose
    /// admission could not be decided because the store was unreachable (`error`).
    pub fn deferred(identity: &Identity, error: &StoreError) -> Decision {
        Decision {
            event_id: identity.event_id.clone(),
            publisher_id: identity.publisher_id.clone(),
            outcome: DecisionOutcome::Deferred,
            ale: None,
            rejection_reason: None,
            rule: None,
            member: None,
            message: Some(format!(
                "not decided: {error}; nothing was admitted, deliver the event again"
            )),
        }
    }
}

/// One step of the admission stage, after the event line is read as a change event. The
/// reference walks them in [`Pipeline::reference`]'s order; another list (a step left out, two
/// swapped) is another receiver, built without copying any check (the kill matrix's mutants are).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The publisher is registered for the session (GRP-PUB-KNOWN) with the publisher type the
    /// event declares (GRP-PUB-TYPE).
    Publisher,
    /// A P-TYPE-1 publisher's credential is not revoked.
    Revocation,
    /// A P-TYPE-2 or P-TYPE-3 registration is valid at the session clock (`not_before`,
    /// `not_after`).
    Window,
    /// A P-TYPE-2 or P-TYPE-3 publisher is permitted the event's `change_class`.
    EventTypes,
    /// `publisher_signature` verifies under the publisher's registered keys ([`crate::jws`]).
    Signature,
    /// `session_nonce` is the nonce this session issued.
    Nonce,
    /// Revision 01: the duplicate check and the admission in one atomic insert of the pair into
    /// the store, committed before the hand-off; a pair already there is a duplicate.
    Admit,
}

/// The steps a receiver walks, in order. The step that reads the publisher's registration first
/// finds it: an unregistered publisher is rejected there, whichever step that is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    steps: Vec<Step>,
}

impl Pipeline {
    /// The reference's order (GRP.md section 3 and this project's interpretation 1):
    /// publisher authority (registration and type, revocation, validity window — before the
    /// signature, as P-TYPE-2 asks — and permitted event types), signature, nonce, and in
    /// revision 01 the duplicate check and admission last, so that a forged or wrong-session
    /// copy of an admitted event gets its own reason and only admitted pairs are recorded.
    pub fn reference(revision: Revision) -> Pipeline {
        let mut steps = vec![
            Step::Publisher,
            Step::Revocation,
            Step::Window,
            Step::EventTypes,
            Step::Signature,
            Step::Nonce,
        ];
        if revision == Revision::R01 {
            steps.push(Step::Admit);
        }
        Pipeline { steps }
    }

    /// Exactly these steps, in this order.
    pub fn of(steps: Vec<Step>) -> Pipeline {
        Pipeline { steps }
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The same steps without `step`.
    pub fn without(mut self, step: Step) -> Pipeline {
        self.steps.retain(|s| *s != step);
        self
    }

    /// The same steps with `a` and `b` in each other's place (unchanged unless both are there).
    pub fn swapped(mut self, a: Step, b: Step) -> Pipeline {
        let at = |step| self.steps.iter().position(|s| *s == step);
        if let (Some(i), Some(j)) = (at(a), at(b)) {
            self.steps.swap(i, j);
        }
        self
    }
}

/// What a step that did not reject did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Passed {
    Checked,
    /// The pair is now in the store: its hand-off is to be marked done.
    Recorded,
}

/// The publisher's registration and decoded keys, or why there are none.
type Registration<'a> = Result<(&'a Publisher, &'a DecodedKeys), RejectError>;

/// A receiver for one session.
pub struct Receiver<S: AdmissionStore> {
    session: SessionContext,
    /// Each publisher's keys decoded once, in the order of `session.publishers`: the session's
    /// keys do not change while it runs.
    decoded_keys: Vec<DecodedKeys>,
    pipeline: Pipeline,
    store: S,
}

impl<S: AdmissionStore> Receiver<S> {
    /// The reference receiver of `revision`: [`Pipeline::reference`].
    pub fn new(session: SessionContext, revision: Revision, store: S) -> Self {
        Receiver::with_pipeline(session, Pipeline::reference(revision), store)
    }

    /// A receiver that walks `pipeline`'s steps.
    pub fn with_pipeline(session: SessionContext, pipeline: Pipeline, store: S) -> Self {
        let decoded_keys = session
            .publishers
            .iter()
            .map(|p| DecodedKeys::new(&p.keys))
            .collect();
        Receiver {
            session,
            decoded_keys,
            pipeline,
            store,
        }
    }

    pub fn session(&self) -> &SessionContext {
        &self.session
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Judges one delivered line. A store that cannot be consulted now gives the
    /// [`DecisionOutcome::Deferred`] decision; `Err` only when the store fails otherwise: then nothing
    /// was admitted and nothing may be handed on.
    pub fn deliver(&self, line: &[u8]) -> Result<Decision, StoreError> {
        self.deliver_then(line, |_| {})
    }

    /// As [`Self::deliver`], calling `hand_off` with the admitted decision after the admission
    /// committed and before it is marked complete (the hook a crash test interrupts).
    pub fn deliver_then(
        &self,
        line: &[u8],
        hand_off: impl FnOnce(&Decision),
    ) -> Result<Decision, StoreError> {
        if line.len() > MAX_EVENT_BYTES {
            return self.deliver_oversized(MAX_EVENT_BYTES);
        }
        let (identity, parsed) = parse_event(line);
        let reject = |error: RejectError| Decision::rejected(&identity, &error);
        let event = match parsed {
            Ok(e) => e,
            Err(e) => return Ok(reject(RejectError::Event(e))),
        };
        let registration = self.registration(&event);
        let mut recorded = false;
        for &step in self.pipeline.steps() {
            match self.walk(step, &event, &registration) {
                Ok(Ok(Passed::Checked)) => {}
                Ok(Ok(Passed::Recorded)) => recorded = true,
                Ok(Err(e)) => return Ok(reject(e)),
                Err(e) if e.is_unreachable() => return Ok(Decision::deferred(&identity, &e)),
                Err(e) => return Err(e),
            }
        }
        let decision = admitted_decision(&event);
        hand_off(&decision);
        if recorded {
            let marked = self.store.handed_off(
                &self.session.session_id,
                &event.publisher_id,
                &event.event_id,
            );
            match marked {
                // The admission committed and was handed on; an unmarked pair is what a crash
                // between the two leaves too: pending, resumed by recovery, never admitted twice.
                Err(e) if e.is_unreachable() => {}
                marked => marked?,
            }
        }
        Ok(decision)
    }

    /// Judges a batch of lines that were all waiting together, with one commit for the batch's
    /// admissions ([`AdmissionStore::admit_batch`]), and gives `answer` every line's decision in
    /// order, only after that commit: the same decisions, in the same order, as
    /// [`Self::deliver_then`] one line at a time (a pair twice in the batch is a duplicate the
    /// second time). The hand-offs are then marked together, after every answer was given, as
    /// one line's mark follows its answer. A pair whose admission the store could not decide
    /// gets [`Decision::deferred`]; on any other store failure the lines before the first line
    /// it concerns are answered and `Err` is returned: nothing of the batch after it is answered
    /// (a transactional store admitted none of it).
    pub fn deliver_batch(
        &self,
        lines: &[Delivery<'_>],
        mut answer: impl FnMut(&Decision),
    ) -> Result<(), StoreError> {
        let admits = self
            .pipeline
            .steps
            .iter()
            .filter(|s| **s == Step::Admit)
            .count();
        if admits > 1 {
            // A receiver that admits twice per line is a mutant's: one line at a time.
            for line in lines {
                let decision = match line {
                    Delivery::Line(bytes) => self.deliver_then(bytes, |_| {})?,
                    Delivery::Oversized => self.deliver_oversized(MAX_EVENT_BYTES)?,
                };
                answer(&decision);
            }
            return Ok(());
        }
        // Every step before the admission, for every line; the store is not touched yet.
        let judged: Vec<Judged> = lines
            .iter()
            .map(|line| self.before_admission(line))
            .collect();
        let waiting: Vec<(&str, &str)> = judged
            .iter()
            .filter_map(|j| match j {
                Judged::ToAdmit { event, .. } => {
                    Some((event.publisher_id.as_str(), event.event_id.as_str()))
                }
                Judged::Decided(_) => None,
            })
            .collect();
        let mut admissions = if waiting.is_empty() {
            Vec::new()
        } else {
            self.store.admit_batch(&self.session.session_id, &waiting)
        }
        .into_iter();
        let mut marks: Vec<(&str, &str)> = Vec::new();
        let mut decisions = Vec::with_capacity(judged.len());
        for j in &judged {
            let decision = match j {
                Judged::Decided(d) => d.clone(),
                Judged::ToAdmit {
                    identity,
                    event,
                    after,
                } => {
                    let admitted = admissions
                        .next()
                        .unwrap_or_else(|| Err(StoreError::new("the store left a pair undecided")));
                    match admitted {
                        Ok(Admission::Duplicate) => {
                            Decision::rejected(identity, &RejectError::Duplicate)
                        }
                        Ok(Admission::Admitted) => {
                            let registration = self.registration(event);
                            match self.walk_from(*after, event, &registration) {
                                // Recorded, and rejected by a step after the admission (a
                                // reordered pipeline's defect): as one line at a time, unmarked.
                                Err(e) => Decision::rejected(identity, &e),
                                Ok(()) => {
                                    marks.push((
                                        event.publisher_id.as_str(),
                                        event.event_id.as_str(),
                                    ));
                                    admitted_decision(event)
                                }
                            }
                        }
                        Err(e) if e.is_unreachable() => Decision::deferred(identity, &e),
                        Err(e) => {
                            decisions.iter().for_each(&mut answer);
                            return Err(e);
                        }
                    }
                }
            };
            decisions.push(decision);
        }
        // The batch's admissions committed: now, and only now, the answers go out.
        decisions.iter().for_each(&mut answer);
        if !marks.is_empty() {
            match self
                .store
                .handed_off_batch(&self.session.session_id, &marks)
            {
                // As for one line: unmarked pairs are pending, resumed by recovery.
                Err(e) if e.is_unreachable() => {}
                marked => marked?,
            }
        }
        Ok(())
    }

    /// One line up to its admission: decided (rejected, or admitted by a pipeline without the
    /// admission step), or waiting for the store, with the index of the step after
    /// [`Step::Admit`].
    fn before_admission(&self, line: &Delivery<'_>) -> Judged {
        let bytes = match line {
            Delivery::Line(bytes) if bytes.len() <= MAX_EVENT_BYTES => bytes,
            _ => {
                let error =
                    RejectError::Event(EventError::Json(agentconf_json::JsonError::TooLarge {
                        limit: MAX_EVENT_BYTES as u64,
                    }));
                return Judged::Decided(Decision::rejected(&Identity::default(), &error));
            }
        };
        let (identity, parsed) = parse_event(bytes);
        let event = match parsed {
            Ok(e) => e,
            Err(e) => {
                return Judged::Decided(Decision::rejected(&identity, &RejectError::Event(e)))
            }
        };
        let registration = self.registration(&event);
        for (at, &step) in self.pipeline.steps().iter().enumerate() {
            if step == Step::Admit {
                return Judged::ToAdmit {
                    identity,
                    event: Box::new(event),
                    after: at + 1,
                };
            }
            // Only the admission touches the store; every other step is a pure check.
            if let Ok(Err(e)) = self.walk(step, &event, &registration) {
                return Judged::Decided(Decision::rejected(&identity, &e));
            }
        }
        Judged::Decided(admitted_decision(&event))
    }

    /// The steps from index `from` on, none of them the admission.
    fn walk_from(
        &self,
        from: usize,
        event: &ChangeEvent,
        registration: &Registration<'_>,
    ) -> Result<(), RejectError> {
        for &step in self.pipeline.steps().iter().skip(from) {
            if let Ok(Err(e)) = self.walk(step, event, registration) {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The decision for a line longer than the reader's limit (never parsed, never admitted).
    pub fn deliver_oversized(&self, limit: usize) -> Result<Decision, StoreError> {
        let error = RejectError::Event(EventError::Json(agentconf_json::JsonError::TooLarge {
            limit: limit as u64,
        }));
        Ok(Decision::rejected(&Identity::default(), &error))
    }

    /// The event's publisher as the session registered it, with its decoded keys.
    fn registration(&self, event: &ChangeEvent) -> Registration<'_> {
        self.session
            .publishers
            .iter()
            .zip(&self.decoded_keys)
            .find(|(p, _)| p.publisher_id == event.publisher_id)
            .ok_or_else(|| RejectError::UnknownPublisher {
                publisher_id: agentconf_json::text::clip(&event.publisher_id, 80),
            })
    }

    /// One step: `Err` when the store fails, else whether the event passed it.
    fn walk(
        &self,
        step: Step,
        event: &ChangeEvent,
        registration: &Registration<'_>,
    ) -> Result<Result<Passed, RejectError>, StoreError> {
        let publisher = || registration.clone().map(|(p, _)| p);
        let checked = match step {
            Step::Publisher => publisher().and_then(|p| check_type(p, event)),
            Step::Revocation => publisher().and_then(check_revocation),
            Step::Window => publisher().and_then(|p| check_window(p, &self.session.clock)),
            Step::EventTypes => publisher().and_then(|p| check_event_types(p, event)),
            Step::Signature => registration
                .clone()
                .and_then(|(p, keys)| check_signature(p, keys, event)),
            Step::Nonce => check_nonce(&self.session, event),
            Step::Admit => return self.record(event),
        };
        Ok(checked.map(|()| Passed::Checked))
    }

    /// The duplicate check and the admission: the insert is the check, atomic under the unique
    /// key and committed before the hand-off.
    fn record(&self, event: &ChangeEvent) -> Result<Result<Passed, RejectError>, StoreError> {
        let admission = self.store.admit(
            &self.session.session_id,
            &event.publisher_id,
            &event.event_id,
        )?;
        Ok(match admission {
            Admission::Admitted => Ok(Passed::Recorded),
            Admission::Duplicate => Err(RejectError::Duplicate),
        })
    }
}

/// One line of a batch ([`Receiver::deliver_batch`]): an event line's bytes, or a line longer
/// than the reader's limit, skipped unread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery<'a> {
    Line(&'a [u8]),
    Oversized,
}

/// A batch's line before the store is consulted.
enum Judged {
    Decided(Decision),
    ToAdmit {
        identity: Identity,
        event: Box<ChangeEvent>,
        /// The index of the first step after [`Step::Admit`].
        after: usize,
    },
}

/// The admitted decision for `event`.
fn admitted_decision(event: &ChangeEvent) -> Decision {
    Decision {
        event_id: Some(event.event_id.clone()),
        publisher_id: Some(event.publisher_id.clone()),
        outcome: DecisionOutcome::Admitted,
        ale: None,
        rejection_reason: None,
        rule: None,
        member: None,
        message: None,
    }
}

/// [`Step::Publisher`]: registered under the type the event declares.
fn check_type(publisher: &Publisher, event: &ChangeEvent) -> Result<(), RejectError> {
    if publisher.publisher_type != event.publisher_type {
        return Err(RejectError::TypeMismatch {
            declared: event.publisher_type,
            registered: publisher.publisher_type,
        });
    }
    Ok(())
}

/// [`Step::Revocation`]: applies to P-TYPE-1 only.
fn check_revocation(publisher: &Publisher) -> Result<(), RejectError> {
    if publisher.publisher_type == PublisherType::Principal && publisher.revoked {
        return Err(RejectError::Revoked);
    }
    Ok(())
}

/// [`Step::Window`]: applies to P-TYPE-2 and P-TYPE-3.
fn check_window(publisher: &Publisher, clock: &str) -> Result<(), RejectError> {
    if publisher.publisher_type == PublisherType::Principal {
        return Ok(());
    }
    let now = instant(clock);
    if let Some(nb) = &publisher.not_before {
        if instant(nb) > now {
            return Err(RejectError::NotYetValid {
                not_before: nb.clone(),
                clock: clock.to_string(),
            });
        }
    }
    if let Some(na) = &publisher.not_after {
        if instant(na) < now {
            return Err(RejectError::Expired {
                not_after: na.clone(),
                clock: clock.to_string(),
            });
        }
    }
    Ok(())
}

/// [`Step::EventTypes`]: applies to P-TYPE-2 and P-TYPE-3 that list their permitted types.
fn check_event_types(publisher: &Publisher, event: &ChangeEvent) -> Result<(), RejectError> {
    match &publisher.event_types {
        Some(types)
            if publisher.publisher_type != PublisherType::Principal
                && !types.contains(&event.change_class) =>
        {
            Err(RejectError::EventTypeNotPermitted {
                change_class: event.change_class.clone(),
            })
        }
        _ => Ok(()),
    }
}

/// [`Step::Signature`].
fn check_signature(
    publisher: &Publisher,
    keys: &DecodedKeys,
    event: &ChangeEvent,
) -> Result<(), RejectError> {
    verify_event_signature_decoded(&event.object, keys).map_err(|error| RejectError::Signature {
        publisher_type: publisher.publisher_type,
        error,
    })
}

/// [`Step::Nonce`].
fn check_nonce(session: &SessionContext, event: &ChangeEvent) -> Result<(), RejectError> {
    if event.session_nonce != session.session_nonce {
        return Err(RejectError::NonceMismatch);
    }
    Ok(())
}
