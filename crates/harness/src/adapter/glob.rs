//! Skip globs over case ids: `*` stands for any run of characters within one part of an id (the
//! parts are separated by `/`), so `aer1/timeline/hostile/*` matches every case of that family —
//! `<id>@06` included — and nothing in another family. There is no other special character.

/// Whether `glob` matches the case id `id`.
pub(crate) fn matches(glob: &str, id: &str) -> bool {
    let (mut g, mut i) = (glob.split('/'), id.split('/'));
    loop {
        match (g.next(), i.next()) {
            (None, None) => return true,
            (Some(gp), Some(ip)) if part_matches(gp, ip) => {}
            _ => return false,
        }
    }
}

/// One part: `*` matches any run of characters (the usual wildcard walk, backtracking to the
/// last star).
fn part_matches(glob: &str, text: &str) -> bool {
    let (g, t): (Vec<char>, Vec<char>) = (glob.chars().collect(), text.chars().collect());
    let (mut gi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if gi < g.len() && g[gi] == '*' {
            star = Some((gi, ti));
            gi += 1;
        } else if gi < g.len() && g[gi] == t[ti] {
            gi += 1;
            ti += 1;
        } else if let Some((sg, st)) = star {
            // Let the last star take one more character.
            gi = sg + 1;
            ti = st + 1;
            star = Some((sg, st + 1));
        } else {
            return false;
        }
    }
    g[gi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_stay_within_a_part() {
        assert!(matches(
            "aer1/timeline/hostile/*",
            "aer1/timeline/hostile/empty-file"
        ));
        assert!(matches(
            "aer1/timeline/hostile/*",
            "aer1/timeline/hostile/x@06"
        ));
        assert!(!matches("aer1/timeline/*", "aer1/timeline/hostile/x"));
        assert!(matches("aer1/*/hostile/*", "aer1/receipt/hostile/x"));
        assert!(matches("aer1/timeline/*/*@06", "aer1/timeline/valid/a@06"));
        assert!(!matches("aer1/timeline/*/*@06", "aer1/timeline/valid/a"));
        assert!(matches(
            "a/b/dup*-same-*",
            "a/b/duplicate-job-id-same-value"
        ));
        assert!(!matches("a/b/dup*-same", "a/b/duplicate-same-value"));
        assert!(matches("a/b/c", "a/b/c"));
        assert!(!matches("a/b/c", "a/b/c/d"));
        assert!(matches("*", "anything-without-a-slash"));
        assert!(!matches("", "a"));
    }
}
