//! Argv templates: each argument is literal text and `{placeholder}`s, read once when the file
//! is checked, so that filling one in is a plain substitution that cannot meet an unknown name
//! (and a value that happens to contain `{tier}` is never substituted again).

use agentconf_contract::call::{Call, Operation};

/// A value of the contract's call that a template can pass on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placeholder {
    Receipt,
    /// The receipt tier, `core` when the vector gives none.
    Tier,
    /// `{id_tier}`, the tier's name before agentconf 0.2.0, when only `core` and `strict`
    /// existed: a template that uses it is sent those two and no other (its operation declines
    /// the `anchored` and `profile` cases), so an old adapter is never handed a tier its tool
    /// does not know.
    IdTier,
    Revision,
    Timeline,
    Commitment,
    Workflow,
    /// The `STEPS` file of an emit operation.
    Steps,
    /// The instant a commitment emitter records.
    PublishedAt,
    /// The payload file of a receipt emitter.
    Payload,
    /// The `META` file of a receipt emitter.
    Meta,
}

impl Placeholder {
    /// The placeholder written `{name}`, if there is one.
    pub(crate) fn parse(name: &str) -> Option<Placeholder> {
        Some(match name {
            "receipt" => Placeholder::Receipt,
            "tier" => Placeholder::Tier,
            "id_tier" => Placeholder::IdTier,
            "revision" => Placeholder::Revision,
            "timeline" => Placeholder::Timeline,
            "commitment" => Placeholder::Commitment,
            "workflow" => Placeholder::Workflow,
            "steps" => Placeholder::Steps,
            "published_at" => Placeholder::PublishedAt,
            "payload" => Placeholder::Payload,
            "meta" => Placeholder::Meta,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Placeholder::Receipt => "{receipt}",
            Placeholder::Tier => "{tier}",
            Placeholder::IdTier => "{id_tier}",
            Placeholder::Revision => "{revision}",
            Placeholder::Timeline => "{timeline}",
            Placeholder::Commitment => "{commitment}",
            Placeholder::Workflow => "{workflow}",
            Placeholder::Steps => "{steps}",
            Placeholder::PublishedAt => "{published_at}",
            Placeholder::Payload => "{payload}",
            Placeholder::Meta => "{meta}",
        }
    }

    /// The tiers `{id_tier}` is sent: the tiers before agentconf 0.2.0.
    pub(crate) const ID_TIER_VALUES: [&'static str; 2] = ["core", "strict"];

    /// The argument of the call this placeholder passes on: `{id_tier}` is `{tier}` under its
    /// old name.
    pub(crate) fn argument(self) -> Placeholder {
        match self {
            Placeholder::IdTier => Placeholder::Tier,
            p => p,
        }
    }

    /// The placeholders of an operation: the arguments of its contract call (`{id_tier}`, an
    /// old name, is accepted where `{tier}` is but not listed).
    pub(crate) fn of(operation: Operation) -> &'static [Placeholder] {
        match operation {
            Operation::Aer1Receipt => &[Placeholder::Receipt, Placeholder::Tier],
            Operation::Aer1Timeline => &[
                Placeholder::Revision,
                Placeholder::Timeline,
                Placeholder::Commitment,
            ],
            Operation::Aer1Workflow => &[Placeholder::Workflow],
            Operation::Aer1EmitTimeline => &[Placeholder::Steps],
            Operation::Aer1EmitCommitment => &[Placeholder::Timeline, Placeholder::PublishedAt],
            Operation::Aer1EmitReceipt => &[Placeholder::Payload, Placeholder::Meta],
            // A receiver is always started in the contract's order: no template.
            Operation::GrpAdmit => &[],
        }
    }

    pub(crate) fn names(list: &[Placeholder]) -> String {
        if list.is_empty() {
            return "none".into();
        }
        list.iter().map(|p| p.name()).collect::<Vec<_>>().join(" ")
    }

    /// Its value in `call` (`None` when the call has no such argument).
    fn value(self, call: &Call) -> Option<&str> {
        match (self, call) {
            (Placeholder::Receipt, Call::Receipt { receipt, .. }) => Some(receipt),
            (Placeholder::Tier | Placeholder::IdTier, Call::Receipt { tier, .. }) => {
                Some(tier.as_deref().unwrap_or("core"))
            }
            (Placeholder::Revision, Call::Timeline { revision, .. }) => Some(revision),
            (Placeholder::Timeline, Call::Timeline { timeline, .. }) => Some(timeline),
            (Placeholder::Commitment, Call::Timeline { commitment, .. }) => commitment.as_deref(),
            (Placeholder::Workflow, Call::Workflow { workflow }) => Some(workflow),
            (Placeholder::Steps, Call::EmitTimeline { steps }) => Some(steps),
            (Placeholder::Timeline, Call::EmitCommitment { timeline, .. }) => Some(timeline),
            (Placeholder::PublishedAt, Call::EmitCommitment { published_at, .. }) => {
                Some(published_at)
            }
            (Placeholder::Payload, Call::EmitReceipt { payload, .. }) => Some(payload),
            (Placeholder::Meta, Call::EmitReceipt { meta, .. }) => Some(meta),
            _ => None,
        }
    }
}

/// A piece of one argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    Text(String),
    Value(Placeholder),
}

/// One argument as written: `{` + a name of letters, digits and `_` + `}` is a placeholder;
/// any other brace is text. `Err` carries the name, as written, of a placeholder that is not
/// among `allowed`.
pub(crate) fn parse_argument(text: &str, allowed: &[Placeholder]) -> Result<Vec<Segment>, String> {
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        literal.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_len > 0 && after[name_len..].starts_with('}') {
            let name = &after[..name_len];
            let p = Placeholder::parse(name)
                .filter(|p| allowed.contains(&p.argument()))
                .ok_or_else(|| name.to_string())?;
            if !literal.is_empty() {
                out.push(Segment::Text(std::mem::take(&mut literal)));
            }
            out.push(Segment::Value(p));
            rest = &after[name_len + 1..];
        } else {
            literal.push('{');
            rest = after;
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() || out.is_empty() {
        out.push(Segment::Text(literal));
    }
    Ok(out)
}

/// A checked template: what it names, and the line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Template {
    pub line: usize,
    pub arguments: Vec<Vec<Segment>>,
}

impl Template {
    /// Whether the template passes on the call's argument `p`, under any of its names.
    pub(crate) fn names(&self, p: Placeholder) -> bool {
        self.arguments
            .iter()
            .flatten()
            .any(|s| matches!(s, Segment::Value(v) if v.argument() == p.argument()))
    }

    /// Whether the template writes `p` under exactly this name (`{id_tier}` and not `{tier}`).
    pub(crate) fn writes(&self, p: Placeholder) -> bool {
        self.arguments
            .iter()
            .flatten()
            .any(|s| *s == Segment::Value(p))
    }

    /// The arguments with the call's values filled in. Checking the file made sure that every
    /// placeholder is one of the call's; should one have no value, it is left empty rather than
    /// passed literally.
    pub(crate) fn fill(&self, call: &Call) -> Vec<String> {
        self.arguments
            .iter()
            .map(|segments| {
                segments
                    .iter()
                    .map(|s| match s {
                        Segment::Text(t) => t.as_str(),
                        Segment::Value(p) => p.value(call).unwrap_or_default(),
                    })
                    .collect()
            })
            .collect()
    }
}
