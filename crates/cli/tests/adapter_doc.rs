//! The adapter format as documented (crates/contract/CONTRACT.md section 12) is the format the
//! code reads: every TOML example of that section parses with `Adapter::parse` against the
//! corpus, and every example whose first line is `# agentconf run …` runs as written (with
//! `agentconf` standing for the binary under test) and does not fail.

use std::collections::BTreeSet;

use agentconf_harness::adapter::Adapter;

const CONTRACT: &str = include_str!("../../contract/CONTRACT.md");

/// The ```toml blocks of section 12, each with the line it starts on.
fn section_12_examples() -> Vec<(usize, String)> {
    let start = CONTRACT
        .find("\n## 12. ")
        .expect("CONTRACT.md has a section 12");
    let end = CONTRACT[start + 1..]
        .find("\n## ")
        .map_or(CONTRACT.len(), |e| start + 1 + e);
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let first_line = CONTRACT[..start].lines().count() + 1;
    for (n, line) in CONTRACT[start..end].lines().enumerate() {
        match (&mut current, line) {
            (None, "```toml") => current = Some((first_line + n + 1, String::new())),
            (Some(_), "```") => out.extend(current.take()),
            (Some((_, text)), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "an unclosed ```toml block in section 12");
    out
}

fn case_ids() -> BTreeSet<String> {
    agentconf_corpus::corpus()
        .iter()
        .flat_map(|v| v.cases().into_iter().map(|c| c.id))
        .collect()
}

#[test]
fn every_example_parses() {
    let examples = section_12_examples();
    // One example per feature, at least: a section that lost its examples fails here.
    assert!(examples.len() >= 10, "{} examples", examples.len());
    let ids = case_ids();
    for (line, text) in &examples {
        if let Err(e) = Adapter::parse(text, &ids) {
            panic!("the example at CONTRACT.md line {line} does not parse: {e}\n{text}");
        }
    }
}

#[test]
fn runnable_examples_run_as_written() {
    let bin = env!("CARGO_BIN_EXE_agentconf");
    let dir = std::env::temp_dir().join(format!("agentconf-adapter-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut ran = 0;
    for (line, text) in section_12_examples() {
        let Some(command) = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# agentconf "))
        else {
            continue;
        };
        let mut args: Vec<String> = command.split_whitespace().map(String::from).collect();
        let at = args
            .iter()
            .position(|a| a == "--adapter")
            .unwrap_or_else(|| panic!("the example at line {line} runs without its adapter"));
        let adapter = dir.join(format!("example-{line}.toml"));
        std::fs::write(
            &adapter,
            text.replace("\"agentconf\"", &format!("\"{bin}\"")),
        )
        .unwrap();
        args[at + 1] = adapter.display().to_string();
        let out = dir.join(format!("example-{line}.jsonl"));
        args.extend(["--out".into(), out.display().to_string()]);
        let o = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "the example at CONTRACT.md line {line} ({command}):\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        ran += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ran >= 8, "{ran} examples ran");
}
