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
    // canonicalizer refuses, so this cannot fail. Numbers come out as RFC 8785 asks, as their
    // IEEE 754 doubles, integers included: 9007199254740993 is written 9007199254740992
    // (tests: integer_above_2_pow_53_is_canonicalized_as_its_double).
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

/// A publisher's keys decoded once: each JWK's `kid` and, when it is a usable Ed25519 key (step 7),
/// the key itself. Decoding a JWK (base64url, point decompression, the weak-key check) was about a
/// twelfth of every admission; a receiver decodes its publishers' keys once per session instead.
#[derive(Clone, Debug)]
pub struct DecodedKeys {
    keys: Vec<(Option<String>, Option<VerifyingKey>)>,
}

impl DecodedKeys {
    pub fn new(keys: &[Jwk]) -> Self {
        DecodedKeys {
            keys: keys
                .iter()
                .map(|jwk| (jwk.kid.clone(), ed25519_key(jwk)))
                .collect(),
        }
    }
}

/// Verifies the `publisher_signature` of a received `event` against the publisher's `keys`,
/// following the profile and check order of the module documentation.
pub fn verify_event_signature(
    event: &Map<String, Value>,
    keys: &[Jwk],
) -> Result<(), SignatureError> {
    verify_event_signature_decoded(event, &DecodedKeys::new(keys))
}

/// As [`verify_event_signature`], with the publisher's keys already decoded.
pub fn verify_event_signature_decoded(
    event: &Map<String, Value>,
    keys: &DecodedKeys,
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
    let candidates: Vec<Option<VerifyingKey>> = keys
        .keys
        .iter()
        .filter(|(key_id, _)| key_id.as_deref() == Some(kid.as_str()))
        .map(|(_, key)| *key)
        .collect();
    if candidates.is_empty() {
        return Err(SignatureError::UnknownKid { kid: kid.clone() });
    }
    let usable: Vec<VerifyingKey> = candidates.into_iter().flatten().collect();
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
mod tests;
