//! The GRP signature profile: how `publisher_signature` is produced and checked.
//!
//! GRP (draft-sato-soos-grp, an individual Internet-Draft — not an RFC, not IETF-endorsed) says a
//! change event carries `publisher_signature`, "JWS compact serialization over the event payload",
//! but names neither the algorithm nor the payload form. This module implements the profile the
//! project defines for that gap (`GRP.md` §4 item 5, an interpretation of this project, not text
//! of the draft):
//!
//! * compact JWS (RFC 7515 §7.1) with an **attached** payload;
//! * protected header `{"alg":"EdDSA","kid":"<kid>"}` (RFC 8037), nothing else is needed;
//! * payload = the RFC 8785 (JCS) canonical form of the event object **without** its
//!   `publisher_signature` member;
//! * the receiver accepts only `alg` `EdDSA` with an `OKP`/`Ed25519` JWK of the publisher, rejects
//!   `none` and the HMAC algorithms, and requires the decoded payload to be byte-identical to the
//!   canonical form of the event it actually received, so a signature lifted from one event onto
//!   another fails even though it verifies cryptographically.
//!
//! # Check order of [`verify_event_signature`]
//!
//! The first failing check decides the reported [`SignatureError`]:
//!
//! 1. `publisher_signature` is present and a JSON string, else [`SignatureError::MissingSignature`].
//! 2. **Compact form** ([`SignatureError::NotCompact`]): exactly three segments separated by `.`;
//!    every segment consists only of base64url characters `A-Z a-z 0-9 - _` (no padding `=`, no
//!    whitespace) and decodes canonically (a segment whose length is 1 mod 4, or whose unused
//!    trailing bits are not zero, is rejected, so a signature cannot be re-encoded in a second
//!    spelling); the header and payload segments must be non-empty. The signature segment *may* be
//!    empty here — that is the legal RFC 7515 form of an unsecured (`alg: none`) JWS, and letting it
//!    through this step means an `alg: none` token is reported as [`SignatureError::AlgNone`]
//!    rather than as a mere syntax error. With `EdDSA` an empty signature then fails at step 8 as
//!    [`SignatureError::BadSignature`].
//! 3. **Header JSON** ([`SignatureError::HeaderNotJson`]): the decoded header is UTF-8 JSON, a
//!    single object, with no duplicate member names (RFC 7515 §5.2 allows rejecting them; a
//!    header `{"alg":"EdDSA","alg":"none"}` must not be read two ways).
//! 4. **`crit`** ([`SignatureError::CriticalHeader`]): any `crit` member is rejected — this
//!    profile understands no extension.
//! 5. **`b64`** ([`SignatureError::UnencodedPayload`], a variant of its own): a `b64` member whose
//!    value is not `true` (RFC 7797 unencoded payload) is rejected. A conforming RFC 7797 header
//!    also lists `b64` in `crit`, which step 4 already reports; this step catches the
//!    non-conforming form without `crit`. `"b64": true` is the RFC 7515 default and is accepted.
//! 6. **`alg`**: absent → [`SignatureError::HeaderMissingAlg`]; exactly `"none"` →
//!    [`SignatureError::AlgNone`]; exactly `HS256`/`HS384`/`HS512` → [`SignatureError::AlgHmac`];
//!    anything other than exactly `"EdDSA"` (e.g. `RS256`, `ES256`, `Ed25519`, `eddsa`, `None`, or
//!    a non-string value, reported as its JSON text) → [`SignatureError::AlgUnsupported`]. `alg`
//!    values are case-sensitive (RFC 7515 §4.1.1), so the classification is exact.
//! 7. **`kid`**: absent or not a string → [`SignatureError::MissingKid`]; no key of the publisher
//!    has that `kid` → [`SignatureError::UnknownKid`]; none of the keys with that `kid` is a usable
//!    Ed25519 key → [`SignatureError::KeyNotEd25519`]. A usable key has `kty` `OKP`, `crv`
//!    `Ed25519`, an `alg` that is absent or `EdDSA`, and an `x` that is canonical unpadded
//!    base64url of 32 bytes encoding a curve point that is not of small order. An `oct` key (the
//!    HMAC-confusion setup) is therefore never usable. Keys embedded in the token header (`jwk`,
//!    `jku`, `x5c`, `x5u`) are ignored: only the publisher's registered keys count. If several
//!    usable keys share the `kid` (RFC 7517 §4.5 discourages but allows it), the signature is
//!    accepted if it verifies under any of them.
//! 8. **Signature** ([`SignatureError::BadSignature`]): the decoded signature is exactly 64 bytes
//!    and verifies with ed25519-dalek `verify_strict` over the ASCII bytes
//!    `header-segment '.' payload-segment` exactly as received.
//! 9. **Payload**: the decoded payload is JSON ([`SignatureError::PayloadNotJson`]) and is
//!    byte-identical to the JCS form of the received event minus `publisher_signature`
//!    ([`SignatureError::PayloadMismatch`]).
//!
//! Because the comparison is on canonical forms, member order and insignificant whitespace of the
//! received event do not matter; any change of a member name or value does.

use std::fmt;

use agentconf_rules::{Rule, RuleError};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The event member that carries the compact JWS.
pub const SIGNATURE_MEMBER: &str = "publisher_signature";

/// The only `alg` this profile accepts.
pub const ALG_EDDSA: &str = "EdDSA";

/// A JSON Web Key (RFC 7517) as found in a publisher's key set (P-TYPE-3 `keys`, P-TYPE-2
/// `signing_key`). Unknown members (`use`, `key_ops`, `d`, …) are ignored on input; absent
/// optional members are omitted on output.
///
/// The type deliberately also holds symmetric (`kty` `oct`, member `k`) keys, so a registry used
/// in an HMAC-confusion test can contain one; [`verify_event_signature`] never uses such a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Jwk {
    /// Key type: `OKP` for Ed25519 (RFC 8037), `oct` for a symmetric key.
    pub kty: String,
    /// Curve, `Ed25519` for the keys this profile accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crv: Option<String>,
    /// Public key, base64url without padding (RFC 8037 §2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<String>,
    /// Key id, matched against the JWS header `kid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kid: Option<String>,
    /// Intended algorithm; if present it must be `EdDSA` for the key to be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg: Option<String>,
    /// Symmetric key value (`kty` `oct`), base64url. Never used for verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<String>,
}

/// Why a `publisher_signature` was refused. One variant per distinct failure; see the module
/// documentation for the order in which they are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureError {
    /// The event has no `publisher_signature`, or it is not a JSON string. `found` is `"absent"`
    /// or the JSON type of the value (`"null"`, `"boolean"`, `"number"`, `"array"`, `"object"`).
    MissingSignature { found: &'static str },
    /// Not three base64url segments separated by dots: wrong number of segments, empty header or
    /// payload segment, padding `=`, a character outside the base64url alphabet, or a
    /// non-canonical encoding.
    NotCompact,
    /// The protected header is not a UTF-8 JSON object with unique member names.
    HeaderNotJson,
    /// The protected header carries `crit`; this profile understands no extension.
    CriticalHeader,
    /// The protected header carries `b64` with a value other than `true` (RFC 7797 unencoded
    /// payload), which this profile does not support.
    UnencodedPayload,
    /// The protected header has no `alg` member.
    HeaderMissingAlg,
    /// `alg` is `none` (unsecured JWS).
    AlgNone,
    /// `alg` is an HMAC algorithm (`HS256`, `HS384`, `HS512`).
    AlgHmac { alg: String },
    /// `alg` is something other than `EdDSA`, `none` or HMAC. For a non-string `alg` this holds
    /// the value's JSON text.
    AlgUnsupported { alg: String },
    /// The protected header has no string `kid`.
    MissingKid,
    /// No key of the publisher has this `kid`.
    UnknownKid { kid: String },
    /// The key(s) with this `kid` are not usable Ed25519 keys (`kty` `OKP`, `crv` `Ed25519`,
    /// `alg` absent or `EdDSA`, `x` = 32 bytes of base64url, not a small-order point).
    KeyNotEd25519 { kid: String },
    /// The signature segment is not 64 bytes, or does not verify (strict Ed25519 verification).
    BadSignature,
    /// The signature verifies but the decoded payload is not JSON.
    PayloadNotJson,
    /// The signature verifies but the decoded payload is not byte-identical to the RFC 8785
    /// canonical form of the received event without `publisher_signature` (e.g. a signature
    /// lifted from another event).
    PayloadMismatch,
}

impl SignatureError {
    /// A stable snake_case identifier of the variant, for reports and test vectors.
    pub fn code(&self) -> &'static str {
        match self {
            SignatureError::MissingSignature { .. } => "missing_signature",
            SignatureError::NotCompact => "not_compact",
            SignatureError::HeaderNotJson => "header_not_json",
            SignatureError::CriticalHeader => "critical_header",
            SignatureError::UnencodedPayload => "unencoded_payload",
            SignatureError::HeaderMissingAlg => "header_missing_alg",
            SignatureError::AlgNone => "alg_none",
            SignatureError::AlgHmac { .. } => "alg_hmac",
            SignatureError::AlgUnsupported { .. } => "alg_unsupported",
            SignatureError::MissingKid => "missing_kid",
            SignatureError::UnknownKid { .. } => "unknown_kid",
            SignatureError::KeyNotEd25519 { .. } => "key_not_ed25519",
            SignatureError::BadSignature => "bad_signature",
            SignatureError::PayloadNotJson => "payload_not_json",
            SignatureError::PayloadMismatch => "payload_mismatch",
        }
    }
}

impl RuleError for SignatureError {
    fn rule(&self) -> Rule {
        match self {
            SignatureError::MissingSignature { .. }
            | SignatureError::NotCompact
            | SignatureError::HeaderNotJson
            | SignatureError::CriticalHeader
            | SignatureError::UnencodedPayload
            | SignatureError::HeaderMissingAlg => Rule::GrpSigFormat,
            SignatureError::AlgNone
            | SignatureError::AlgHmac { .. }
            | SignatureError::AlgUnsupported { .. } => Rule::GrpSigAlg,
            SignatureError::MissingKid
            | SignatureError::UnknownKid { .. }
            | SignatureError::KeyNotEd25519 { .. } => Rule::GrpSigKey,
            SignatureError::BadSignature => Rule::GrpSigVerify,
            SignatureError::PayloadNotJson | SignatureError::PayloadMismatch => Rule::GrpSigPayload,
        }
    }

    /// Every signature failure is about `publisher_signature`.
    fn member(&self) -> Option<String> {
        Some(SIGNATURE_MEMBER.into())
    }
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::MissingSignature { found } => {
                if *found == "absent" {
                    write!(f, "the event has no `{SIGNATURE_MEMBER}` member")
                } else {
                    write!(
                        f,
                        "`{SIGNATURE_MEMBER}` must be a string holding a compact JWS, found {found}"
                    )
                }
            }
            SignatureError::NotCompact => f.write_str(
                "`publisher_signature` is not a JWS compact serialization (three unpadded \
                 base64url segments separated by dots, header and payload non-empty)",
            ),
            SignatureError::HeaderNotJson => f.write_str(
                "the JWS protected header is not a UTF-8 JSON object with unique member names",
            ),
            SignatureError::CriticalHeader => f.write_str(
                "the JWS protected header carries `crit`; no header extension is understood",
            ),
            SignatureError::UnencodedPayload => f.write_str(
                "the JWS protected header asks for an unencoded payload (`b64` not true, \
                 RFC 7797), which is not supported",
            ),
            SignatureError::HeaderMissingAlg => {
                f.write_str("the JWS protected header has no `alg` member")
            }
            SignatureError::AlgNone => {
                f.write_str("the JWS uses `alg` \"none\" (unsecured); only EdDSA is accepted")
            }
            SignatureError::AlgHmac { alg } => write!(
                f,
                "the JWS uses the HMAC algorithm {alg:?}; only EdDSA with the publisher's \
                 Ed25519 key is accepted"
            ),
            SignatureError::AlgUnsupported { alg } => write!(
                f,
                "the JWS uses `alg` {alg}; only \"EdDSA\" is accepted",
                alg = quote_alg(alg)
            ),
            SignatureError::MissingKid => {
                f.write_str("the JWS protected header has no string `kid` member")
            }
            SignatureError::UnknownKid { kid } => {
                write!(f, "the publisher has no key with kid {kid:?}")
            }
            SignatureError::KeyNotEd25519 { kid } => write!(
                f,
                "the publisher's key with kid {kid:?} is not a usable Ed25519 key \
                 (kty OKP, crv Ed25519, 32-byte base64url x)"
            ),
            SignatureError::BadSignature => f.write_str(
                "the Ed25519 signature is not 64 bytes or does not verify under the publisher's key",
            ),
            SignatureError::PayloadNotJson => f.write_str("the JWS payload is not JSON"),
            SignatureError::PayloadMismatch => f.write_str(
                "the JWS payload is not the RFC 8785 canonical form of this event without \
                 `publisher_signature` (signature made for different content)",
            ),
        }
    }
}

/// Strings are shown quoted; the JSON text of a non-string `alg` as is.
fn quote_alg(alg: &str) -> String {
    if serde_json::from_str::<Value>(alg).is_ok_and(|v| !v.is_string()) {
        alg.to_string()
    } else {
        format!("{alg:?}")
    }
}

impl std::error::Error for SignatureError {}

/// Base64url without padding (RFC 7515 §2).
pub fn b64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The RFC 8785 canonical form of `event` without its `publisher_signature` member: the exact
/// bytes the JWS payload must carry.
pub fn canonical_payload(event: &Map<String, Value>) -> Vec<u8> {
    let mut stripped = event.clone();
    stripped.remove(SIGNATURE_MEMBER);
    // A serde_json::Value holds only finite numbers and string keys, the only things the
    // canonicalizer refuses, so this cannot fail.
    serde_json_canonicalizer::to_vec(&Value::Object(stripped))
        .expect("a serde_json::Value always has an RFC 8785 form")
}

/// Protected header in the exact member order `alg`, `kid`.
#[derive(Serialize)]
struct Header<'a> {
    alg: &'a str,
    kid: &'a str,
}

fn header_json(alg: &str, kid: &str) -> String {
    serde_json::to_string(&Header { alg, kid }).expect("a struct of strings always serializes")
}

/// Signs `event` (any `publisher_signature` it already has is ignored) and returns the compact
/// JWS to store in `publisher_signature`: header `{"alg":"EdDSA","kid":"<kid>"}`, payload the
/// JCS form of the event without `publisher_signature`, all segments unpadded base64url.
pub fn sign_event(event: &Map<String, Value>, kid: &str, key: &SigningKey) -> String {
    let signing_input = format!(
        "{}.{}",
        b64url(header_json(ALG_EDDSA, kid).as_bytes()),
        b64url(&canonical_payload(event))
    );
    let signature: Signature = key.sign(signing_input.as_bytes());
    format!("{signing_input}.{}", b64url(&signature.to_bytes()))
}

/// The public JWK for `key`: `kty` `OKP`, `crv` `Ed25519`, `x`, `kid`, `alg` `EdDSA`.
pub fn public_jwk(kid: &str, key: &VerifyingKey) -> Jwk {
    Jwk {
        kty: "OKP".to_string(),
        crv: Some("Ed25519".to_string()),
        x: Some(b64url(key.as_bytes())),
        kid: Some(kid.to_string()),
        alg: Some(ALG_EDDSA.to_string()),
        k: None,
    }
}

/// A compact JWS split and decoded (step 2 of the check order).
struct CompactJws<'a> {
    /// `header-segment '.' payload-segment`, exactly as received.
    signing_input: &'a str,
    header: Vec<u8>,
    payload: Vec<u8>,
    signature: Vec<u8>,
}

fn decode_segment(segment: &str) -> Result<Vec<u8>, SignatureError> {
    if !segment
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(SignatureError::NotCompact);
    }
    // URL_SAFE_NO_PAD rejects padding, lengths of 1 mod 4 and non-zero trailing bits.
    URL_SAFE_NO_PAD
        .decode(segment)
        .map_err(|_| SignatureError::NotCompact)
}

impl<'a> CompactJws<'a> {
    fn parse(token: &'a str) -> Result<Self, SignatureError> {
        let mut parts = token.split('.');
        let (Some(h), Some(p), Some(s), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(SignatureError::NotCompact);
        };
        if h.is_empty() || p.is_empty() {
            return Err(SignatureError::NotCompact);
        }
        Ok(CompactJws {
            signing_input: &token[..h.len() + 1 + p.len()],
            header: decode_segment(h)?,
            payload: decode_segment(p)?,
            signature: decode_segment(s)?,
        })
    }
}

/// A JSON object that refuses duplicate member names at its top level.
struct StrictObject(Map<String, Value>);

impl<'de> Deserialize<'de> for StrictObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = StrictObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object with unique member names")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<StrictObject, A::Error> {
                let mut map = Map::new();
                while let Some(name) = access.next_key::<String>()? {
                    if map.contains_key(&name) {
                        return Err(A::Error::custom(format!("duplicate member {name:?}")));
                    }
                    let value: Value = access.next_value()?;
                    map.insert(name, value);
                }
                Ok(StrictObject(map))
            }
        }
        deserializer.deserialize_map(ObjectVisitor)
    }
}

/// Steps 3–6: header JSON, `crit`, `b64`, `alg`. Returns the header on success.
fn check_header(header: &[u8]) -> Result<Map<String, Value>, SignatureError> {
    let StrictObject(header) =
        serde_json::from_slice(header).map_err(|_| SignatureError::HeaderNotJson)?;
    if header.contains_key("crit") {
        return Err(SignatureError::CriticalHeader);
    }
    if header
        .get("b64")
        .is_some_and(|b64| b64 != &Value::Bool(true))
    {
        return Err(SignatureError::UnencodedPayload);
    }
    match header.get("alg") {
        None => Err(SignatureError::HeaderMissingAlg),
        Some(Value::String(alg)) => match alg.as_str() {
            ALG_EDDSA => Ok(()),
            "none" => Err(SignatureError::AlgNone),
            "HS256" | "HS384" | "HS512" => Err(SignatureError::AlgHmac { alg: alg.clone() }),
            _ => Err(SignatureError::AlgUnsupported { alg: alg.clone() }),
        },
        Some(other) => Err(SignatureError::AlgUnsupported {
            alg: other.to_string(),
        }),
    }?;
    Ok(header)
}

/// The Ed25519 public key of `jwk`, if it is a usable one (see step 7 of the module doc).
fn ed25519_key(jwk: &Jwk) -> Option<VerifyingKey> {
    if jwk.kty != "OKP" || jwk.crv.as_deref() != Some("Ed25519") {
        return None;
    }
    if jwk.alg.as_deref().is_some_and(|alg| alg != ALG_EDDSA) {
        return None;
    }
    let x = decode_segment(jwk.x.as_deref()?).ok()?;
    let x: [u8; 32] = x.try_into().ok()?;
    let key = VerifyingKey::from_bytes(&x).ok()?;
    (!key.is_weak()).then_some(key)
}

/// Step 8: `signature` is 64 bytes and verifies strictly over `signing_input` under one of
/// `keys`.
fn verify_signature_step(
    signing_input: &[u8],
    signature: &[u8],
    keys: &[VerifyingKey],
) -> Result<(), SignatureError> {
    let bytes: &[u8; 64] = signature
        .try_into()
        .map_err(|_| SignatureError::BadSignature)?;
    let signature = Signature::from_bytes(bytes);
    if keys
        .iter()
        .any(|key| key.verify_strict(signing_input, &signature).is_ok())
    {
        Ok(())
    } else {
        Err(SignatureError::BadSignature)
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Verifies the `publisher_signature` of a received `event` against the publisher's `keys`,
/// following the profile and check order of the module documentation.
pub fn verify_event_signature(
    event: &Map<String, Value>,
    keys: &[Jwk],
) -> Result<(), SignatureError> {
    // 1. presence
    let token = match event.get(SIGNATURE_MEMBER) {
        None => return Err(SignatureError::MissingSignature { found: "absent" }),
        Some(Value::String(token)) => token,
        Some(other) => {
            return Err(SignatureError::MissingSignature {
                found: json_type(other),
            })
        }
    };
    // 2. compact form
    let jws = CompactJws::parse(token)?;
    // 3-6. header JSON, crit, b64, alg
    let header = check_header(&jws.header)?;
    // 7. kid and key type
    let kid = match header.get("kid") {
        Some(Value::String(kid)) => kid,
        _ => return Err(SignatureError::MissingKid),
    };
    let candidates: Vec<&Jwk> = keys
        .iter()
        .filter(|jwk| jwk.kid.as_deref() == Some(kid.as_str()))
        .collect();
    if candidates.is_empty() {
        return Err(SignatureError::UnknownKid { kid: kid.clone() });
    }
    let usable: Vec<VerifyingKey> = candidates.into_iter().filter_map(ed25519_key).collect();
    if usable.is_empty() {
        return Err(SignatureError::KeyNotEd25519 { kid: kid.clone() });
    }
    // 8. signature over the received signing input
    verify_signature_step(jws.signing_input.as_bytes(), &jws.signature, &usable)?;
    // 9. payload binds this event
    serde_json::from_slice::<Value>(&jws.payload).map_err(|_| SignatureError::PayloadNotJson)?;
    if jws.payload != canonical_payload(event) {
        return Err(SignatureError::PayloadMismatch);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(n: u8) -> SigningKey {
        SigningKey::from_bytes(&[n; 32])
    }

    fn event() -> Map<String, Value> {
        json!({
            "event_id": "grp-evt-20260714-001",
            "publisher_id": "ponyhouse.myauberge.jp",
            "publisher_type": "P-TYPE-3",
            "session_nonce": "ses-nonce-aep-session-001",
            "event_timestamp": "2026-07-14T10:23:00Z",
            "change_class": "RESOURCE_STATE",
            "affected_component": "rgp-resource-horse-trek-001",
            "change_severity": "MEDIUM",
            "remediation_hint": "FALLBACK"
        })
        .as_object()
        .unwrap()
        .clone()
    }

    fn keys() -> Vec<Jwk> {
        vec![public_jwk("k1", &key(1).verifying_key())]
    }

    fn with_sig(mut ev: Map<String, Value>, sig: Value) -> Map<String, Value> {
        ev.insert(SIGNATURE_MEMBER.to_string(), sig);
        ev
    }

    fn signed() -> Map<String, Value> {
        let ev = event();
        let token = sign_event(&ev, "k1", &key(1));
        with_sig(ev, Value::String(token))
    }

    fn verify_token(token: &str) -> Result<(), SignatureError> {
        verify_event_signature(&with_sig(event(), Value::String(token.into())), &keys())
    }

    /// Raw assembly of a compact JWS from a header text, payload bytes and signature bytes, with
    /// no check of any kind (the corpus's attack-token builder, `agentconf-corpus` `grp::tokens`,
    /// does the same for the vectors).
    fn token_with_header(header_json: &str, payload: &[u8], signature: &[u8]) -> String {
        format!(
            "{}.{}.{}",
            b64url(header_json.as_bytes()),
            b64url(payload),
            b64url(signature)
        )
    }

    /// A token with `header`, the correct payload of `event()`, signed with key 1 (so only the
    /// header decides the outcome).
    fn token_signed_with_header(header: &str) -> String {
        let input = format!(
            "{}.{}",
            b64url(header.as_bytes()),
            b64url(&canonical_payload(&event()))
        );
        let sig = key(1).sign(input.as_bytes());
        format!("{input}.{}", b64url(&sig.to_bytes()))
    }

    #[test]
    fn round_trip() {
        let ev = signed();
        assert_eq!(verify_event_signature(&ev, &keys()), Ok(()));
        let token = ev[SIGNATURE_MEMBER].as_str().unwrap();
        let header = URL_SAFE_NO_PAD
            .decode(token.split('.').next().unwrap())
            .unwrap();
        assert_eq!(header, br#"{"alg":"EdDSA","kid":"k1"}"#);
        let payload = URL_SAFE_NO_PAD
            .decode(token.split('.').nth(1).unwrap())
            .unwrap();
        assert_eq!(payload, canonical_payload(&event()));
        assert!(!token.contains('='));
        // Re-signing an already signed event ignores the old signature.
        assert_eq!(sign_event(&ev, "k1", &key(1)), token);
    }

    #[test]
    fn kid_is_json_escaped_in_header() {
        let kid = "a\"b\\c";
        let ev = event();
        let token = sign_event(&ev, kid, &key(1));
        let header = URL_SAFE_NO_PAD
            .decode(token.split('.').next().unwrap())
            .unwrap();
        assert_eq!(header, br#"{"alg":"EdDSA","kid":"a\"b\\c"}"#);
        let ks = vec![public_jwk(kid, &key(1).verifying_key())];
        assert_eq!(
            verify_event_signature(&with_sig(ev, token.into()), &ks),
            Ok(())
        );
    }

    #[test]
    fn jwk_serde() {
        let jwk = public_jwk("k1", &key(1).verifying_key());
        let text = serde_json::to_string(&jwk).unwrap();
        assert!(
            text.starts_with(r#"{"kty":"OKP","crv":"Ed25519","x":""#),
            "{text}"
        );
        assert!(!text.contains("\"k\""));
        let back: Jwk = serde_json::from_str(&text).unwrap();
        assert_eq!(back, jwk);
        let oct: Jwk =
            serde_json::from_str(r#"{"kty":"oct","k":"c2VjcmV0","kid":"k1","use":"sig"}"#).unwrap();
        assert_eq!(oct.k.as_deref(), Some("c2VjcmV0"));
        assert_eq!(oct.crv, None);
    }

    #[test]
    fn missing_signature() {
        assert_eq!(
            verify_event_signature(&event(), &keys()),
            Err(SignatureError::MissingSignature { found: "absent" })
        );
        assert_eq!(
            verify_event_signature(&with_sig(event(), json!(null)), &keys()),
            Err(SignatureError::MissingSignature { found: "null" })
        );
        assert_eq!(
            verify_event_signature(&with_sig(event(), json!({"protected": "x"})), &keys()),
            Err(SignatureError::MissingSignature { found: "object" })
        );
    }

    #[test]
    fn not_compact() {
        let good = signed()[SIGNATURE_MEMBER].as_str().unwrap().to_string();
        let (h, rest) = good.split_once('.').unwrap();
        let (p, s) = rest.split_once('.').unwrap();
        let cases = [
            String::new(),
            "abc".to_string(),
            format!("{h}.{p}"),
            format!("{h}.{p}.{s}.{s}"),
            format!(".{p}.{s}"),
            format!("{h}..{s}"),
            format!("{h}.{p}.{s}="),
            format!("{h}=.{p}.{s}"),
            format!("{h}.{p}.{}", s.replace('_', "/").replace('-', "+") + "+"),
            format!("{h}.{p} .{s}"),
            format!("{h}.{p}.\n{s}"),
            // a segment of length 1 mod 4
            format!("{h}.{p}.{s}AAA"),
            // 86-char signature with non-zero unused trailing bits (re-encoding malleability)
            format!("{h}.{p}.{}", flip_trailing_bits(s)),
        ];
        for token in cases {
            assert_eq!(
                verify_token(&token),
                Err(SignatureError::NotCompact),
                "{token:?}"
            );
        }
        // Standard-alphabet characters (`+`, `/`) are not base64url.
        assert_eq!(
            verify_token(&format!("{h}.{p}.+{}", &s[1..])),
            Err(SignatureError::NotCompact)
        );
    }

    /// Changes the last character of an 86-char (64-byte) segment so that its 4 unused low bits
    /// are non-zero while the decoded bytes would be the same under a lenient decoder.
    fn flip_trailing_bits(s: &str) -> String {
        assert_eq!(s.len(), 86);
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let last = s.as_bytes()[85];
        let idx = ALPHABET.iter().position(|&c| c == last).unwrap();
        assert_eq!(idx & 0x0f, 0);
        format!("{}{}", &s[..85], ALPHABET[idx | 1] as char)
    }

    #[test]
    fn header_not_json() {
        let payload = canonical_payload(&event());
        for header in [
            "not json",
            "[\"alg\",\"EdDSA\"]",
            "\"EdDSA\"",
            r#"{"alg":"EdDSA","kid":"k1"} x"#,
            r#"{"alg":"EdDSA","kid":"k1","alg":"none"}"#,
            r#"{"alg":"EdDSA","kid":"k1""#,
        ] {
            let token = token_with_header(header, &payload, &[0; 64]);
            assert_eq!(
                verify_token(&token),
                Err(SignatureError::HeaderNotJson),
                "{header}"
            );
        }
        // Not UTF-8.
        let token = format!(
            "{}.{}.{}",
            b64url(b"{\"alg\":\"\xff\"}"),
            b64url(&payload),
            b64url(&[0; 64])
        );
        assert_eq!(verify_token(&token), Err(SignatureError::HeaderNotJson));
    }

    #[test]
    fn critical_header() {
        // Even with a valid signature: `crit` is refused.
        let token =
            token_signed_with_header(r#"{"alg":"EdDSA","kid":"k1","crit":["exp"],"exp":1}"#);
        assert_eq!(verify_token(&token), Err(SignatureError::CriticalHeader));
        // `crit` is checked before `alg`.
        let token = token_signed_with_header(r#"{"alg":"none","crit":[]}"#);
        assert_eq!(verify_token(&token), Err(SignatureError::CriticalHeader));
        // RFC 7797 conforming header: b64 listed in crit.
        let token =
            token_signed_with_header(r#"{"alg":"EdDSA","kid":"k1","b64":false,"crit":["b64"]}"#);
        assert_eq!(verify_token(&token), Err(SignatureError::CriticalHeader));
    }

    #[test]
    fn unencoded_payload() {
        let token = token_signed_with_header(r#"{"alg":"EdDSA","kid":"k1","b64":false}"#);
        assert_eq!(verify_token(&token), Err(SignatureError::UnencodedPayload));
        let token = token_signed_with_header(r#"{"alg":"EdDSA","kid":"k1","b64":"false"}"#);
        assert_eq!(verify_token(&token), Err(SignatureError::UnencodedPayload));
        // `b64: true` is the default and harmless.
        let token = token_signed_with_header(r#"{"alg":"EdDSA","kid":"k1","b64":true}"#);
        assert_eq!(verify_token(&token), Ok(()));
    }

    #[test]
    fn alg_checks() {
        let payload = canonical_payload(&event());
        let t = |h: &str| token_with_header(h, &payload, &[7; 64]);
        assert_eq!(
            verify_token(&t(r#"{"kid":"k1"}"#)),
            Err(SignatureError::HeaderMissingAlg)
        );
        assert_eq!(
            verify_token(&t(r#"{}"#)),
            Err(SignatureError::HeaderMissingAlg)
        );
        assert_eq!(
            verify_token(&t(r#"{"alg":"none","kid":"k1"}"#)),
            Err(SignatureError::AlgNone)
        );
        for alg in ["HS256", "HS384", "HS512"] {
            assert_eq!(
                verify_token(&t(&format!(r#"{{"alg":"{alg}","kid":"k1"}}"#))),
                Err(SignatureError::AlgHmac { alg: alg.into() })
            );
        }
        for alg in [
            "RS256", "ES256", "PS256", "Ed25519", "eddsa", "EDDSA", "None", "NONE", "hs256", "",
        ] {
            assert_eq!(
                verify_token(&t(&format!(r#"{{"alg":"{alg}","kid":"k1"}}"#))),
                Err(SignatureError::AlgUnsupported { alg: alg.into() }),
                "{alg}"
            );
        }
        assert_eq!(
            verify_token(&t(r#"{"alg":null,"kid":"k1"}"#)),
            Err(SignatureError::AlgUnsupported { alg: "null".into() })
        );
        assert_eq!(
            verify_token(&t(r#"{"alg":["EdDSA"],"kid":"k1"}"#)),
            Err(SignatureError::AlgUnsupported {
                alg: "[\"EdDSA\"]".into()
            })
        );
    }

    #[test]
    fn alg_none_with_empty_signature() {
        let payload = canonical_payload(&event());
        let token = token_with_header(r#"{"alg":"none"}"#, &payload, &[]);
        assert!(token.ends_with('.'));
        assert_eq!(verify_token(&token), Err(SignatureError::AlgNone));
        let token = token_with_header(r#"{"alg":"none","kid":"k1"}"#, &payload, &[]);
        assert_eq!(verify_token(&token), Err(SignatureError::AlgNone));
        // The same empty signature under EdDSA is a bad signature, not a syntax error.
        let token = token_with_header(r#"{"alg":"EdDSA","kid":"k1"}"#, &payload, &[]);
        assert_eq!(verify_token(&token), Err(SignatureError::BadSignature));
    }

    #[test]
    fn kid_checks() {
        let payload = canonical_payload(&event());
        assert_eq!(
            verify_token(&token_signed_with_header(r#"{"alg":"EdDSA"}"#)),
            Err(SignatureError::MissingKid)
        );
        assert_eq!(
            verify_token(&token_with_header(
                r#"{"alg":"EdDSA","kid":1}"#,
                &payload,
                &[0; 64]
            )),
            Err(SignatureError::MissingKid)
        );
        assert_eq!(
            verify_token(&token_signed_with_header(r#"{"alg":"EdDSA","kid":"k2"}"#)),
            Err(SignatureError::UnknownKid { kid: "k2".into() })
        );
        // A key without kid never matches, not even an empty kid.
        let mut anon = keys();
        anon[0].kid = None;
        let ev = with_sig(
            event(),
            token_signed_with_header(r#"{"alg":"EdDSA","kid":""}"#).into(),
        );
        assert_eq!(
            verify_event_signature(&ev, &anon),
            Err(SignatureError::UnknownKid { kid: "".into() })
        );
        // Header-embedded key material is ignored: the attacker's own key does not help.
        let attacker = key(9);
        let jwk = serde_json::to_string(&public_jwk("evil", &attacker.verifying_key())).unwrap();
        let header = format!(r#"{{"alg":"EdDSA","kid":"k1","jwk":{jwk}}}"#);
        let input = format!("{}.{}", b64url(header.as_bytes()), b64url(&payload));
        let token = format!(
            "{input}.{}",
            b64url(&attacker.sign(input.as_bytes()).to_bytes())
        );
        assert_eq!(verify_token(&token), Err(SignatureError::BadSignature));
    }

    #[test]
    fn key_not_ed25519() {
        let ev = signed();
        let good = keys()[0].clone();
        let x32 = good.x.clone().unwrap();
        let mut variants: Vec<Jwk> = Vec::new();
        let mut oct = good.clone();
        oct.kty = "oct".into();
        oct.crv = None;
        oct.x = None;
        oct.alg = Some("HS256".into());
        oct.k = Some(x32.clone());
        variants.push(oct);
        let mut ec = good.clone();
        ec.kty = "EC".into();
        variants.push(ec);
        let mut x448 = good.clone();
        x448.crv = Some("Ed448".into());
        variants.push(x448);
        let mut x25519 = good.clone();
        x25519.crv = Some("X25519".into());
        variants.push(x25519);
        let mut no_crv = good.clone();
        no_crv.crv = None;
        variants.push(no_crv);
        let mut no_x = good.clone();
        no_x.x = None;
        variants.push(no_x);
        let mut short = good.clone();
        short.x = Some(b64url(&[1; 31]));
        variants.push(short);
        let mut long = good.clone();
        long.x = Some(b64url(&[1; 33]));
        variants.push(long);
        let mut padded = good.clone();
        padded.x = Some(format!("{x32}="));
        variants.push(padded);
        let mut std_alphabet = good.clone();
        std_alphabet.x = Some(
            base64::engine::general_purpose::STANDARD.encode(key(1).verifying_key().as_bytes()),
        );
        if std_alphabet.x != good.x {
            variants.push(std_alphabet);
        }
        let mut wrong_alg = good.clone();
        wrong_alg.alg = Some("ES256".into());
        variants.push(wrong_alg);
        // Small-order point (the identity): a weak key.
        let mut weak = good.clone();
        let mut identity = [0u8; 32];
        identity[0] = 1;
        weak.x = Some(b64url(&identity));
        variants.push(weak);
        for jwk in variants {
            assert_eq!(
                verify_event_signature(&ev, std::slice::from_ref(&jwk)),
                Err(SignatureError::KeyNotEd25519 { kid: "k1".into() }),
                "{jwk:?}"
            );
        }
        // Absent alg on the key is fine.
        let mut no_alg = good.clone();
        no_alg.alg = None;
        assert_eq!(verify_event_signature(&ev, &[no_alg]), Ok(()));
        // An unusable key sharing the kid with a usable one does not get in the way.
        let mut oct = good.clone();
        oct.kty = "oct".into();
        assert_eq!(verify_event_signature(&ev, &[oct, good]), Ok(()));
    }

    #[test]
    fn bad_signature() {
        let ev = signed();
        let token = ev[SIGNATURE_MEMBER].as_str().unwrap().to_string();
        let (input, s) = token.rsplit_once('.').unwrap();
        let mut sig = URL_SAFE_NO_PAD.decode(s).unwrap();
        // Wrong key.
        let other = vec![public_jwk("k1", &key(2).verifying_key())];
        assert_eq!(
            verify_event_signature(&ev, &other),
            Err(SignatureError::BadSignature)
        );
        // Truncated / extended signature.
        for bad in [&sig[..63], &[sig.as_slice(), &[0]].concat()[..]] {
            let t = format!("{input}.{}", b64url(bad));
            assert_eq!(verify_token(&t), Err(SignatureError::BadSignature));
        }
        // Flipped bit.
        sig[10] ^= 1;
        assert_eq!(
            verify_token(&format!("{input}.{}", b64url(&sig))),
            Err(SignatureError::BadSignature)
        );
        sig[10] ^= 1;
        // Non-canonical S (S + L) is refused by verify_strict.
        let mut s_plus_l = sig.clone();
        add_group_order(&mut s_plus_l[32..]);
        assert_eq!(
            verify_token(&format!("{input}.{}", b64url(&s_plus_l))),
            Err(SignatureError::BadSignature)
        );
        // A signature over a different header spelling does not verify with this header.
        let (h, p) = input.split_once('.').unwrap();
        let alt = b64url(br#"{"kid":"k1","alg":"EdDSA"}"#);
        assert_ne!(alt, h);
        assert_eq!(
            verify_token(&format!("{alt}.{p}.{}", b64url(&sig))),
            Err(SignatureError::BadSignature)
        );
    }

    /// Adds the Ed25519 group order L to a 32-byte little-endian scalar.
    fn add_group_order(s: &mut [u8]) {
        const L: [u8; 32] = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
            0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ];
        let mut carry = 0u16;
        for (b, l) in s.iter_mut().zip(L) {
            let sum = *b as u16 + l as u16 + carry;
            *b = sum as u8;
            carry = sum >> 8;
        }
    }

    #[test]
    fn payload_not_json() {
        let header = r#"{"alg":"EdDSA","kid":"k1"}"#;
        for payload in [&b"Example of Ed25519 signing"[..], b"{\"a\":1", b"\xff"] {
            let input = format!("{}.{}", b64url(header.as_bytes()), b64url(payload));
            let token = format!(
                "{input}.{}",
                b64url(&key(1).sign(input.as_bytes()).to_bytes())
            );
            assert_eq!(verify_token(&token), Err(SignatureError::PayloadNotJson));
        }
    }

    #[test]
    fn lifted_signature_is_payload_mismatch() {
        let donor = signed();
        let token = donor[SIGNATURE_MEMBER].clone();
        let mut other = event();
        other.insert("event_id".into(), json!("grp-evt-20260714-002"));
        let other = with_sig(other, token);
        assert_eq!(
            verify_event_signature(&other, &keys()),
            Err(SignatureError::PayloadMismatch)
        );
    }

    #[test]
    fn payload_with_signature_member_is_mismatch() {
        // Signing input that includes publisher_signature in the payload (a plausible wrong
        // producer) does not match the profile.
        let ev = with_sig(event(), json!(""));
        let payload = serde_json_canonicalizer::to_vec(&Value::Object(ev.clone())).unwrap();
        let header = r#"{"alg":"EdDSA","kid":"k1"}"#;
        let input = format!("{}.{}", b64url(header.as_bytes()), b64url(&payload));
        let token = format!(
            "{input}.{}",
            b64url(&key(1).sign(input.as_bytes()).to_bytes())
        );
        assert_eq!(verify_token(&token), Err(SignatureError::PayloadMismatch));
        // Non-canonical (serde_json pretty) payload of the right event also mismatches.
        let payload = serde_json::to_vec_pretty(&Value::Object(event())).unwrap();
        let input = format!("{}.{}", b64url(header.as_bytes()), b64url(&payload));
        let token = format!(
            "{input}.{}",
            b64url(&key(1).sign(input.as_bytes()).to_bytes())
        );
        assert_eq!(verify_token(&token), Err(SignatureError::PayloadMismatch));
    }

    #[test]
    fn member_order_and_whitespace_do_not_matter_values_do() {
        let token = sign_event(&event(), "k1", &key(1));
        let texts = [
            format!(
                r#"{{"remediation_hint":"FALLBACK","change_severity":"MEDIUM","affected_component":"rgp-resource-horse-trek-001","change_class":"RESOURCE_STATE","event_timestamp":"2026-07-14T10:23:00Z","session_nonce":"ses-nonce-aep-session-001","publisher_signature":"{token}","publisher_type":"P-TYPE-3","publisher_id":"ponyhouse.myauberge.jp","event_id":"grp-evt-20260714-001"}}"#
            ),
            format!(
                "{{\n  \"publisher_signature\" : \"{token}\",\n\t\"event_id\":\"grp-evt-20260714-001\", \"publisher_id\" :\"ponyhouse.myauberge.jp\",\r\n \"publisher_type\":\"P-TYPE-3\",\"session_nonce\":\"ses-nonce-aep-session-001\",\"event_timestamp\":\"2026-07-14T10:23:00Z\",\"change_class\":\"RESOURCE_STATE\",\"affected_component\":\"rgp-resource-horse-trek-001\",\"change_severity\":\"MEDIUM\",\"remediation_hint\":\"FALLBACK\"\n}}\n"
            ),
            // Escaped spelling of the same string value.
            format!(
                r#"{{"event_id":"grp-evt-20260714-\u0030\u00301","publisher_id":"ponyhouse.myauberge.jp","publisher_type":"P-TYPE-3","publisher_signature":"{token}","session_nonce":"ses-nonce-aep-session-001","event_timestamp":"2026-07-14T10:23:00Z","change_class":"RESOURCE_STATE","affected_component":"rgp-resource-horse-trek-001","change_severity":"MEDIUM","remediation_hint":"FALLBACK"}}"#
            ),
        ];
        for text in &texts {
            let ev: Map<String, Value> = serde_json::from_str(text).unwrap();
            assert_eq!(verify_event_signature(&ev, &keys()), Ok(()), "{text}");
        }
        // Changing any value, adding or removing a member breaks it.
        let base = with_sig(event(), token.clone().into());
        for (name, value) in [
            ("event_id", json!("grp-evt-20260714-002")),
            ("publisher_id", json!("other.example")),
            ("publisher_type", json!("P-TYPE-2")),
            ("session_nonce", json!("ses-nonce-other")),
            ("event_timestamp", json!("2026-07-14T10:23:01Z")),
            ("change_class", json!("POLICY_UPDATE")),
            ("affected_component", json!("rgp-resource-horse-trek-002")),
            ("change_severity", json!("CRITICAL")),
            ("remediation_hint", json!("RETRY")),
            ("remediation_hint", json!(null)),
            ("extra", json!(1)),
        ] {
            let mut ev = base.clone();
            ev.insert(name.into(), value);
            assert_eq!(
                verify_event_signature(&ev, &keys()),
                Err(SignatureError::PayloadMismatch),
                "{name}"
            );
        }
        let mut ev = base.clone();
        ev.remove("remediation_hint");
        assert_eq!(
            verify_event_signature(&ev, &keys()),
            Err(SignatureError::PayloadMismatch)
        );
    }

    #[test]
    fn number_spelling_does_not_matter() {
        // RFC 8785 canonicalizes numbers: 100, 1e2 and 100.0 are the same value.
        let mut ev = event();
        ev.insert("n".into(), json!(100));
        let token = sign_event(&ev, "k1", &key(1));
        for spelling in ["100", "1e2", "100.0", "1E+2"] {
            let text = format!(r#"{{"n":{spelling},"publisher_signature":"{token}"}}"#);
            let mut received: Map<String, Value> = serde_json::from_str(&text).unwrap();
            for (k, v) in event() {
                received.insert(k, v);
            }
            assert_eq!(
                verify_event_signature(&received, &keys()),
                Ok(()),
                "{spelling}"
            );
        }
        ev.insert("n".into(), json!(101));
        let ev = with_sig(ev, token.into());
        assert_eq!(
            verify_event_signature(&ev, &keys()),
            Err(SignatureError::PayloadMismatch)
        );
    }

    #[test]
    fn pinned_token() {
        // Corpus byte-identity: header spelling, JCS payload and deterministic Ed25519 together.
        assert_eq!(sign_event(&event(), "k1", &key(1)), PINNED_TOKEN);
    }

    // Cross-checked with Python `cryptography` (Ed25519PrivateKey.from_private_bytes([1; 32])).
    const PINNED_TOKEN: &str = "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJhZmZlY3RlZF9jb21wb25lbnQiOiJyZ3AtcmVzb3VyY2UtaG9yc2UtdHJlay0wMDEiLCJjaGFuZ2VfY2xhc3MiOiJSRVNPVVJDRV9TVEFURSIsImNoYW5nZV9zZXZlcml0eSI6Ik1FRElVTSIsImV2ZW50X2lkIjoiZ3JwLWV2dC0yMDI2MDcxNC0wMDEiLCJldmVudF90aW1lc3RhbXAiOiIyMDI2LTA3LTE0VDEwOjIzOjAwWiIsInB1Ymxpc2hlcl9pZCI6InBvbnlob3VzZS5teWF1YmVyZ2UuanAiLCJwdWJsaXNoZXJfdHlwZSI6IlAtVFlQRS0zIiwicmVtZWRpYXRpb25faGludCI6IkZBTExCQUNLIiwic2Vzc2lvbl9ub25jZSI6InNlcy1ub25jZS1hZXAtc2Vzc2lvbi0wMDEifQ.6MkV2o3dm6LEPN4uE81J2j3oQc56RgITSWJX9sVxxoRvwrrnHPDa22ByqYbNLLdjDQ33NmpH3PZuc7GAMJQZCg";

    #[test]
    fn check_order() {
        // Bad compact form wins over everything.
        assert_eq!(verify_token("a.b"), Err(SignatureError::NotCompact));
        // alg before kid: HS256 without kid → AlgHmac.
        let payload = canonical_payload(&event());
        assert_eq!(
            verify_token(&token_with_header(r#"{"alg":"HS256"}"#, &payload, &[1; 32])),
            Err(SignatureError::AlgHmac {
                alg: "HS256".into()
            })
        );
        // kid before key type before signature: unknown kid with a garbage signature.
        assert_eq!(
            verify_token(&token_with_header(
                r#"{"alg":"EdDSA","kid":"zz"}"#,
                &payload,
                &[1; 5]
            )),
            Err(SignatureError::UnknownKid { kid: "zz".into() })
        );
        // Signature before payload: a bad signature over a non-JSON payload is BadSignature.
        assert_eq!(
            verify_token(&token_with_header(
                r#"{"alg":"EdDSA","kid":"k1"}"#,
                b"not json",
                &[1; 64]
            )),
            Err(SignatureError::BadSignature)
        );
    }

    #[test]
    fn rfc8037_a4_signature_step() {
        // RFC 8037 Appendix A.1 / A.4.
        let token = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg";
        let jwk = Jwk {
            kty: "OKP".into(),
            crv: Some("Ed25519".into()),
            x: Some("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo".into()),
            kid: None,
            alg: None,
            k: None,
        };
        let jws = CompactJws::parse(token).unwrap();
        let header = check_header(&jws.header).unwrap();
        assert_eq!(header.get("alg"), Some(&json!("EdDSA")));
        assert_eq!(jws.payload, b"Example of Ed25519 signing");
        let vk = ed25519_key(&jwk).expect("RFC 8037 key is usable");
        assert_eq!(
            verify_signature_step(jws.signing_input.as_bytes(), &jws.signature, &[vk]),
            Ok(())
        );
        // Tampered input fails.
        assert_eq!(
            verify_signature_step(b"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZQ", &jws.signature, &[vk]),
            Err(SignatureError::BadSignature)
        );
        // Deterministic Ed25519: the RFC's private key d reproduces the RFC's signature.
        let d = URL_SAFE_NO_PAD
            .decode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A")
            .unwrap();
        let sk = SigningKey::from_bytes(&d.try_into().unwrap());
        assert_eq!(sk.verifying_key(), vk);
        assert_eq!(
            sk.sign(jws.signing_input.as_bytes()).to_bytes().as_slice(),
            jws.signature.as_slice()
        );
        // Through the full verifier the token has no kid.
        let ev = with_sig(event(), token.into());
        assert_eq!(
            verify_event_signature(&ev, &[jwk]),
            Err(SignatureError::MissingKid)
        );
    }

    #[test]
    fn display_messages() {
        let all = [
            SignatureError::MissingSignature { found: "absent" },
            SignatureError::MissingSignature { found: "number" },
            SignatureError::NotCompact,
            SignatureError::HeaderNotJson,
            SignatureError::CriticalHeader,
            SignatureError::UnencodedPayload,
            SignatureError::HeaderMissingAlg,
            SignatureError::AlgNone,
            SignatureError::AlgHmac {
                alg: "HS256".into(),
            },
            SignatureError::AlgUnsupported {
                alg: "RS256".into(),
            },
            SignatureError::AlgUnsupported { alg: "null".into() },
            SignatureError::MissingKid,
            SignatureError::UnknownKid { kid: "k9".into() },
            SignatureError::KeyNotEd25519 { kid: "k1".into() },
            SignatureError::BadSignature,
            SignatureError::PayloadNotJson,
            SignatureError::PayloadMismatch,
        ];
        for e in &all {
            assert!(!e.to_string().is_empty());
            assert!(!e.code().is_empty());
        }
        assert!(SignatureError::AlgHmac {
            alg: "HS256".into()
        }
        .to_string()
        .contains("\"HS256\""));
        assert!(SignatureError::AlgUnsupported {
            alg: "RS256".into()
        }
        .to_string()
        .contains("\"RS256\""));
        assert!(SignatureError::AlgUnsupported { alg: "null".into() }
            .to_string()
            .contains("`alg` null"));
        assert!(SignatureError::UnknownKid { kid: "k9".into() }
            .to_string()
            .contains("\"k9\""));
    }
}
