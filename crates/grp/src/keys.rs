//! Deterministic Ed25519 test keys for the GRP corpus.
//!
//! **These are public test keys. Never use them for anything real.** Every key derived here is a
//! pure function of public strings (a vector id and a label), so anyone can recompute the private
//! key: they exist only so that the conformance corpus regenerates byte-identically (Ed25519
//! signatures are deterministic, so the same key and event always yield the same JWS).
//!
//! Derivation (`v1`): seed = SHA-256 of the bytes
//! `"agentconf-grp-key-v1" 0x00 vector_id 0x00 label`, used as the 32-byte Ed25519 secret key
//! (RFC 8032 §5.1.5). The NUL separators keep `("a", "bc")` and `("ab", "c")` apart; neither
//! input may usefully contain NUL (it would make the split ambiguous), which corpus ids never do.

use ed25519_dalek::SigningKey;
use sha2::{Digest as _, Sha256};

/// Domain-separation prefix of the derivation, including its trailing NUL.
pub const DERIVATION_PREFIX: &[u8] = b"agentconf-grp-key-v1\0";

/// The 32-byte seed for `(vector_id, label)`; see the module documentation.
pub fn derive_seed(vector_id: &str, label: &str) -> [u8; 32] {
    Sha256::new()
        .chain_update(DERIVATION_PREFIX)
        .chain_update(vector_id.as_bytes())
        .chain_update([0u8])
        .chain_update(label.as_bytes())
        .finalize()
        .into()
}

/// The deterministic **public test** signing key for `(vector_id, label)`, e.g.
/// `derive_signing_key("grp-dup-001", "publisher-a")`. Never use it for anything real.
pub fn derive_signing_key(vector_id: &str, label: &str) -> SigningKey {
    SigningKey::from_bytes(&derive_seed(vector_id, label))
}

/// Parses a 32-byte Ed25519 seed written as exactly 64 hexadecimal digits (either case, nothing
/// else — no `0x` prefix, no whitespace), as given to `agentconf grp sign --seed`.
pub fn signing_key_from_hex(seed_hex: &str) -> Result<SigningKey, String> {
    if seed_hex.len() != 64 {
        return Err(format!(
            "an Ed25519 seed must be exactly 64 hexadecimal digits (32 bytes), got {} characters",
            seed_hex.chars().count()
        ));
    }
    let mut seed = [0u8; 32];
    for (i, pair) in seed_hex.as_bytes().chunks(2).enumerate() {
        let digit = |c: u8, pos: usize| {
            (c as char).to_digit(16).ok_or_else(|| {
                format!(
                    "an Ed25519 seed must be hexadecimal; character {} is {:?}",
                    pos + 1,
                    seed_hex[pos..].chars().next().unwrap_or('?')
                )
            })
        };
        let hi = digit(pair[0], 2 * i)?;
        let lo = digit(pair[1], 2 * i + 1)?;
        seed[i] = (hi * 16 + lo) as u8;
    }
    Ok(SigningKey::from_bytes(&seed))
}

/// The seed of `key` as 64 lowercase hexadecimal digits (the inverse of [`signing_key_from_hex`]).
pub fn seed_hex(key: &SigningKey) -> String {
    key.to_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivation_is_the_documented_hash() {
        let mut input = b"agentconf-grp-key-v1\0".to_vec();
        input.extend_from_slice(b"grp-vec-001\0publisher-a");
        let expected: [u8; 32] = Sha256::digest(&input).into();
        assert_eq!(derive_seed("grp-vec-001", "publisher-a"), expected);
        assert_eq!(
            derive_signing_key("grp-vec-001", "publisher-a").to_bytes(),
            expected
        );
    }

    #[test]
    fn deterministic_and_distinct() {
        let a = derive_signing_key("v1", "pub");
        assert_eq!(a.to_bytes(), derive_signing_key("v1", "pub").to_bytes());
        assert_ne!(a.to_bytes(), derive_signing_key("v1", "pub2").to_bytes());
        assert_ne!(a.to_bytes(), derive_signing_key("v2", "pub").to_bytes());
        // The separator keeps the two inputs apart.
        assert_ne!(
            derive_seed("a", "bc"),
            derive_seed("ab", "c"),
            "NUL separator must disambiguate"
        );
    }

    #[test]
    fn known_answer() {
        // Pinned so that an accidental change of the derivation (which would silently change
        // every corpus signature) fails here first.
        assert_eq!(
            seed_hex(&derive_signing_key("", "")),
            hex_of(&Sha256::digest(b"agentconf-grp-key-v1\0\0"))
        );
        assert_eq!(
            seed_hex(&derive_signing_key("grp-example", "publisher")),
            PINNED_SEED
        );
    }

    // printf 'agentconf-grp-key-v1\0grp-example\0publisher' | sha256sum
    const PINNED_SEED: &str = "8b25e22bd35ac9eff5f6e010945910967b507229038cd40afde2c5e27d2131dd";

    fn hex_of(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn hex_round_trip_and_errors() {
        let key = derive_signing_key("v", "l");
        let hex = seed_hex(&key);
        assert_eq!(hex.len(), 64);
        assert_eq!(
            signing_key_from_hex(&hex).unwrap().to_bytes(),
            key.to_bytes()
        );
        assert_eq!(
            signing_key_from_hex(&hex.to_uppercase())
                .unwrap()
                .to_bytes(),
            key.to_bytes()
        );
        // RFC 8032 §7.1 test 1: secret key → public key.
        let sk = signing_key_from_hex(
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        )
        .unwrap();
        assert_eq!(
            hex_of(sk.verifying_key().as_bytes()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        let too_short = signing_key_from_hex(&hex[..62]).unwrap_err();
        assert!(too_short.contains("64"), "{too_short}");
        assert!(signing_key_from_hex(&format!("{hex}00")).is_err());
        assert!(signing_key_from_hex(&format!("0x{}", &hex[2..])).is_err());
        let not_hex = signing_key_from_hex(&format!("{}g", &hex[..63])).unwrap_err();
        assert!(
            not_hex.contains("64") && not_hex.contains("'g'"),
            "{not_hex}"
        );
        assert!(signing_key_from_hex(&format!(" {}", &hex[1..])).is_err());
        // Non-ASCII of the right byte length is refused without panicking.
        assert!(signing_key_from_hex(&format!("é{}", &hex[2..])).is_err());
    }
}
