//! Claims a third party can trust (issue 38): a signed run verified by `ssh-keygen -Y verify` and
//! by `claim verify --signed-by` without re-running; a re-sealed, edited or extended file refused
//! by both `claim verify --signed-by` and `report`; the attestation valid against its published
//! schema, its DSSE signature checked with the public key (the encoding computed here, apart from
//! the code under test); and no facts file, beside the executable or in a cache directory, able
//! to put a false digest in a results header.
//!
//! The keys are made from fixed seeds (the same key every run). `ssh-keygen` checks what agentconf
//! signs, and signs what agentconf checks: where it is missing these tests say so and skip, except
//! under CI=true (.ci/run installs it), where a missing ssh-keygen fails them.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use agentconf_harness::signing::SigningKey;
use base64::Engine as _;
use sha2::Digest as _;
use support::{run, TempDir};

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `ssh-keygen` can be run; `false` (with a line saying the test skips) where it is
/// missing, and a failure under CI=true.
fn have_ssh_keygen() -> bool {
    let found = Command::new("ssh-keygen").arg("-?").output().is_ok();
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "ssh-keygen is missing under CI=true: .ci/run installs openssh-client"
        );
        eprintln!("ssh-keygen not found: the ssh-keygen half of this test is skipped");
    }
    found
}

/// A vendor's key (from a fixed seed): the private key file (mode 0600, as ssh-keygen requires),
/// `KEY.pub`, and an allowed_signers file naming it `vendor@example.com`.
struct Vendor {
    key: PathBuf,
    public: PathBuf,
    allowed: PathBuf,
    signing: SigningKey,
}

fn vendor(dir: &Path, seed: u8, name: &str) -> Vendor {
    use std::os::unix::fs::PermissionsExt as _;
    let signing = SigningKey::from_seed(&[seed; 32], &format!("{name} laptop"));
    let key = dir.join(format!("{name}.key"));
    std::fs::write(&key, signing.to_openssh()).unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let public = dir.join(format!("{name}.key.pub"));
    std::fs::write(&public, signing.public_openssh() + "\n").unwrap();
    let allowed = dir.join(format!("{name}.allowed_signers"));
    let public_line = signing.public_openssh();
    let key_fields: Vec<&str> = public_line.split(' ').take(2).collect();
    std::fs::write(
        &allowed,
        format!(
            "# who may sign agentconf results\n{name}@example.com namespaces=\"agentconf-results\" {}\n",
            key_fields.join(" ")
        ),
    )
    .unwrap();
    Vendor {
        key,
        public,
        allowed,
        signing,
    }
}

/// A signed run of the reference (in process) on a small selection, with its attestation.
fn signed_run(dir: &Path, v: &Vendor) -> (PathBuf, PathBuf) {
    let out = dir.join("results.jsonl");
    let attestation = dir.join("attestation.json");
    let r = run(&[
        "run",
        "--include",
        "aer1/workflow/",
        "--out",
        out.to_str().unwrap(),
        "--sign",
        v.key.to_str().unwrap(),
        "--attestation",
        attestation.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(r.stdout.contains("signature:    "), "{}", r.both());
    (out, attestation)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A signed run verifies with `ssh-keygen -Y verify` (no agentconf) and with `claim verify
/// --signed-by`, which names the signer and runs nothing (its `--out` is never written); an
/// unsigned file and one signed by another key are refused; a signature ssh-keygen made is taken.
#[test]
fn a_signed_run_verifies_with_ssh_keygen_and_claim_verify_without_rerunning() {
    let dir = TempDir::new("signed-run");
    let v = vendor(dir.path(), 1, "vendor");
    let (out, _) = signed_run(dir.path(), &v);
    let sig = PathBuf::from(format!("{}.sig", out.display()));
    assert!(std::fs::read_to_string(&sig)
        .unwrap()
        .starts_with("-----BEGIN SSH SIGNATURE-----\n"));

    let rerun_out = dir.path().join("rerun.jsonl");
    let r = run(&[
        "claim",
        "verify",
        path(&out),
        "--signed-by",
        path(&v.allowed),
        "--out",
        path(&rerun_out),
    ]);
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(r.stdout.contains(&v.signing.fingerprint()), "{}", r.stdout);
    assert!(
        r.stdout.contains("principal vendor@example.com"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("not that the run was honest"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("named \"reference (in process)\" by the claimant"));
    let cases = lines_of(&out).len() - 2;
    assert!(
        r.stdout.contains(&format!("SIGNED: {cases} cases")),
        "{}",
        r.stdout
    );
    assert!(
        !rerun_out.exists(),
        "claim verify --signed-by re-ran the claim"
    );
    // A public key file is a list of one signer.
    let r = run(&["report", path(&out), "--signed-by", path(&v.public)]);
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(r.stderr.contains("vendor laptop"), "{}", r.stderr);

    // Another key's list: the signature holds, its signer is not allowed.
    let other = vendor(dir.path(), 2, "other");
    let r = run(&[
        "claim",
        "verify",
        path(&out),
        "--signed-by",
        path(&other.allowed),
    ]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(r.stderr.contains("does not allow"), "{}", r.stderr);
    let r = run(&[
        "report",
        path(&out),
        "--require",
        "partial",
        "--signed-by",
        path(&other.public),
    ]);
    assert_eq!(r.code, 2, "{}", r.both());

    if have_ssh_keygen() {
        let verify = |sig: &Path| {
            Command::new("ssh-keygen")
                .args([
                    "-Y",
                    "verify",
                    "-f",
                    path(&v.allowed),
                    "-I",
                    "vendor@example.com",
                ])
                .args(["-n", "agentconf-results", "-s", path(sig)])
                .stdin(std::fs::File::open(&out).unwrap())
                .output()
                .unwrap()
        };
        let o = verify(&sig);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("Good \"agentconf-results\" signature"));
        // ssh-keygen's own signature of the file is taken by agentconf.
        let by_ssh_keygen = dir.path().join("by-ssh-keygen");
        std::fs::create_dir(&by_ssh_keygen).unwrap();
        let copy = by_ssh_keygen.join("results.jsonl");
        std::fs::copy(&out, &copy).unwrap();
        let o = Command::new("ssh-keygen")
            .args([
                "-Y",
                "sign",
                "-q",
                "-n",
                "agentconf-results",
                "-f",
                path(&v.key),
                path(&copy),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r = run(&[
            "claim",
            "verify",
            path(&copy),
            "--signed-by",
            path(&v.allowed),
        ]);
        assert_eq!(r.code, 0, "{}", r.both());
        // And a signature made for another namespace (a git commit's) is not a results signature.
        std::fs::remove_file(format!("{}.sig", copy.display())).unwrap();
        let o = Command::new("ssh-keygen")
            .args([
                "-Y",
                "sign",
                "-q",
                "-n",
                "git",
                "-f",
                path(&v.key),
                path(&copy),
            ])
            .output()
            .unwrap();
        assert!(o.status.success());
        let r = run(&[
            "claim",
            "verify",
            path(&copy),
            "--signed-by",
            path(&v.public),
        ]);
        assert_eq!(r.code, 2, "{}", r.both());
        assert!(r.stderr.contains("namespace \"git\""), "{}", r.stderr);
    }

    // In CI the key comes from AGENTCONF_SIGNING_KEY: the key's text (a CI secret) or its path.
    for value in [v.signing.to_openssh(), path(&v.key).to_string()] {
        let from_env = dir.path().join("from-env.jsonl");
        let o = Command::new(env!("CARGO_BIN_EXE_agentconf"))
            .args([
                "run",
                "--include",
                "aer1/workflow/valid/one-step",
                "--out",
                path(&from_env),
            ])
            .env("AGENTCONF_SIGNING_KEY", &value)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r = run(&[
            "claim",
            "verify",
            path(&from_env),
            "--signed-by",
            path(&v.allowed),
        ]);
        assert_eq!(r.code, 0, "{}", r.both());
        std::fs::remove_file(format!("{}.sig", from_env.display())).unwrap();
    }

    // Unsigned: no RESULTS.sig.
    std::fs::remove_file(&sig).unwrap();
    let r = run(&[
        "claim",
        "verify",
        path(&out),
        "--signed-by",
        path(&v.allowed),
    ]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(r.stderr.contains("it is not signed"), "{}", r.stderr);
    // `claim sign` signs the existing file: the same bytes, the same key, the same signature.
    let r = run(&["claim", "sign", path(&out), "--key", path(&v.key)]);
    assert_eq!(r.code, 0, "{}", r.both());
    let r = run(&[
        "claim",
        "verify",
        path(&out),
        "--signed-by",
        path(&v.allowed),
    ]);
    assert_eq!(r.code, 0, "{}", r.both());
}

/// The footer's digests recomputed over `lines` (the file's lines, as text), and its totals
/// and count of unexpected results: what the 30-line forger script does. Text surgery,
/// so that every line keeps the exact form agentconf writes.
fn reseal(lines: &mut [String]) {
    let last = lines.len() - 1;
    let header = sha256_hex(format!("{}\n", lines[0]).as_bytes());
    let body: String = lines[1..last].iter().map(|l| format!("{l}\n")).collect();
    let results = sha256_hex(body.as_bytes());
    let footer: serde_json::Value = serde_json::from_str(&lines[last]).unwrap();
    let mut text = lines[last].clone();
    for (member, digest) in [("header_sha256", &header), ("results_sha256", &results)] {
        text = text.replace(footer[member].as_str().unwrap(), digest);
    }
    let count = |status: &str| {
        lines[1..last]
            .iter()
            .filter(|l| l.contains(&format!("\"status\":\"{status}\"")))
            .count()
    };
    for (status, was) in footer["totals"].as_object().unwrap() {
        text = text.replace(
            &format!("\"{status}\":{was}"),
            &format!("\"{status}\":{}", count(status)),
        );
    }
    text = text.replace(
        &format!("\"unexpected\":{}", footer["unexpected"]),
        &format!("\"unexpected\":{}", count("false-accept")),
    );
    lines[last] = text;
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// The forgeries of the issue, each kept with the genuine signature beside it: a file re-sealed
/// after its statuses were changed, an edited file (not re-sealed), a file extended by a member
/// the format does not know. `claim verify --signed-by` and `report --signed-by` refuse all three;
/// `report` alone refuses the edited and extended ones, and takes the re-sealed one, which the
/// seal cannot tell from a genuine file (only a signature, or a re-run, can).
#[test]
fn resealed_edited_or_extended_files_are_refused() {
    let dir = TempDir::new("forgeries");
    let v = vendor(dir.path(), 3, "vendor");
    let (out, _) = signed_run(dir.path(), &v);
    let genuine = lines_of(&out);
    let sig = std::fs::read(format!("{}.sig", out.display())).unwrap();
    // The genuine file verifies (so what follows fails for the forgery, not the setup).
    let r = run(&["report", path(&out), "--signed-by", path(&v.allowed)]);
    assert_eq!(r.code, 0, "{}", r.both());

    let forge = |name: &str, edit: &dyn Fn(&mut Vec<String>)| -> PathBuf {
        let mut lines = genuine.clone();
        edit(&mut lines);
        let p = dir.path().join(name);
        write_lines(&p, &lines);
        std::fs::write(format!("{}.sig", p.display()), &sig).unwrap();
        p
    };
    // Re-sealed: a case made a false accept, the digests and totals recomputed.
    let resealed = forge("resealed.jsonl", &|lines| {
        lines[1] = lines[1].replacen("\"status\":\"pass\"", "\"status\":\"false-accept\"", 1);
        reseal(lines);
    });
    // Edited: the grading changed, nothing recomputed.
    let edited = forge("edited.jsonl", &|lines| {
        lines[0] = lines[0].replacen("\"grading\":\"strict\"", "\"grading\":\"loose\"", 1);
    });
    // Extended: one member added to a result line, nothing recomputed.
    let extended = forge("extended.jsonl", &|lines| {
        let l = &mut lines[2];
        l.insert_str(l.len() - 1, ",\"verdict_note\":\"CERTIFIED\"");
    });
    for forged in [&resealed, &edited, &extended] {
        assert_ne!(
            lines_of(forged),
            genuine,
            "{} is a forgery",
            forged.display()
        );
    }
    for (forged, reason) in [
        (&resealed, "does not match the file's bytes"),
        (&edited, "does not match the file's bytes"),
        (&extended, "does not match the file's bytes"),
    ] {
        let r = run(&[
            "claim",
            "verify",
            path(forged),
            "--signed-by",
            path(&v.allowed),
        ]);
        assert_eq!(r.code, 2, "{}: {}", forged.display(), r.both());
        assert!(r.stderr.contains(reason), "{}", r.stderr);
        let r = run(&[
            "report",
            path(forged),
            "--require",
            "partial",
            "--signed-by",
            path(&v.public),
        ]);
        assert_eq!(r.code, 2, "{}: {}", forged.display(), r.both());
    }
    let r = run(&["report", path(&edited)]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(r.stderr.contains("the header was edited"), "{}", r.stderr);
    let r = run(&["report", path(&extended)]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(
        r.stderr
            .contains("a member the results format does not know (`verdict_note`)"),
        "{}",
        r.stderr
    );
    // What the seal cannot do: the re-sealed forgery reads as whole (its false accept makes it
    // FAIL, exit 1, not refused), which is why the signature and the re-run exist.
    let r = run(&["report", path(&resealed)]);
    assert_eq!(r.code, 1, "{}", r.both());
}

/// DSSE's pre-authentication encoding, written out here from the specification (not the code
/// under test): "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body.
fn pae(payload_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(payload_type.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload_type.as_bytes());
    out.push(b' ');
    out.extend_from_slice(body.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(body);
    out
}

/// The Ed25519 public key and `SHA256:` fingerprint of a `.pub` line, read from the SSH wire
/// format here: string "ssh-ed25519", string KEY.
fn public_key_of(pub_line: &str) -> ([u8; 32], String) {
    let b64 = base64::engine::general_purpose::STANDARD;
    let blob = b64
        .decode(pub_line.split_whitespace().nth(1).unwrap())
        .unwrap();
    let fingerprint = format!(
        "SHA256:{}",
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(sha2::Sha256::digest(&blob))
    );
    assert_eq!(&blob[..4], &[0, 0, 0, 11]);
    assert_eq!(&blob[4..15], b"ssh-ed25519");
    assert_eq!(&blob[15..19], &[0, 0, 0, 32]);
    (blob[19..51].try_into().unwrap(), fingerprint)
}

/// The attestation is an in-toto Statement v1 in a DSSE envelope: its subjects are the results
/// file and the executable with their real SHA-256, its predicate is valid against the schema
/// published in crates/harness/schema/, and its signature verifies with the vendor's public key
/// over the encoding computed here; a changed payload does not.
#[test]
fn the_attestation_validates_against_its_schema_and_its_signature_verifies() {
    let dir = TempDir::new("attestation");
    let v = vendor(dir.path(), 4, "vendor");
    let (out, attestation) = signed_run(dir.path(), &v);
    let envelope: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&attestation).unwrap()).unwrap();
    assert_eq!(envelope["payloadType"], "application/vnd.in-toto+json");
    let b64 = base64::engine::general_purpose::STANDARD;
    let payload = b64.decode(envelope["payload"].as_str().unwrap()).unwrap();
    let statement: serde_json::Value = serde_json::from_slice(&payload).unwrap();
    assert_eq!(statement["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(
        statement["predicateType"],
        "https://agentconf.invalid/attestation/results/v1"
    );
    let subject = statement["subject"].as_array().unwrap();
    assert_eq!(subject[0]["name"], "results.jsonl");
    assert_eq!(
        subject[0]["digest"]["sha256"],
        sha256_hex(&std::fs::read(&out).unwrap())
    );
    assert_eq!(
        subject[1]["digest"]["sha256"],
        sha256_hex(&std::fs::read(env!("CARGO_BIN_EXE_agentconf")).unwrap())
    );
    let predicate = &statement["predicate"];
    assert_eq!(predicate["verdict"]["level"], "partial");
    assert_eq!(predicate["implementation"]["named_by"], "claimant");
    assert_eq!(
        predicate["corpus_digest"],
        agentconf_corpus::embedded::CORPUS_DIGEST
    );

    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../../harness/schema/attestation-results-v1.schema.json"
    ))
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(predicate)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // The schema holds: a predicate with a member it does not know, or a level it does not
    // list, is invalid.
    let mut extended = predicate.clone();
    extended["certified"] = true.into();
    assert!(!validator.is_valid(&extended));
    let mut other_level = predicate.clone();
    other_level["verdict"]["level"] = "certified".into();
    assert!(!validator.is_valid(&other_level));

    let (public, fingerprint) = public_key_of(&std::fs::read_to_string(&v.public).unwrap());
    let signature = &envelope["signatures"][0];
    assert_eq!(signature["keyid"], fingerprint.as_str());
    let key = ed25519_dalek::VerifyingKey::from_bytes(&public).unwrap();
    let sig_bytes: [u8; 64] = b64
        .decode(signature["sig"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let sig = ed25519_dalek::Signature::from_bytes(&sig_bytes);
    key.verify_strict(&pae("application/vnd.in-toto+json", &payload), &sig)
        .expect("the DSSE signature verifies with the public key");
    let mut changed = payload.clone();
    let at = changed.len() / 2;
    changed[at] ^= 1;
    assert!(key
        .verify_strict(&pae("application/vnd.in-toto+json", &changed), &sig)
        .is_err());

    // Without a key the envelope carries no signature.
    let unsigned = dir.path().join("unsigned.json");
    let r = run(&[
        "run",
        "--include",
        "aer1/workflow/valid/one-step",
        "--out",
        path(&dir.path().join("unsigned.jsonl")),
        "--attestation",
        path(&unsigned),
    ]);
    assert_eq!(r.code, 0, "{}", r.both());
    let envelope: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&unsigned).unwrap()).unwrap();
    assert_eq!(envelope["signatures"], serde_json::json!([]));
}

/// A forged facts file cannot change a results header's digests: the old cache beside the
/// executable (`.agentconf.facts`, with the executable's current stamp, false digests), and
/// files and links planted in the user's cache directory, are neither read nor written. The
/// header's `executable_sha256` is the SHA-256 of the executable's bytes and its
/// `corpus_digest` the corpus's, for the reference in process and as a command; every planted
/// file keeps its bytes, and nothing is created beside the executable.
#[test]
fn a_forged_facts_file_cannot_change_a_headers_digests() {
    use std::os::unix::fs::MetadataExt as _;
    let dir = TempDir::new("forged-facts");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let exe = bin.join("agentconf");
    std::fs::copy(env!("CARGO_BIN_EXE_agentconf"), &exe).unwrap();
    let true_exe = sha256_hex(&std::fs::read(&exe).unwrap());
    let corpus = agentconf_corpus::corpus();
    let true_corpus = agentconf_corpus::writer::manifest(&corpus).corpus_digest;
    let false_digest = "0".repeat(64);
    // The facts file as agentconf wrote it before, under the executable's stamp (device, inode,
    // size, modification and change times): the earlier code believed it.
    let m = std::fs::metadata(&exe).unwrap();
    let stamp = format!(
        "{} {} {} {}.{:09} {}.{:09}",
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec()
    );
    let forged = format!("{stamp}\nexecutable-sha256 {false_digest}\ncorpus {false_digest} 668\n");
    std::fs::write(bin.join(".agentconf.facts"), &forged).unwrap();
    // The user's cache directory, with a facts file and a link to a file that must keep its
    // bytes.
    let cache = dir.path().join("cache");
    let agentconf_cache = cache.join("agentconf");
    std::fs::create_dir_all(&agentconf_cache).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"keep").unwrap();
    for name in ["facts", ".agentconf.facts", "agentconf.facts"] {
        std::fs::write(agentconf_cache.join(name), &forged).unwrap();
    }
    std::os::unix::fs::symlink(&victim, agentconf_cache.join("facts.tmp")).unwrap();
    std::os::unix::fs::symlink(&victim, bin.join(".agentconf.facts.tmp")).unwrap();
    let listing = |d: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let (bin_before, cache_before) = (listing(&bin), listing(&agentconf_cache));

    for implementation in ["reference", "reference-process"] {
        let out = dir.path().join(format!("{implementation}.jsonl"));
        let o = Command::new(&exe)
            .args(["run", "--implementation", implementation])
            .args([
                "--include",
                "aer1/workflow/valid/one-step",
                "--out",
                path(&out),
            ])
            .env("XDG_CACHE_HOME", &cache)
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let header: serde_json::Value = serde_json::from_str(
            std::fs::read_to_string(&out)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            header["implementation"]["executable_sha256"],
            true_exe.as_str(),
            "{implementation}"
        );
        assert_eq!(
            header["corpus_digest"],
            true_corpus.as_str(),
            "{implementation}"
        );
        assert_eq!(
            header["selection"]["corpus_case_count"],
            corpus.iter().map(|v| v.cases().len()).sum::<usize>()
        );
        // Its own report takes it: the digest it printed a verdict under is the corpus's.
        let r = Command::new(&exe)
            .args(["report", path(&out)])
            .output()
            .unwrap();
        assert_eq!(
            r.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    assert_eq!(
        std::fs::read_to_string(bin.join(".agentconf.facts")).unwrap(),
        forged
    );
    assert_eq!(
        listing(&bin),
        bin_before,
        "nothing is written beside the executable"
    );
    assert_eq!(
        listing(&agentconf_cache),
        cache_before,
        "nothing is written in the cache"
    );
}

/// Keys, signatures and signers lists that cannot be used are one line each, exit 2, never a
/// panic: an encrypted key, a key of another kind, garbage for each file.
#[test]
fn unusable_keys_and_signatures_are_one_line_each() {
    let dir = TempDir::new("unusable");
    let v = vendor(dir.path(), 5, "vendor");
    let out = dir.path().join("results.jsonl");
    let garbage = dir.path().join("garbage");
    std::fs::write(&garbage, b"\x00\xffnot a key\n").unwrap();
    let r = run(&[
        "run",
        "--include",
        "aer1/workflow/valid/one-step",
        "--out",
        path(&out),
        "--sign",
        path(&garbage),
    ]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(!out.exists(), "a run that cannot be signed does not run");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    let r = run(&[
        "run",
        "--include",
        "aer1/workflow/valid/one-step",
        "--out",
        path(&out),
    ]);
    assert_eq!(r.code, 0, "{}", r.both());
    std::fs::write(
        format!("{}.sig", out.display()),
        b"-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n",
    )
    .unwrap();
    for signers in [&garbage, &v.key] {
        let r = run(&["claim", "verify", path(&out), "--signed-by", path(signers)]);
        assert_eq!(r.code, 2, "{}", r.both());
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
    let r = run(&[
        "claim",
        "verify",
        path(&out),
        "--signed-by",
        path(&v.public),
    ]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(r.stderr.contains("is not an SSH signature"), "{}", r.stderr);
    if have_ssh_keygen() {
        for (name, args) in [
            ("encrypted", &["-t", "ed25519", "-N", "secret"][..]),
            ("ecdsa", &["-t", "ecdsa", "-N", ""][..]),
        ] {
            let key = dir.path().join(name);
            let o = Command::new("ssh-keygen")
                .args(["-q", "-f", path(&key)])
                .args(args)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let r = run(&["claim", "sign", path(&out), "--key", path(&key)]);
            assert_eq!(r.code, 2, "{}", r.both());
            assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
            let expected = if name == "encrypted" {
                "passphrase"
            } else {
                "Ed25519 keys only"
            };
            assert!(r.stderr.contains(expected), "{}", r.stderr);
        }
    }
}
