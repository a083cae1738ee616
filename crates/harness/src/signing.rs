//! Signed results: an SSH signature (SSHSIG, namespace [`NAMESPACE`]) over a results file's exact
//! bytes, made with an OpenSSH Ed25519 key and checked against a public key or an OpenSSH
//! `allowed_signers` file, so that anyone verifies it with `ssh-keygen -Y verify` and no agentconf
//! at all. The format is RustCrypto's `ssh-key`; nothing here computes a signature by hand.
//!
//! What a signature proves: the holder of that key vouched for these bytes. What it does not: that
//! the run behind them was honest. Only re-running the claim (`agentconf claim verify -- COMMAND`)
//! shows that the statuses are what the implementation does.
//!
//! Every input here is untrusted (a key, a signature, an `allowed_signers` file handed to
//! `report` or `claim verify`): each is read with a size bound, and anything malformed is a
//! [`SignatureError`] with one line of message, never a panic.

use std::fmt;
use std::io::Read as _;
use std::path::Path;

use ssh_key::{HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

/// The SSHSIG namespace of a results file's signature (`ssh-keygen -Y … -n agentconf-results`):
/// a signature made for anything else (a git commit, a file) is never taken for one.
pub const NAMESPACE: &str = "agentconf-results";

/// What the signature file of `RESULTS` is called: `RESULTS.sig`, beside it.
pub fn signature_path(results: &Path) -> std::path::PathBuf {
    let mut name = results.as_os_str().to_owned();
    name.push(".sig");
    std::path::PathBuf::from(name)
}

/// The environment variable that names the signing key when `--sign` is not given (for CI): a
/// path to the key file, or the key itself (text starting `-----BEGIN OPENSSH PRIVATE KEY-----`,
/// as a CI secret holds it).
pub const SIGNING_KEY_VAR: &str = "AGENTCONF_SIGNING_KEY";

/// The most bytes a private key file, a public key file or a signature may have: an Ed25519 key
/// is a few hundred.
const MAX_KEY_BYTES: u64 = 64 << 10;
/// The most bytes an `allowed_signers` file may have.
const MAX_SIGNERS_BYTES: u64 = 1 << 20;

/// Why a key, a signature or a list of signers could not be used, or a signature does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureError {
    /// A file that could not be read (missing, a directory, a FIFO, an I/O error).
    Unreadable { what: String, error: String },
    /// A file larger than any such file is.
    TooLarge { what: String, limit: u64 },
    /// Not an OpenSSH private key.
    NotAPrivateKey { what: String, reason: String },
    /// An encrypted private key: agentconf asks for no passphrase.
    EncryptedKey { what: String },
    /// A key of another algorithm than Ed25519.
    NotEd25519 { what: String, algorithm: String },
    /// A line of an `allowed_signers` file (or a public key file) that cannot be read.
    BadSigners {
        what: String,
        line: usize,
        reason: String,
    },
    /// An `allowed_signers` file with no entry.
    NoSigners { what: String },
    /// Not an SSH signature (`-----BEGIN SSH SIGNATURE-----`).
    NotASignature { what: String, reason: String },
    /// A signature made for another namespace than [`NAMESPACE`].
    WrongNamespace { what: String, found: String },
    /// A signature that does not match the bytes: they were changed after signing, or the
    /// signature is of another file.
    BadSignature { fingerprint: String },
    /// A valid signature by a key the signers given do not allow (for this namespace, now).
    UnknownSigner {
        fingerprint: String,
        signers: String,
    },
    /// Signing failed (the library's words).
    SigningFailed(String),
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::Unreadable { what, error } => write!(f, "cannot read {what}: {error}"),
            SignatureError::TooLarge { what, limit } => {
                write!(
                    f,
                    "{what} is larger than {limit} bytes, which no such file is"
                )
            }
            SignatureError::NotAPrivateKey { what, reason } => write!(
                f,
                "{what} is not an OpenSSH private key ({reason}): give a key file as ssh-keygen \
                 writes it (`ssh-keygen -t ed25519 -f KEY`)"
            ),
            SignatureError::EncryptedKey { what } => write!(
                f,
                "{what} is encrypted with a passphrase, which agentconf does not ask for: sign \
                 with a key without one (for CI, a key kept in the CI's secrets), or sign the \
                 results file yourself with `ssh-keygen -Y sign -n {NAMESPACE} -f KEY FILE`"
            ),
            SignatureError::NotEd25519 { what, algorithm } => write!(
                f,
                "{what} is an {algorithm} key, not an Ed25519 one; agentconf signs and verifies \
                 with Ed25519 keys only (`ssh-keygen -t ed25519`)"
            ),
            SignatureError::BadSigners { what, line, reason } => write!(
                f,
                "{what}, line {line}: {reason} (an allowed_signers line is `PRINCIPALS \
                 [OPTIONS] KEYTYPE BASE64 [COMMENT]`, a public key file `KEYTYPE BASE64 \
                 [COMMENT]`)"
            ),
            SignatureError::NoSigners { what } => {
                write!(
                    f,
                    "{what} names no key (no public key line, no allowed_signers entry)"
                )
            }
            SignatureError::NotASignature { what, reason } => write!(
                f,
                "{what} is not an SSH signature ({reason}): give the .sig file `agentconf run \
                 --sign` or `ssh-keygen -Y sign` wrote"
            ),
            SignatureError::WrongNamespace { what, found } => write!(
                f,
                "{what} was made for the namespace {found:?}, not {NAMESPACE:?}: it is not a \
                 signature of a results file"
            ),
            SignatureError::BadSignature { fingerprint } => write!(
                f,
                "the signature (key {fingerprint}) does not match the file's bytes: the file \
                 was changed after it was signed, or the signature is of another file"
            ),
            SignatureError::UnknownSigner {
                fingerprint,
                signers,
            } => write!(
                f,
                "signed by the key {fingerprint}, which {signers} does not allow to sign \
                 results (not listed, or not for the namespace {NAMESPACE}, or not now)"
            ),
            SignatureError::SigningFailed(e) => write!(f, "cannot sign: {e}"),
        }
    }
}

impl std::error::Error for SignatureError {}

/// Reads at most `limit` bytes of the regular file `path`: more is [`SignatureError::TooLarge`].
fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, SignatureError> {
    let what = path.display().to_string();
    let unreadable = |error: String| SignatureError::Unreadable {
        what: what.clone(),
        error,
    };
    let file = agentconf_json::file::open_regular(path).map_err(|e| unreadable(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(SignatureError::TooLarge { what, limit });
    }
    Ok(bytes)
}

/// The SHA-256 fingerprint of a public key as OpenSSH prints it (`SHA256:…`, unpadded base64).
fn fingerprint_of(key: &ssh_key::public::KeyData) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// An OpenSSH Ed25519 private key, read and checked, ready to sign.
pub struct SigningKey {
    key: PrivateKey,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the private half.
        write!(f, "SigningKey({})", self.fingerprint())
    }
}

impl SigningKey {
    /// The key in the file `path`.
    pub fn read(path: &Path) -> Result<SigningKey, SignatureError> {
        let bytes = read_bounded(path, MAX_KEY_BYTES)?;
        SigningKey::parse(&bytes, &path.display().to_string())
    }

    /// The key [`SIGNING_KEY_VAR`] names, when it is set: the key itself or the path of its file.
    pub fn from_environment() -> Option<Result<SigningKey, SignatureError>> {
        let value = std::env::var_os(SIGNING_KEY_VAR)?;
        let text = value.to_string_lossy();
        Some(if text.trim_start().starts_with("-----BEGIN ") {
            SigningKey::parse(text.as_bytes(), &format!("the key in ${SIGNING_KEY_VAR}"))
        } else {
            SigningKey::read(Path::new(&value))
        })
    }

    /// The key in `bytes` (an OpenSSH private key file's text); `what` names it in messages.
    pub fn parse(bytes: &[u8], what: &str) -> Result<SigningKey, SignatureError> {
        let text = std::str::from_utf8(bytes).map_err(|_| SignatureError::NotAPrivateKey {
            what: what.to_string(),
            reason: "not UTF-8 text".into(),
        })?;
        let key = PrivateKey::from_openssh(text.trim()).map_err(|e| match e {
            // Built for Ed25519 only, the library knows no other algorithm's private key.
            ssh_key::Error::AlgorithmUnknown | ssh_key::Error::AlgorithmUnsupported { .. } => {
                SignatureError::NotEd25519 {
                    what: what.to_string(),
                    algorithm: "other algorithm's".into(),
                }
            }
            e => SignatureError::NotAPrivateKey {
                what: what.to_string(),
                reason: e.to_string(),
            },
        })?;
        if key.is_encrypted() {
            return Err(SignatureError::EncryptedKey {
                what: what.to_string(),
            });
        }
        if key.key_data().ed25519().is_none() {
            return Err(SignatureError::NotEd25519 {
                what: what.to_string(),
                algorithm: key.algorithm().to_string(),
            });
        }
        Ok(SigningKey { key })
    }

    /// A key from a 32-byte Ed25519 seed (tests: keys made the same way every run).
    pub fn from_seed(seed: &[u8; 32], comment: &str) -> SigningKey {
        let pair = ssh_key::private::Ed25519Keypair::from_seed(seed);
        let key = PrivateKey::new(ssh_key::private::KeypairData::Ed25519(pair), comment)
            // An Ed25519 key pair with a comment always makes a key.
            .unwrap_or_else(|e| unreachable!("an Ed25519 key from a seed: {e}"));
        SigningKey { key }
    }

    /// The key as an OpenSSH private key file (tests write one for `ssh-keygen`).
    pub fn to_openssh(&self) -> String {
        self.key
            .to_openssh(LineEnding::LF)
            .map(|s| s.to_string())
            .unwrap_or_default()
    }

    /// The public half as a `.pub` line: `ssh-ed25519 BASE64 COMMENT`.
    pub fn public_openssh(&self) -> String {
        self.key.public_key().to_openssh().unwrap_or_default()
    }

    /// The public key's 32 bytes (what a DSSE verifier is given).
    pub fn public_bytes(&self) -> [u8; 32] {
        self.key
            .key_data()
            .ed25519()
            .map(|k| k.public.0)
            .unwrap_or([0; 32])
    }

    /// `SHA256:…`, as `ssh-keygen -l` prints it.
    pub fn fingerprint(&self) -> String {
        fingerprint_of(self.key.public_key().key_data())
    }

    /// The key's comment (often who it belongs to).
    pub fn comment(&self) -> &str {
        self.key.comment()
    }

    /// The SSH signature (armored, as `ssh-keygen -Y sign` writes it) of `bytes`, a results file,
    /// in the namespace [`NAMESPACE`] with SHA-512 (ssh-keygen's default).
    pub fn sign_results(&self, bytes: &[u8]) -> Result<String, SignatureError> {
        let sig = self
            .key
            .sign(NAMESPACE, HashAlg::Sha512, bytes)
            .map_err(|e| SignatureError::SigningFailed(e.to_string()))?;
        sig.to_pem(LineEnding::LF)
            .map_err(|e| SignatureError::SigningFailed(e.to_string()))
    }

    /// A bare Ed25519 signature of `message` (DSSE signs its pre-authentication encoding so).
    pub fn sign_ed25519(&self, message: &[u8]) -> [u8; 64] {
        use ed25519_dalek::Signer as _;
        let Some(pair) = self.key.key_data().ed25519() else {
            // `parse` and `from_seed` make Ed25519 keys only.
            unreachable!("a SigningKey is an Ed25519 key")
        };
        ed25519_dalek::SigningKey::from(&pair.private)
            .sign(message)
            .to_bytes()
    }
}

/// One key allowed to sign: an `allowed_signers` entry, or the key of a public key file.
#[derive(Clone, Debug)]
struct Allowed {
    principals: Vec<String>,
    /// `namespaces="…"`: the patterns of the namespaces the key may sign for (any, when absent).
    namespaces: Option<String>,
    valid_after: Option<i64>,
    valid_before: Option<i64>,
    key: ssh_key::public::KeyData,
    comment: String,
}

/// The keys allowed to sign results: an OpenSSH `allowed_signers` file (`ssh-keygen -Y verify
/// -f`), or a single public key file (`KEY.pub`).
#[derive(Clone, Debug)]
pub struct Signers {
    what: String,
    allowed: Vec<Allowed>,
}

/// Who signed: the key's fingerprint and comment, and the principals an `allowed_signers` file
/// gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signer {
    /// `SHA256:…`.
    pub fingerprint: String,
    /// The comment of the key as the signers file lists it (empty when none).
    pub comment: String,
    /// The principals (identities) the signers file names for the key; none for a `.pub` file.
    pub principals: Vec<String>,
}

impl fmt::Display for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the key {}", self.fingerprint)?;
        if !self.comment.is_empty() {
            write!(f, " ({})", self.comment)?;
        }
        if !self.principals.is_empty() {
            write!(f, ", principal {}", self.principals.join(", "))?;
        }
        Ok(())
    }
}

impl Signers {
    /// The signers in the file `path`: an `allowed_signers` file or a public key file.
    pub fn read(path: &Path) -> Result<Signers, SignatureError> {
        let bytes = read_bounded(path, MAX_SIGNERS_BYTES)?;
        let what = path.display().to_string();
        let text = std::str::from_utf8(&bytes).map_err(|_| SignatureError::BadSigners {
            what: what.clone(),
            line: 1,
            reason: "not UTF-8 text".into(),
        })?;
        Signers::parse(text, &what)
    }

    /// The signers in `text`; `what` names it in messages. Blank lines and `#` comments are
    /// skipped; a line that starts with a key type is a public key (no principals), any other
    /// `PRINCIPALS [OPTIONS] KEYTYPE BASE64 [COMMENT]`. Options: `namespaces="…"` (honoured: the
    /// key signs results only if [`NAMESPACE`] matches one of its patterns), `valid-after` and
    /// `valid-before` (honoured against the current time), `cert-authority` (the line is a
    /// certificate authority, whose key never signs a file itself: such lines are left out);
    /// any other option is an error, as it is for ssh-keygen.
    pub fn parse(text: &str, what: &str) -> Result<Signers, SignatureError> {
        let mut allowed = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: String| SignatureError::BadSigners {
                what: what.to_string(),
                line: i + 1,
                reason,
            };
            if let Some(entry) = parse_line(line).map_err(bad)? {
                allowed.push(entry);
            }
        }
        if allowed.is_empty() {
            return Err(SignatureError::NoSigners {
                what: what.to_string(),
            });
        }
        Ok(Signers {
            what: what.to_string(),
            allowed,
        })
    }

    /// Checks `signature` (the armored text of a `.sig` file, named `what` in messages) over
    /// `bytes`, the results file's exact bytes: made in [`NAMESPACE`], valid, and by a key these
    /// signers allow for it now. Returns who signed.
    pub fn verify(
        &self,
        bytes: &[u8],
        signature: &[u8],
        what: &str,
    ) -> Result<Signer, SignatureError> {
        let not_a_signature = |reason: String| SignatureError::NotASignature {
            what: what.to_string(),
            reason,
        };
        let text =
            std::str::from_utf8(signature).map_err(|_| not_a_signature("not text".into()))?;
        let sig = SshSig::from_pem(text.trim()).map_err(|e| not_a_signature(e.to_string()))?;
        if sig.namespace() != NAMESPACE {
            return Err(SignatureError::WrongNamespace {
                what: what.to_string(),
                found: agentconf_json::text::clip(sig.namespace(), 80),
            });
        }
        let key = sig.public_key().clone();
        let fingerprint = fingerprint_of(&key);
        PublicKey::new(key.clone(), "")
            .verify(NAMESPACE, bytes, &sig)
            .map_err(|_| SignatureError::BadSignature {
                fingerprint: fingerprint.clone(),
            })?;
        let now = now_seconds();
        let entries: Vec<&Allowed> = self
            .allowed
            .iter()
            .filter(|a| a.key == key)
            .filter(|a| {
                a.namespaces
                    .as_deref()
                    .is_none_or(|p| pattern_list_matches(p, NAMESPACE))
            })
            .filter(|a| a.valid_after.is_none_or(|t| now >= t))
            .filter(|a| a.valid_before.is_none_or(|t| now <= t))
            .collect();
        let Some(first) = entries.first() else {
            return Err(SignatureError::UnknownSigner {
                fingerprint,
                signers: self.what.clone(),
            });
        };
        let mut principals: Vec<String> = Vec::new();
        for a in &entries {
            for p in &a.principals {
                if !principals.contains(p) {
                    principals.push(p.clone());
                }
            }
        }
        Ok(Signer {
            fingerprint,
            comment: first.comment.clone(),
            principals,
        })
    }
}

/// Whether `word` is an SSH key type (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-…`, `sk-…`).
fn is_key_type(word: &str) -> bool {
    word.starts_with("ssh-") || word.starts_with("ecdsa-sha2-") || word.starts_with("sk-")
}

/// One non-empty, non-comment line; `None` for a `cert-authority` line.
fn parse_line(line: &str) -> Result<Option<Allowed>, String> {
    let (principals, rest) = if is_key_type(first_word(line)) {
        (Vec::new(), line)
    } else {
        let (field, rest) = split_field(line)?;
        let principals: Vec<String> = unquote(&field)
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| agentconf_json::text::clip(p, 200))
            .collect();
        if principals.is_empty() {
            return Err("no principal".into());
        }
        (principals, rest.trim_start())
    };
    let mut entry = Allowed {
        principals,
        namespaces: None,
        valid_after: None,
        valid_before: None,
        key: ssh_key::public::KeyData::Ed25519(ssh_key::public::Ed25519PublicKey([0; 32])),
        comment: String::new(),
    };
    let rest = if is_key_type(first_word(rest)) {
        rest
    } else {
        let (options, after) = split_field(rest)?;
        for option in split_options(&options)? {
            let (name, value) = match option.split_once('=') {
                Some((n, v)) => (n.to_ascii_lowercase(), Some(unquote(v))),
                None => (option.to_ascii_lowercase(), None),
            };
            match (name.as_str(), value) {
                ("cert-authority", None) => return Ok(None),
                ("namespaces", Some(v)) => entry.namespaces = Some(v),
                ("valid-after", Some(v)) => entry.valid_after = Some(parse_time(&v)?),
                ("valid-before", Some(v)) => entry.valid_before = Some(parse_time(&v)?),
                _ => {
                    return Err(format!(
                        "an option agentconf does not know: {}",
                        agentconf_json::text::clip(&option, 60)
                    ))
                }
            }
        }
        after.trim_start()
    };
    let mut words = rest.splitn(3, char::is_whitespace);
    let (Some(kind), Some(base64)) = (words.next(), words.next()) else {
        return Err("no key type and key".into());
    };
    let public = PublicKey::from_openssh(&format!("{kind} {base64}"))
        .map_err(|e| format!("not a public key ({e})"))?;
    entry.key = public.key_data().clone();
    entry.comment = agentconf_json::text::clip(words.next().unwrap_or("").trim(), 200);
    Ok(Some(entry))
}

fn first_word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

/// The field at the start of `text` up to the first whitespace outside double quotes, and the
/// rest.
fn split_field(text: &str) -> Result<(String, &str), String> {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => return Ok((text[..i].to_string(), &text[i..])),
            _ => {}
        }
    }
    if quoted {
        return Err("a quote that is not closed".into());
    }
    Ok((text.to_string(), ""))
}

/// Options separated by commas outside double quotes.
fn split_options(options: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in options.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ',' if !quoted => out.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    if quoted {
        return Err("a quote that is not closed".into());
    }
    out.push(current);
    Ok(out.into_iter().filter(|o| !o.is_empty()).collect())
}

fn unquote(text: &str) -> String {
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text)
        .to_string()
}

/// OpenSSH's pattern lists (`match_pattern_list`): comma-separated patterns with `*` and `?`; a
/// pattern starting with `!` that matches refuses, whatever else matches.
fn pattern_list_matches(list: &str, name: &str) -> bool {
    let mut matched = false;
    for pattern in list.split(',').map(str::trim) {
        match pattern.strip_prefix('!') {
            Some(negated) if wildcard(negated.as_bytes(), name.as_bytes()) => return false,
            Some(_) => {}
            None => matched |= wildcard(pattern.as_bytes(), name.as_bytes()),
        }
    }
    matched
}

/// `*` any run of characters, `?` any one.
fn wildcard(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            wildcard(&pattern[1..], name) || (!name.is_empty() && wildcard(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => wildcard(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => wildcard(&pattern[1..], &name[1..]),
        _ => false,
    }
}

/// Seconds since the Unix epoch of an allowed_signers time: `YYYYMMDD` or `YYYYMMDDHHMM[SS]`, in
/// UTC when it ends with `Z`, local time otherwise (as ssh-keygen reads it).
fn parse_time(text: &str) -> Result<i64, String> {
    let bad = || format!("not a time: {}", agentconf_json::text::clip(text, 40));
    let (digits, utc) = match text.strip_suffix(['Z', 'z']) {
        Some(d) => (d, true),
        None => (text, false),
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) || ![8, 12, 14].contains(&digits.len()) {
        return Err(bad());
    }
    let field = |from: usize, to: usize| -> i64 {
        digits.get(from..to).map_or(0, |s| s.parse().unwrap_or(0))
    };
    let (year, month, day) = (field(0, 4), field(4, 6), field(6, 8));
    let (hour, minute, second) = (field(8, 10), field(10, 12), field(12, 14));
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(bad());
    }
    if utc {
        return Ok(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second);
    }
    // Local time needs the C library's time-zone database (mktime(3)): no system call wraps it.
    // SAFETY: all-zero bytes are a valid `tm` (integers, and a null `tm_zone` where there is
    // one, which mktime never reads).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = (year - 1900) as libc::c_int;
    tm.tm_mon = (month - 1) as libc::c_int;
    tm.tm_mday = day as libc::c_int;
    tm.tm_hour = hour as libc::c_int;
    tm.tm_min = minute as libc::c_int;
    tm.tm_sec = second as libc::c_int;
    tm.tm_isdst = -1;
    // SAFETY: mktime(3) reads and normalises the valid local it is given, and keeps no pointer
    // to it.
    let t = unsafe { libc::mktime(&mut tm) };
    if t == -1 {
        return Err(bad());
    }
    Ok(t as i64)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> SigningKey {
        SigningKey::from_seed(&[n; 32], &format!("key-{n}@example"))
    }

    fn pub_b64(k: &SigningKey) -> String {
        k.public_openssh()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_signature_verifies_over_the_same_bytes_only() {
        let k = key(1);
        let sig = k.sign_results(b"results\n").unwrap();
        assert!(sig.starts_with("-----BEGIN SSH SIGNATURE-----"));
        let signers = Signers::parse(&k.public_openssh(), "KEY.pub").unwrap();
        let who = signers
            .verify(b"results\n", sig.as_bytes(), "R.sig")
            .unwrap();
        assert_eq!(who.fingerprint, k.fingerprint());
        assert!(who.fingerprint.starts_with("SHA256:"));
        assert_eq!(who.comment, "key-1@example");
        assert!(matches!(
            signers.verify(b"results!\n", sig.as_bytes(), "R.sig"),
            Err(SignatureError::BadSignature { .. })
        ));
        // Another key's list: the signature holds, the signer is not allowed.
        let other = Signers::parse(&key(2).public_openssh(), "OTHER.pub").unwrap();
        assert!(matches!(
            other.verify(b"results\n", sig.as_bytes(), "R.sig"),
            Err(SignatureError::UnknownSigner { .. })
        ));
        // Deterministic: Ed25519 signs the same bytes the same way.
        assert_eq!(sig, k.sign_results(b"results\n").unwrap());
    }

    #[test]
    fn allowed_signers_lines_principals_and_namespaces() {
        let (a, b, c) = (key(1), key(2), key(3));
        let text = format!(
            "# vendors\n\n\
             alice@example.com,ci@example.com ssh-ed25519 {} alice's laptop\n\
             bob@example.com namespaces=\"git,file\" ssh-ed25519 {}\n\
             carol@example.com namespaces=\"agentconf-*,!agentconf-results\" ssh-ed25519 {}\n\
             ca@example.com cert-authority ssh-ed25519 {}\n",
            pub_b64(&a),
            pub_b64(&b),
            pub_b64(&c),
            pub_b64(&c),
        );
        let signers = Signers::parse(&text, "allowed_signers").unwrap();
        let bytes = b"x";
        let who = signers
            .verify(bytes, a.sign_results(bytes).unwrap().as_bytes(), "s")
            .unwrap();
        assert_eq!(who.principals, ["alice@example.com", "ci@example.com"]);
        assert_eq!(who.comment, "alice's laptop");
        // bob may sign git commits and files, not results; carol's negation refuses results.
        for k in [&b, &c] {
            let e = signers
                .verify(bytes, k.sign_results(bytes).unwrap().as_bytes(), "s")
                .unwrap_err();
            assert!(matches!(e, SignatureError::UnknownSigner { .. }), "{e}");
        }
        let namespaced = format!(
            "dave namespaces=\"agentconf-*\" ssh-ed25519 {}\n",
            pub_b64(&b)
        );
        let signers = Signers::parse(&namespaced, "s").unwrap();
        assert!(signers
            .verify(bytes, b.sign_results(bytes).unwrap().as_bytes(), "s")
            .is_ok());
    }

    #[test]
    fn time_windows_are_honoured() {
        let k = key(4);
        let bytes = b"y";
        let sig = k.sign_results(bytes).unwrap();
        let expired = format!("e valid-before=\"20000101Z\" ssh-ed25519 {}\n", pub_b64(&k));
        assert!(Signers::parse(&expired, "s")
            .unwrap()
            .verify(bytes, sig.as_bytes(), "s")
            .is_err());
        let open = format!(
            "e valid-after=\"20000101Z\",valid-before=\"99991231235959Z\" ssh-ed25519 {}\n",
            pub_b64(&k)
        );
        assert!(Signers::parse(&open, "s")
            .unwrap()
            .verify(bytes, sig.as_bytes(), "s")
            .is_ok());
        assert_eq!(parse_time("19700102Z"), Ok(86_400));
        assert_eq!(parse_time("197001010001Z"), Ok(60));
    }

    /// Untrusted input gives a typed error with one line, never a panic.
    #[test]
    fn malformed_input_is_a_typed_error() {
        let k = key(5);
        for text in [
            "",
            "# only a comment\n",
            "alice\n",
            "alice ssh-ed25519\n",
            "alice ssh-ed25519 !!!notbase64\n",
            "alice namespaces=\"unclosed ssh-ed25519 AAAA\n",
            "alice no-touch-required ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==\n",
            "alice valid-after=\"2024\" ssh-ed25519 AAAA\n",
            "\u{0}\u{1}\u{2}",
        ] {
            let e = Signers::parse(text, "s").unwrap_err();
            assert!(!e.to_string().contains('\n'), "{e}");
        }
        for sig in [
            &b""[..],
            b"-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n",
            b"\xff\xfe",
            b"garbage",
        ] {
            let signers = Signers::parse(&k.public_openssh(), "k").unwrap();
            let e = signers.verify(b"z", sig, "s").unwrap_err();
            assert!(matches!(e, SignatureError::NotASignature { .. }), "{e}");
        }
        for key_text in [
            &b""[..],
            b"ssh-ed25519 AAAA",
            b"-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
            b"\xff",
        ] {
            let e = SigningKey::parse(key_text, "k").unwrap_err();
            assert!(matches!(e, SignatureError::NotAPrivateKey { .. }), "{e}");
        }
        // A signature made for another namespace is not a results signature.
        let other_ns = k
            .key
            .sign("git", HashAlg::Sha512, b"z")
            .unwrap()
            .to_pem(LineEnding::LF)
            .unwrap();
        let signers = Signers::parse(&k.public_openssh(), "k").unwrap();
        assert!(matches!(
            signers.verify(b"z", other_ns.as_bytes(), "s"),
            Err(SignatureError::WrongNamespace { .. })
        ));
    }

    #[test]
    fn the_signature_file_is_beside_the_results() {
        assert_eq!(
            signature_path(Path::new("out/results.jsonl")),
            Path::new("out/results.jsonl.sig")
        );
    }
}
