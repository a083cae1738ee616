//! What grading an emitter's output finds: a fault on a rule, and the grade of the whole answer
//! (status, detail and the rules broken). The floor the timeline, commitment and receipt graders
//! share.

use agentconf_rules::Rule;
use serde_json::Value;

use crate::grade::Grade;
use crate::status::Status;

/// One way the emitted timeline departs from the expected one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EmitFault {
    pub rule: Rule,
    /// The 0-based entry, where the fault is in one.
    pub entry: Option<usize>,
    /// The member concerned, where there is one.
    pub member: Option<&'static str>,
    pub message: String,
}

impl std::fmt::Display for EmitFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.entry, self.member) {
            (Some(i), Some(m)) => write!(f, "entry {i}, {m}: ")?,
            (Some(i), None) => write!(f, "entry {i}: ")?,
            _ => {}
        }
        write!(f, "{} ({})", self.message, self.rule.id())
    }
}

/// An emitter's answer graded: its status and detail, and the rules its output broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitGrade {
    pub status: Status,
    pub detail: String,
    /// For `wrong-output`: the rule of every fault found, each once, in the order found (the
    /// per-rule table charges the case to these alone). For an artifact written where none may
    /// be (`false-accept`): the rules that make the input unfit (the vector's expected rules)
    /// and those of the faults of the output besides. Empty for every other status: a pass
    /// broke nothing, and a refusal is a verdict on the vector, charged to its rules.
    pub broken_rules: Vec<Rule>,
}

impl EmitGrade {
    /// A grade that names no broken rule.
    pub(crate) fn of(status: Status, detail: impl Into<String>) -> EmitGrade {
        EmitGrade {
            status,
            detail: detail.into(),
            broken_rules: Vec::new(),
        }
    }

    /// The status and the detail alone.
    pub(crate) fn grade(self) -> Grade {
        Grade::new(self.status, self.detail)
    }
}

/// `wrong-output`, with the first faults and the rules of them all.
pub(crate) fn wrong_output(faults: &[EmitFault]) -> EmitGrade {
    let shown: Vec<String> = faults.iter().take(3).map(|f| f.to_string()).collect();
    let more = match faults.len() {
        n if n > 3 => format!("; {} more", n - 3),
        _ => String::new(),
    };
    let mut broken_rules: Vec<Rule> = Vec::new();
    for f in faults {
        if !broken_rules.contains(&f.rule) {
            broken_rules.push(f.rule);
        }
    }
    EmitGrade {
        status: Status::WrongOutput,
        detail: format!("{}{more}", shown.join("; ")),
        broken_rules,
    }
}

/// The fault message for a member name an emitter wrote twice in one object.
pub(crate) fn repeated_message(name: &str) -> String {
    format!(
        "member {} is given twice in one object: a reader keeps either one, or rejects the \
         document",
        shown(&Value::from(name))
    )
}

/// An emitter's output read as one JSON object. `Err` is the one fault when it is not: not UTF-8
/// (`AER1-JSON-UTF8`), not one JSON text (`AER1-JSON-SYNTAX`), or another JSON value
/// (`not_object`).
pub(crate) fn read_object(
    emitted: &[u8],
    not_object: Rule,
) -> Result<serde_json::Map<String, Value>, EmitFault> {
    let fault = |rule, message: String| EmitFault {
        rule,
        entry: None,
        member: None,
        message,
    };
    let text = std::str::from_utf8(emitted)
        .map_err(|_| fault(Rule::Aer1JsonUtf8, "the output is not UTF-8".into()))?;
    if let Err(e) = bounded(text) {
        return Err(fault(e.0, e.1));
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(fault(not_object, "the output is not a JSON object".into())),
        Err(e) => Err(fault(
            Rule::Aer1JsonSyntax,
            format!("the output is not one JSON text ({e})"),
        )),
    }
}

/// A JSON value for a message, clipped.
pub(crate) fn shown(v: &Value) -> String {
    agentconf_json::text::clip(&v.to_string(), 80)
}

/// The most values an emitter's output may hold before it is parsed: far above any artifact the
/// corpus asks for, and low enough that a flood (`[0,0,…]` filling the output limit) is refused
/// without a tree of millions of values in memory per worker.
pub(crate) const MAX_EMITTED_VALUES: usize = 250_000;

/// `Err((rule, message))` when `text` nests deeper or holds more values than an emitter's output
/// may ([`agentconf_json::check_bounds`]): checked before the output is parsed into a tree.
pub(crate) fn bounded(text: &str) -> Result<(), (Rule, String)> {
    agentconf_json::check_bounds(text, MAX_EMITTED_VALUES).map_err(|e| match e {
        agentconf_json::JsonError::TooDeep => {
            (Rule::Aer1JsonDepth, format!("the output is not read: {e}"))
        }
        other => (
            Rule::Aer1JsonSize,
            format!("the output is not read: {other}"),
        ),
    })
}
