//! Builders of malformed and attack JWS tokens for the signature vectors of
//! `grp/admission/admission/*`: raw assembly of a compact JWS from any header, and the HS256
//! algorithm-confusion token.
//!
//! They live in the corpus generator, not in the GRP reference: only the vectors need to mint such
//! tokens; the reference only has to refuse them (`agentconf_grp::jws::verify_event_signature`
//! classifies every HMAC `alg` as `SignatureError::AlgHmac`).

use agentconf_grp::jws::{b64url, canonical_payload};
use hmac::{Hmac, Mac as _};
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::Sha256;

/// Raw assembly of a compact JWS from a header text, payload bytes and signature bytes, each
/// base64url-encoded without padding. No check of any kind: for building attack vectors.
pub fn token_with_header(header_json: &str, payload: &[u8], signature: &[u8]) -> String {
    format!(
        "{}.{}.{}",
        b64url(header_json.as_bytes()),
        b64url(payload),
        b64url(signature)
    )
}

/// HMAC-SHA256 (RFC 2104 with SHA-256).
pub fn hmac_sha256(secret: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// Protected header in the exact member order `alg`, `kid`, spelled as the reference's
/// `jws::sign_event` spells its own.
#[derive(Serialize)]
struct Header<'a> {
    alg: &'a str,
    kid: &'a str,
}

/// A genuinely valid HS256 JWS over the profile's payload of `event`: header
/// `{"alg":"HS256","kid":"<kid>"}`, payload as in `agentconf_grp::jws::sign_event`, signature
/// HMAC-SHA256 keyed with `secret`. With `secret` = the bytes of the publisher's Ed25519 public
/// key (or its `x` text) this is the classic algorithm-confusion token a verifier that lets the
/// header pick the algorithm would accept; the reference rejects it as `SignatureError::AlgHmac`.
pub fn hmac_sha256_token(event: &Map<String, Value>, kid: &str, secret: &[u8]) -> String {
    let header = serde_json::to_string(&Header { alg: "HS256", kid })
        .expect("a struct of strings always serializes");
    let signing_input = format!(
        "{}.{}",
        b64url(header.as_bytes()),
        b64url(&canonical_payload(event))
    );
    let mac = hmac_sha256(secret, signing_input.as_bytes());
    format!("{signing_input}.{}", b64url(&mac))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentconf_grp::jws::{
        public_jwk, verify_event_signature, Jwk, SignatureError, SIGNATURE_MEMBER,
    };
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    use ed25519_dalek::SigningKey;
    use serde_json::json;

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

    use agentconf_json::hex::lower as hex;

    #[test]
    fn hmac_sha256_rfc4231() {
        // RFC 4231 test case 2.
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // RFC 4231 test case 6 (key longer than the block size).
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn token_with_header_is_raw_assembly() {
        let token = token_with_header(r#"{"alg":"none"}"#, b"{}", b"");
        assert_eq!(token, "eyJhbGciOiJub25lIn0.e30.");
    }

    #[test]
    fn hmac_confusion_is_alg_hmac() {
        let ev = event();
        let vk = SigningKey::from_bytes(&[1; 32]).verifying_key();
        let keys = vec![public_jwk("k1", &vk)];
        // Secret = the raw 32 bytes behind x, and = the x text itself (both confusions seen).
        let x_text = keys[0].x.clone().unwrap();
        for secret in [vk.as_bytes().as_slice(), x_text.as_bytes()] {
            let token = hmac_sha256_token(&ev, "k1", secret);
            // It really is a valid HS256 token over the profile payload.
            let (input, mac) = token.rsplit_once('.').unwrap();
            assert_eq!(
                URL_SAFE_NO_PAD.decode(mac).unwrap(),
                hmac_sha256(secret, input.as_bytes())
            );
            let header = URL_SAFE_NO_PAD
                .decode(token.split('.').next().unwrap())
                .unwrap();
            assert_eq!(header, br#"{"alg":"HS256","kid":"k1"}"#);
            let payload = URL_SAFE_NO_PAD
                .decode(token.split('.').nth(1).unwrap())
                .unwrap();
            assert_eq!(payload, canonical_payload(&ev));
            // Registry holding both the Ed25519 key and an oct key with that secret.
            let mut ks = keys.clone();
            ks.push(Jwk {
                kty: "oct".into(),
                crv: None,
                x: None,
                kid: Some("k1".into()),
                alg: Some("HS256".into()),
                k: Some(b64url(secret)),
            });
            let mut received = ev.clone();
            received.insert(SIGNATURE_MEMBER.to_string(), Value::String(token));
            assert_eq!(
                verify_event_signature(&received, &ks),
                Err(SignatureError::AlgHmac {
                    alg: "HS256".into()
                })
            );
        }
    }
}
