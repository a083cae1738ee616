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
    let token = token_signed_with_header(r#"{"alg":"EdDSA","kid":"k1","crit":["exp"],"exp":1}"#);
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
    std_alphabet.x =
        Some(base64::engine::general_purpose::STANDARD.encode(key(1).verifying_key().as_bytes()));
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
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
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

/// RFC 8785 writes every number as the ECMAScript form of its IEEE 754 double, so an integer
/// above 2^53 becomes the nearest double: 9007199254740993 (2^53 + 1) is written
/// 9007199254740992. `canonical_payload` does so (serde_json_canonicalizer writes integers
/// through f64), and the receiver compares payloads on that form: a token whose payload carries
/// the digits as sent is refused, one carrying the RFC 8785 form is accepted, whether the line
/// holds 9007199254740993 or 9007199254740992. Lines are read with `parse_event`, as the receiver
/// reads them.
#[test]
fn integer_above_2_pow_53_is_canonicalized_as_its_double() {
    let mut ev = event();
    ev.insert("n".into(), json!(9_007_199_254_740_993_u64));
    let rfc8785 = String::from_utf8(canonical_payload(&ev)).unwrap();
    assert!(rfc8785.contains(r#""n":9007199254740992,"#), "{rfc8785}");
    let digits = rfc8785.replace("9007199254740992", "9007199254740993");
    let header = r#"{"alg":"EdDSA","kid":"k1"}"#;
    let token = |payload: &str| {
        let input = format!(
            "{}.{}",
            b64url(header.as_bytes()),
            b64url(payload.as_bytes())
        );
        format!(
            "{input}.{}",
            b64url(&key(1).sign(input.as_bytes()).to_bytes())
        )
    };
    let cases = [
        (
            &digits,
            9_007_199_254_740_993_u64,
            Err(SignatureError::PayloadMismatch),
        ),
        (&rfc8785, 9_007_199_254_740_993, Ok(())),
        (&rfc8785, 9_007_199_254_740_992, Ok(())),
    ];
    for (payload, sent, want) in cases {
        let mut received = ev.clone();
        received.insert("n".into(), json!(sent));
        // serde_json writes a u64 digit for digit, so the line carries `sent` as it is.
        let line = Value::Object(with_sig(received, Value::String(token(payload)))).to_string();
        assert!(line.contains(&format!(r#""n":{sent}"#)), "{line}");
        let (_, parsed) = crate::event::parse_event(line.as_bytes());
        assert_eq!(
            verify_event_signature(&parsed.unwrap().object, &keys()),
            want,
            "payload {payload}, line with {sent}"
        );
    }
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
