//! The change event (draft revision 00 section 7): members, enumerations, timestamp.

use std::fmt;

use agentconf_aer1::formats::{check_rfc3339, TimeError};
use agentconf_json::{self as json, JsonError, Node, Object};
use agentconf_rules::{Rule, RuleError};

/// The three publisher types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PublisherType {
    /// A SOOS principal signing with its KIA key.
    #[serde(rename = "P-TYPE-1")]
    Principal,
    /// A registered external publisher (an EPR entry).
    #[serde(rename = "P-TYPE-2")]
    Registered,
    /// A publisher known by its well-known URI document.
    #[serde(rename = "P-TYPE-3")]
    WellKnown,
}

impl PublisherType {
    pub fn parse(s: &str) -> Option<PublisherType> {
        match s {
            "P-TYPE-1" => Some(PublisherType::Principal),
            "P-TYPE-2" => Some(PublisherType::Registered),
            "P-TYPE-3" => Some(PublisherType::WellKnown),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PublisherType::Principal => "P-TYPE-1",
            PublisherType::Registered => "P-TYPE-2",
            PublisherType::WellKnown => "P-TYPE-3",
        }
    }
}

/// Change classes of revisions 00 and 01 (`CONTENT_CORRECTION` comes in a later revision).
pub const CHANGE_CLASSES: [&str; 4] = [
    "RESOURCE_STATE",
    "DEPENDENCY_UPDATE",
    "POLICY_UPDATE",
    "MANDATE_CONDITION",
];
pub const SEVERITIES: [&str; 4] = ["LOW", "MEDIUM", "HIGH", "CRITICAL"];

/// The required string members, in the draft's order.
pub const REQUIRED: [&str; 9] = [
    "event_id",
    "publisher_id",
    "publisher_type",
    "publisher_signature",
    "session_nonce",
    "event_timestamp",
    "change_class",
    "affected_component",
    "change_severity",
];

/// Why a line is not a well-formed change event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventError {
    Json(JsonError),
    NotObject {
        found: &'static str,
    },
    MissingMember {
        member: &'static str,
    },
    NotString {
        member: &'static str,
        found: &'static str,
    },
    EmptyMember {
        member: &'static str,
    },
    PublisherType {
        value: String,
    },
    ChangeClass {
        value: String,
    },
    Severity {
        value: String,
    },
    Timestamp {
        error: TimeError,
    },
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Json(e) => e.fmt(f),
            EventError::NotObject { found } => write!(f, "a change event is a JSON object, found {found}"),
            EventError::MissingMember { member } => write!(f, "the event has no {member} member"),
            EventError::NotString { member, found } => write!(f, "{member} must be a string, found {found}"),
            EventError::EmptyMember { member } => write!(f, "{member} must not be empty"),
            EventError::PublisherType { value } => {
                write!(f, "publisher_type {value:?} is not P-TYPE-1, P-TYPE-2 or P-TYPE-3")
            }
            EventError::ChangeClass { value } => write!(
                f,
                "change_class {value:?} is not RESOURCE_STATE, DEPENDENCY_UPDATE, POLICY_UPDATE or MANDATE_CONDITION"
            ),
            EventError::Severity { value } => {
                write!(f, "change_severity {value:?} is not LOW, MEDIUM, HIGH or CRITICAL")
            }
            EventError::Timestamp { error } => write!(f, "event_timestamp: {error}"),
        }
    }
}

impl RuleError for EventError {
    fn rule(&self) -> Rule {
        match self {
            EventError::Json(j) => match j {
                JsonError::DuplicateMember { .. } => Rule::GrpJsonDuplicate,
                JsonError::LoneSurrogate { .. } => Rule::GrpJsonSurrogate,
                JsonError::TooDeep
                | JsonError::NumberOutOfRange { .. }
                | JsonError::TooLarge { .. }
                | JsonError::TooManyValues { .. }
                | JsonError::StringTooLong { .. } => Rule::GrpJsonLimits,
                JsonError::Empty
                | JsonError::ByteOrderMark
                | JsonError::Syntax { .. }
                | JsonError::NotUtf8 { .. } => Rule::GrpJsonSyntax,
            },
            EventError::NotObject { .. }
            | EventError::MissingMember { .. }
            | EventError::NotString { .. }
            | EventError::EmptyMember { .. } => Rule::GrpEvMembers,
            EventError::PublisherType { .. } => Rule::GrpEvPublisherType,
            EventError::ChangeClass { .. } => Rule::GrpEvChangeClass,
            EventError::Severity { .. } => Rule::GrpEvSeverity,
            EventError::Timestamp { .. } => Rule::GrpEvTimestamp,
        }
    }

    fn member(&self) -> Option<String> {
        EventError::member(self)
    }
}

impl EventError {
    /// The member concerned, where there is one.
    pub fn member(&self) -> Option<String> {
        match self {
            EventError::Json(e) => e.member(),
            EventError::NotObject { .. } => None,
            EventError::MissingMember { member }
            | EventError::NotString { member, .. }
            | EventError::EmptyMember { member } => Some(member.to_string()),
            EventError::PublisherType { .. } => Some("publisher_type".into()),
            EventError::ChangeClass { .. } => Some("change_class".into()),
            EventError::Severity { .. } => Some("change_severity".into()),
            EventError::Timestamp { .. } => Some("event_timestamp".into()),
        }
    }
}

/// A well-formed change event.
#[derive(Clone, Debug)]
pub struct ChangeEvent {
    pub event_id: String,
    pub publisher_id: String,
    pub publisher_type: PublisherType,
    pub session_nonce: String,
    pub change_class: String,
    /// The event object as received, for the signature check (duplicates: the last value).
    pub object: serde_json::Map<String, serde_json::Value>,
}

/// What could be read of a line even when it is not a well-formed event: the decision still
/// names the pair where the line carries it.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    pub event_id: Option<String>,
    pub publisher_id: Option<String>,
}

/// Reads and checks one event line. Duplicate member names are an error here (one ambiguous
/// member in a signed message is enough to make two receivers disagree about what was signed).
pub fn parse_event(line: &[u8]) -> (Identity, Result<ChangeEvent, EventError>) {
    let text = match json::as_text(line) {
        Ok(t) => t,
        Err(e) => return (Identity::default(), Err(EventError::Json(e))),
    };
    let parsed = match json::parse(text, &[]) {
        Ok(p) => p,
        Err(e) => return (Identity::default(), Err(EventError::Json(e))),
    };
    let Node::Object(obj) = &parsed.root else {
        let found = parsed.root.kind();
        return (Identity::default(), Err(EventError::NotObject { found }));
    };
    let identity = Identity {
        event_id: obj
            .get("event_id")
            .and_then(Node::as_str)
            .map(str::to_string),
        publisher_id: obj
            .get("publisher_id")
            .and_then(Node::as_str)
            .map(str::to_string),
    };
    if let Some(d) = parsed.duplicates.into_iter().next() {
        return (identity, Err(EventError::Json(d)));
    }
    (identity, check_members(obj, text))
}

fn check_members(obj: &Object<'_>, text: &str) -> Result<ChangeEvent, EventError> {
    let mut strings = Vec::with_capacity(REQUIRED.len());
    for member in REQUIRED {
        match obj.get(member) {
            None => return Err(EventError::MissingMember { member }),
            Some(Node::String(s)) if s.is_empty() => {
                return Err(EventError::EmptyMember { member })
            }
            Some(Node::String(s)) => strings.push(s.to_string()),
            Some(other) => {
                return Err(EventError::NotString {
                    member,
                    found: other.kind(),
                })
            }
        }
    }
    if let Some(hint) = obj.get("remediation_hint") {
        if hint.as_str().is_none() {
            return Err(EventError::NotString {
                member: "remediation_hint",
                found: hint.kind(),
            });
        }
    }
    let [event_id, publisher_id, publisher_type, _signature, session_nonce, timestamp, change_class, _component, severity] =
        <[String; 9]>::try_from(strings)
            .map_err(|_| EventError::NotObject { found: "an object" })?;
    let publisher_type =
        PublisherType::parse(&publisher_type).ok_or(EventError::PublisherType {
            value: clip(&publisher_type),
        })?;
    if !CHANGE_CLASSES.contains(&change_class.as_str()) {
        return Err(EventError::ChangeClass {
            value: clip(&change_class),
        });
    }
    if !SEVERITIES.contains(&severity.as_str()) {
        return Err(EventError::Severity {
            value: clip(&severity),
        });
    }
    check_rfc3339(&timestamp).map_err(|error| EventError::Timestamp { error })?;
    // The strict reading above succeeded, so serde_json reads the same text; `Map` keeps the last
    // of duplicated names, but duplicates were rejected already.
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text).map_err(|e| {
            EventError::Json(JsonError::Syntax {
                detail: e.to_string(),
            })
        })?;
    Ok(ChangeEvent {
        event_id,
        publisher_id,
        publisher_type,
        session_nonce,
        change_class,
        object,
    })
}

fn clip(s: &str) -> String {
    agentconf_json::text::clip(s, 80)
}
