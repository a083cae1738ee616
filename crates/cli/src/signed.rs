//! Signed results at the edge: the signing key found (`--sign`/`--key`, else
//! `AGENTCONF_SIGNING_KEY`), a results file's exact bytes read with a bound, `RESULTS.sig` and the
//! attestation written through the results writer (a fresh temporary file and a rename, never
//! through a link), and a signature checked against the signers given. The signing and checking
//! themselves are `agentconf_harness::signing` and `attestation`.

use crate::error::Sort as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use agentconf_harness::attestation;
use agentconf_harness::results::{self, ResultsFile};
use agentconf_harness::signing::{self, Signer, Signers, SigningKey};

use crate::error::{Error, Result};
use crate::input::open;

/// What a signature proves and what it does not, as every output that shows one says it.
pub const WHAT_A_SIGNATURE_PROVES: &str = "a signature shows who vouched for these exact bytes, \
    not that the run was honest: only a re-run (`agentconf claim verify RESULTS -- COMMAND`) \
    shows the verdict is reproducible";

/// The signing key: the file `flag` names, else the one `AGENTCONF_SIGNING_KEY` gives; `None`
/// when neither is given. Read and checked (Ed25519, no passphrase) before anything runs.
pub fn signing_key(flag: Option<&Path>) -> Result<Option<SigningKey>> {
    match flag {
        Some(path) => Ok(Some(SigningKey::read(path)?)),
        None => SigningKey::from_environment()
            .transpose()
            .map_err(Error::from),
    }
}

/// The exact bytes of the results file `path` (`-`: standard input), at most what a file of
/// `max_cases` result lines can hold.
pub fn results_bytes(path: &Path, max_cases: usize) -> Result<Vec<u8>> {
    let input = open(path)?;
    let limit = (max_cases as u64 + 2) * results::MAX_LINE_BYTES as u64;
    let mut bytes = Vec::new();
    input
        .reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", input.name))
        .refused()?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "{}: larger than {limit} bytes, more than a results file of this corpus can be",
            input.name
        ))
        .refused();
    }
    Ok(bytes)
}

/// The signature file of `results`: `signature` when given, else `RESULTS.sig` beside it.
fn signature_of(results: &Path, signature: Option<&Path>) -> Result<PathBuf> {
    match signature {
        Some(p) => Ok(p.to_path_buf()),
        None if results.as_os_str() == "-" => {
            Err("the results come from standard input: give their signature with --signature SIG")
                .usage()
        }
        None => Ok(signing::signature_path(results)),
    }
}

/// Checks the signature of `bytes` (the results file `results`, read once) against the signers
/// in the file `signers`: the signature file is `signature`, or `RESULTS.sig`. Who signed, or
/// why not.
pub fn check_signature(
    results: &Path,
    bytes: &[u8],
    signers: &Path,
    signature: Option<&Path>,
) -> Result<Signer> {
    let signers = Signers::read(signers)?;
    let sig_path = signature_of(results, signature)?;
    let sig = match std::fs::metadata(&sig_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "{}: refused: it is not signed ({} does not exist; `agentconf run --sign KEY` or \
                 `agentconf claim sign RESULTS --key KEY` writes it)",
                results.display(),
                sig_path.display()
            ))
            .refused()
        }
        _ => results_bytes(&sig_path, 0)?,
    };
    let what = sig_path.display().to_string();
    signers
        .verify(bytes, &sig, &what)
        .map_err(|e| format!("{}: refused: {e}", results.display()))
        .refused()
}

/// Signs `bytes`, the results file at `results` (read as `file`), with `key` when given,
/// writing `RESULTS.sig`; with `attestation`, writes the in-toto attestation too (signed with
/// the key, or unsigned without one). Returns a line per file written.
pub fn sign(
    results: &Path,
    bytes: &[u8],
    file: &ResultsFile,
    key: Option<&SigningKey>,
    attestation: Option<&Path>,
) -> Result<String> {
    let mut said = String::new();
    if let Some(key) = key {
        let sig_path = signing::signature_path(results);
        results::write_atomically(&sig_path, key.sign_results(bytes)?.as_bytes())?;
        said.push_str(&format!(
            "signature:    {} (by {}{}; verify: ssh-keygen -Y verify -f ALLOWED_SIGNERS -I ID \
             -n {} -s {} < {})\n",
            sig_path.display(),
            key.fingerprint(),
            if key.comment().is_empty() {
                String::new()
            } else {
                format!(" {}", key.comment())
            },
            signing::NAMESPACE,
            sig_path.display(),
            results.display()
        ));
    }
    if let Some(path) = attestation {
        let name = results
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| results.display().to_string());
        let statement = attestation::statement(&name, bytes, file);
        let envelope = attestation::envelope(&statement, key);
        results::write_atomically(path, attestation::envelope_file(&envelope).as_bytes())?;
        said.push_str(&format!(
            "attestation:  {} (in-toto Statement v1, predicate {}, {})\n",
            path.display(),
            attestation::PREDICATE_TYPE,
            if key.is_some() {
                "DSSE envelope signed with the same key"
            } else {
                "DSSE envelope without a signature: no key was given"
            }
        ));
    }
    Ok(said)
}

/// The lines `claim verify` and `report` say of a signer.
pub fn signer_lines(signer: &Signer) -> String {
    format!("signed by:  {signer}\n            ({WHAT_A_SIGNATURE_PROVES})\n")
}
