//! No input makes the checker panic: every fixture, mutated many ways (lines deleted, duplicated or
//! swapped, characters dropped, text truncated), is re-checked through the editor session.

use std::path::Path;

use reuse_check::engine::Session;
use reuse_check::workspace::Target;

/// A small deterministic generator, so that a failure reproduces.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

fn mutate(text: &str, rng: &mut Lcg) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    match rng.next(6) {
        0 => {
            lines.remove(rng.next(lines.len()));
            lines.join("\n")
        }
        1 => {
            let i = rng.next(lines.len());
            lines.insert(i, lines[i]);
            lines.join("\n")
        }
        2 => {
            let (a, b) = (rng.next(lines.len()), rng.next(lines.len()));
            lines.swap(a, b);
            lines.join("\n")
        }
        3 => {
            let mut chars: Vec<char> = text.chars().collect();
            for _ in 0..3 {
                if !chars.is_empty() {
                    chars.remove(rng.next(chars.len()));
                }
            }
            chars.into_iter().collect()
        }
        4 => text.chars().take(rng.next(text.chars().count())).collect(),
        _ => text.replace("PAD_SLOT_ID", "0").replace("log_step();", "").replacen("let ", "let mut ", 1),
    }
}

#[test]
fn mutated_fixtures_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut session = Session::open(&Target { path: Some(dir.clone()), ..Target::default() }).unwrap();
    let files: Vec<_> = session.check_all().findings.iter().map(|f| f.primary.file.path.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    assert!(files.len() >= 10);
    let mut rng = Lcg(0x5eed);
    let mut checks = 0;
    for path in &files {
        let original = std::fs::read_to_string(path).unwrap();
        let mut text = original.clone();
        for _ in 0..40 {
            text = mutate(&text, &mut rng);
            let _ = session.update(path, text.clone());
            checks += 1;
        }
        session.update(path, original);
    }
    assert!(checks >= 400);
}
