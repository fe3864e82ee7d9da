//! Re-checking the one top-level item an edit falls in, instead of the whole file.
//!
//! A keystroke in a 5,000-line file changes one function; parsing and analysing the whole file
//! again is most of the cost of a check (the parse alone is half of it). Every rule the checker
//! runs on a file that declares no contract looks at one function body at a time, with three
//! things of the whole file: its `use` imports, the field types of its structs (the receiver of
//! `self.kv.write(..)`), and the bodies of its helpers (followed for the effects of a function
//! with `preserves(..)`); and the workspace index. A suppression comment covers the next line,
//! inside the same item. So when the edited item is none of those, the findings of the other
//! items cannot change, only move.
//!
//! The edited item is checked in a *masked* copy of the file: every other item is blanked to
//! spaces (newlines kept), `use` items and items that define structs are kept. The masked copy
//! has the byte offsets of the real text, so its findings are the real findings; the old
//! findings before the item are kept, those after it are shifted (with the `(line N)` their
//! messages name). Anything this reasoning does not cover returns `None` and the caller runs the
//! engine's full check: an edited item that declares contracts, effects or constants, is a `use`,
//! defines a struct, or defines a function named elsewhere in a file that has `preserves`; an
//! edit across items; a text that does not parse; a finding elsewhere pointing into the edited
//! item. In a file that declares contracts elsewhere, the index's positions after the edit move
//! with it (`Session::shift_text`). The `equivalence` tests hold this against a fresh check after
//! random sequences of edits.

use std::ops::Range;
use std::sync::Arc;

use reuse_rules::Level;

use crate::engine::FileJob;
use crate::finding::{Finding, Label};
use crate::index::Index;
use crate::items::WorkspaceItems;
use crate::source::{FileRef, SourceFile};

/// The findings of `new` (the edited text of `old`) when only a run of top-level items changed.
pub fn recheck(old: &FileRef, old_findings: &[Finding], new: &FileRef, job: &FileJob, index: &Index, workspace_items: &WorkspaceItems) -> Option<Vec<Finding>> {
    if job.external || new.text.starts_with('\u{feff}') {
        return None;
    }
    if old_findings.iter().any(|f| f.rule.name == reuse_rules::catalogue::PARSE_ERROR.name) {
        return None;
    }
    let (old_edit, new_edit) = edited(&old.text, &new.text);
    let delta = new.text.len() as isize - old.text.len() as isize;
    let (old_chunks, new_chunks) = (chunks(&old.text), chunks(&new.text));
    if old_chunks.len() != new_chunks.len() {
        return None;
    }
    // The items the edit touches: one, or a run of them (edits at two places of a file).
    let k1 = old_chunks.iter().position(|c| c.start <= old_edit.start && old_edit.start <= c.end)?;
    let k2 = old_chunks.iter().rposition(|c| c.start <= old_edit.end && old_edit.end <= c.end)?;
    if k2 < k1 {
        return None;
    }
    let old_k = old_chunks[k1].start..old_chunks[k2].end;
    let new_k = new_chunks[k1].start..new_chunks[k2].end;
    if !(new_k.start <= new_edit.start && new_edit.end <= new_k.end) {
        return None;
    }
    let same_before = old_chunks[..k1] == new_chunks[..k1];
    let shifted_after = old_chunks[k2 + 1..].iter().zip(&new_chunks[k2 + 1..]).all(|(o, n)| shift(o, delta) == *n);
    if !same_before || !shifted_after || new_k.start != old_k.start {
        return None;
    }
    // The edited items must declare nothing the index holds (contracts, effects, constants): then
    // the index stays valid, its ranges in this file only move (`Session::shift_text`). And none
    // may be a `use`: imports decide how every other item's calls resolve.
    // Nor a `struct`: the file's field types resolve the receivers of every item's calls
    // (`self.kv.write(..)`), so a changed struct can change findings anywhere in the file.
    let items = old_chunks[k1..=k2].iter().map(|c| &old.text[c.clone()]).chain(new_chunks[k1..=k2].iter().map(|c| &new.text[c.clone()]));
    if items.clone().any(|t| crate::engine::may_declare(t) || is_use(t) || defines_struct(t)) {
        return None;
    }
    // Nor a function or a type that the rules follow from one item into another: the effect
    // rules and the dataflow summaries read the helpers an item calls, and a field of `self` holds
    // what the type's other methods and struct literals leave in it. A helper defined in the edited
    // items and used elsewhere, or defined elsewhere and used here, and a type implemented on one
    // side and named on the other, make the other items' findings depend on this edit.
    // (The `use` and `struct` items are kept in the masked copy: they do not count.)
    let edited = &new.text[new_k.clone()];
    let others: Vec<&str> = new_chunks
        .iter()
        .enumerate()
        .filter(|(i, _)| !(k1..=k2).contains(i))
        .map(|(_, c)| &new.text[c.clone()])
        .filter(|t| !is_use(t) && !defines_struct(t))
        .collect();
    let mentions = |text: &str, name: &str| mentioned_outside(text, name, &(0..0));
    let edited_fns = items.clone().flat_map(fn_names);
    let edited_types: Vec<&str> = items.clone().flat_map(impl_types).collect();
    let helper_across = edited_fns.clone().any(|name| others.iter().any(|o| mentions(o, name)))
        || others.iter().flat_map(|o| fn_names(o)).any(|name| mentions(edited, name));
    // A type's field summary reads its methods and its struct literals.
    let type_across = edited_types.iter().any(|t| others.iter().any(|o| impl_types(o).any(|u| u == *t) || builds(o, t)))
        || others.iter().flat_map(|o| impl_types(o)).any(|t| builds(edited, t));
    if helper_across || type_across {
        return None;
    }

    // A finding outside the items that points into them would go stale.
    let in_old_item = |l: &Label| same_file(l, old) && l.range.start < old_k.end && l.range.end > old_k.start;
    let outside: Vec<&Finding> = old_findings.iter().filter(|f| !old_k.contains(&f.primary.range.start)).collect();
    if outside.iter().any(|f| in_old_item(&f.primary) || f.secondary.iter().any(in_old_item)) {
        return None;
    }

    let masked = mask(&new.text, &new_chunks, k1..=k2)?;
    let masked = Arc::new(SourceFile::new(new.path.clone(), new.rel_path.clone(), masked));
    let fresh = check_masked(&masked, job, index, workspace_items)?;

    let mut out: Vec<Finding> = Vec::new();
    for mut f in fresh {
        if !(new_k.contains(&f.primary.range.start) || (k2 + 1 == new_chunks.len() && f.primary.range.start == new_k.end)) {
            continue;
        }
        relabel(&mut f, &|l| Arc::ptr_eq(&l.file, &masked), new, 0, 0);
        out.push(f);
    }
    // Messages that name a line (`... (line 12)`) of an item after the edit move with it.
    let line_delta = new.text[new_k.clone()].matches('\n').count() as isize - old.text[old_k.clone()].matches('\n').count() as isize;
    for f in outside {
        let mut f = f.clone();
        if f.primary.range.start >= old_k.end {
            shift_line_numbers(&mut f, line_delta);
        }
        relabel(&mut f, &|l| same_file(l, old), new, old_k.end, delta);
        out.push(f);
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Some(out)
}

/// The engine's per-file check (analysis, suppressions, configured levels) on the masked text.
fn check_masked(masked: &FileRef, job: &FileJob, index: &Index, items: &WorkspaceItems) -> Option<Vec<Finding>> {
    let findings = match masked.parse() {
        Ok(ast) => {
            let found = crate::analysis::analyze_file(masked, &ast, &job.crate_name, &job.module, index, items);
            Some(crate::suppress::apply_suppressions(masked, Some(&ast), found))
        }
        Err(_) => None,
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    let mut findings = findings?;
    for f in &mut findings {
        f.level = job.config.level(f.rule);
    }
    findings.retain(|f| f.level != Level::Allow);
    Some(findings)
}


fn same_file(l: &Label, file: &FileRef) -> bool {
    Arc::ptr_eq(&l.file, file) || l.file.path == file.path
}

/// Points the labels that `is_here` selects at `file`, moving those at or after `from` by `delta`.
fn relabel(f: &mut Finding, is_here: &dyn Fn(&Label) -> bool, file: &FileRef, from: usize, delta: isize) {
    let moved = |r: &Range<usize>| if r.start >= from { shift(r, delta) } else { r.clone() };
    for l in std::iter::once(&mut f.primary).chain(f.secondary.iter_mut()) {
        if is_here(l) {
            l.range = moved(&l.range);
            l.file = file.clone();
        }
    }
    if let Some(fix) = &mut f.fix {
        fix.range = moved(&fix.range);
    }
}

/// Adds `delta` to every `(line N)` in the texts of a finding. The rules name lines of the
/// finding's own function this way (`use_after_donate`: where the value was donated), so for a
/// finding in an item after the edit, the line moved exactly as far as the item did.
fn shift_line_numbers(f: &mut Finding, delta: isize) {
    if delta == 0 {
        return;
    }
    let texts = std::iter::once(&mut f.message).chain(f.help.iter_mut()).chain(f.notes.iter_mut());
    let labels = std::iter::once(&mut f.primary.message).chain(f.secondary.iter_mut().map(|l| &mut l.message));
    for text in texts.chain(labels) {
        if text.contains("(line ") {
            *text = shift_line_refs(text, delta);
        }
    }
}

fn shift_line_refs(text: &str, delta: isize) -> String {
    const OPEN: &str = "(line ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..at + OPEN.len()]);
        match (after[..digits].parse::<isize>(), after[digits..].starts_with(')')) {
            (Ok(n), true) => out.push_str(&(n + delta).max(1).to_string()),
            _ => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// Whether an item defines a struct (its field types are the file's, see [`crate::resolve::FieldTypes`]).
fn defines_struct(chunk: &str) -> bool {
    // The substring search first: every chunk of a file is asked, on every keystroke.
    chunk.contains("struct") && words(chunk).any(|w| w == "struct")
}

/// The names of the functions an item defines (`fn name`).
fn fn_names(chunk: &str) -> impl Iterator<Item = &str> + Clone {
    let ws: Vec<&str> = words(chunk).collect();
    let names: Vec<&str> = ws.windows(2).filter(|w| w[0] == "fn").map(|w| w[1]).collect();
    names.into_iter()
}

/// Whether a text has a struct literal of `ty` (`Ty {`, `Ty{`).
fn builds(text: &str, ty: &str) -> bool {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = text.as_bytes();
    text.match_indices(ty).any(|(i, _)| {
        let end = i + ty.len();
        (i == 0 || !ident(b[i - 1])) && text[end..].trim_start().starts_with('{')
    })
}

/// The types an item implements (`impl T`, `impl Trait for T`, `impl<X> a::T<X>`): the last
/// path segment before the body.
fn impl_types(chunk: &str) -> impl Iterator<Item = &str> + Clone {
    let mut out = Vec::new();
    let mut rest = chunk;
    while let Some(i) = rest.find("impl") {
        let after = &rest[i + 4..];
        let boundary = rest[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let header = after.split(['{', ';']).next().unwrap_or("");
        if boundary && header.starts_with([' ', '<', '\n', '\t']) {
            // The generic parameters, then the type after `for` if there is one.
            let mut depth = 0usize;
            let plain: String = header
                .chars()
                .map(|c| {
                    match c {
                        '<' => depth += 1,
                        '>' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    if depth > 0 || c == '>' { ' ' } else { c }
                })
                .collect();
            let plain = plain.split(" where ").next().unwrap_or("");
            let ty = plain.rsplit(" for ").next().unwrap_or(plain);
            if let Some(name) = words(ty).last() {
                // A borrowed slice of the chunk with the same text.
                if let Some(at) = after.find(name) {
                    out.push(&after[at..at + name.len()]);
                }
            }
        }
        rest = after;
    }
    out.into_iter()
}

/// Whether `name` occurs as a word in `text` outside `skip`.
fn mentioned_outside(text: &str, name: &str, skip: &Range<usize>) -> bool {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = text.as_bytes();
    text.match_indices(name).any(|(i, _)| {
        let end = i + name.len();
        !(skip.start <= i && end <= skip.end) && (i == 0 || !ident(b[i - 1])) && b.get(end).is_none_or(|&c| !ident(c))
    })
}

/// The identifier-like words of a text.
fn words(text: &str) -> impl Iterator<Item = &str> + Clone {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

fn shift(r: &Range<usize>, delta: isize) -> Range<usize> {
    (r.start as isize + delta) as usize..(r.end as isize + delta) as usize
}

/// The changed byte range of the old and of the new text (common prefix and suffix removed).
pub fn edited(old: &str, new: &str) -> (Range<usize>, Range<usize>) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    let max_s = a.len().min(b.len()) - p;
    let mut s = a.iter().rev().zip(b.iter().rev()).take(max_s).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(a.len() - s) || !new.is_char_boundary(b.len() - s) {
        s -= 1;
    }
    (p..a.len() - s, p..b.len() - s)
}

/// The masked text: the chunks `keep`, the `use` chunks and the chunks that define structs (the
/// field types the kept items' calls resolve through) as they are, every other chunk blanked.
fn mask(text: &str, chunks: &[Range<usize>], keep: std::ops::RangeInclusive<usize>) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for (i, c) in chunks.iter().enumerate() {
        if keep.contains(&i) || is_use(&text[c.clone()]) || defines_struct(&text[c.clone()]) {
            continue;
        }
        for b in &mut bytes[c.clone()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(bytes).ok()
}

/// Whether an item is a `use` declaration (after its comments, attributes and visibility).
fn is_use(chunk: &str) -> bool {
    let mut s = chunk;
    loop {
        let t = s.trim_start();
        if let Some(rest) = t.strip_prefix("//") {
            s = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
        } else if let Some(rest) = t.strip_prefix("/*") {
            s = rest.split_once("*/").map(|(_, r)| r).unwrap_or("");
        } else if t.starts_with("#[") || t.starts_with("#![") {
            s = t.split_once(']').map(|(_, r)| r).unwrap_or("");
        } else {
            s = t;
            break;
        }
    }
    if let Some(rest) = s.strip_prefix("pub") {
        s = rest.trim_start();
        if s.starts_with('(') {
            s = s.split_once(')').map(|(_, r)| r.trim_start()).unwrap_or("");
        }
    }
    s.strip_prefix("use").is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '{' || c == ':'))
}

/// Top-level chunks of a Rust file: each ends after a `}` or `;` that brings the nesting depth
/// back to 0 (the end of an item), and owns the comments and attributes before its item. Strings,
/// chars, lifetimes and comments are skipped. Only used to find where items start and end: a
/// wrong split (an expression with braces in a `const`) makes the masked text fail to parse, and
/// the caller then checks the whole file.
pub fn chunks(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut depth, mut start) = (0usize, 0i64, 0usize);
    while i < b.len() {
        match b[i] {
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                i = crate::source::skip_comment(b, i);
                continue;
            }
            b'r' if raw_string_start(b, i).is_some() => {
                let (hashes, open) = raw_string_start(b, i).unwrap_or((0, i));
                i = open + 1;
                loop {
                    if i >= b.len() {
                        break;
                    }
                    if b[i] == b'"' && b[i + 1..].iter().take(hashes).filter(|&&c| c == b'#').count() == hashes && b.len() - i > hashes {
                        i += 1 + hashes;
                        break;
                    }
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                continue;
            }
            b'\'' => {
                // A char literal ('a', '\n', '\u{..}', 'é') or a lifetime ('a): a lifetime has no
                // closing quote right after its first char.
                if b.get(i + 1) == Some(&b'\\') {
                    i += 2;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                } else {
                    let ch_len = text[i + 1..].chars().next().map(char::len_utf8).unwrap_or(1);
                    i += if b.get(i + 1 + ch_len) == Some(&b'\'') { 2 + ch_len } else { 1 };
                }
                continue;
            }
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                // `use a::{b};` and `const S: T = T { .. };` end at their `;`.
                let semi_follows = b[i + 1..].iter().find(|c| !c.is_ascii_whitespace()) == Some(&b';');
                if depth == 0 && b[i] == b'}' && !semi_follows {
                    out.push(start..i + 1);
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                out.push(start..i + 1);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < b.len() || out.is_empty() {
        out.push(start..b.len());
    }
    out
}

/// `r"`, `r#"`, `br"`...: the number of `#` and the offset of the opening quote.
fn raw_string_start(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') && b[i - 1] != b'b' {
        return None;
    }
    let mut j = i + 1;
    let mut hashes = 0;
    while b.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    (b.get(j) == Some(&b'"')).then_some((hashes, j))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::engine::Session;
    use crate::workspace::Target;

    #[test]
    fn chunks_end_at_items_and_skip_strings_comments_and_chars() {
        let text = "use a::{b};\n// c }\nfn f() { let s = \"}\"; let c = '}'; let r = r#\"}\"#; }\n\nstruct S<'a>(&'a str);\n/* } */ impl S<'_> { fn g(&self) {} }\n// end\n";
        let parts: Vec<&str> = chunks(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(parts.len(), 5, "{parts:#?}");
        assert_eq!(parts[0], "use a::{b};");
        assert!(parts[1].ends_with("r#\"}\"#; }") && parts[1].contains("// c }"));
        assert_eq!(parts[2].trim(), "struct S<'a>(&'a str);");
        assert!(parts[3].trim_start().starts_with("/* } */ impl"));
        assert_eq!(parts[4], "\n// end\n");
        assert!(is_use("  /// doc\n  #[cfg(x)]\n  pub(crate) use x::{y, z};"));
        assert!(!is_use("\nfn user() {}"));
    }

    /// A caller file that declares nothing, with suppressions, non-ASCII text and several findings.
    const USER: &str = r#"//! Callers. é
use crate::{reshape_and_cache, Row, PAD_SLOT_ID};

pub fn a(key: &[Row], cache: &mut [Row], n: usize) {
    let slots = vec![0; n]; // 😀
    reshape_and_cache(key, cache, &slots);
}

pub fn b(key: &[Row], cache: &mut [Row], n: usize) {
    // reuse-check: allow(pad_to_null_block) the cache is scratch here
    let slots = vec![0; n];
    reshape_and_cache(key, cache, &slots);
}

/// Correct.
pub fn c(key: &[Row], cache: &mut [Row], n: usize) {
    let slots = vec![PAD_SLOT_ID; n];
    reshape_and_cache(key, cache, &slots);
}

pub struct Runner { slots: Vec<i64>, cache: Vec<Row> }

impl Runner {
    pub fn new(n: usize) -> Runner {
        Runner { slots: vec![0; n], cache: Vec::new() }
    }

    pub fn dummy_run(&mut self, key: &[Row]) {
        let label = "漢字";
        reshape_and_cache(key, &mut self.cache, &self.slots);
        let _ = label;
    }
}

pub fn d(key: &[Row], cache: &mut [Row], n: usize) {
    // reuse-check: allow(pad_to_null_block) nothing to suppress
    let slots = vec![PAD_SLOT_ID; n];
    reshape_and_cache(key, cache, &slots);
}
"#;

    pub(super) fn session(dir: &std::path::Path) -> Session {
        Session::open(&Target { path: Some(dir.to_path_buf()), ..Default::default() }).unwrap()
    }

    /// Everything a user sees of a finding, as one comparable string.
    pub(super) fn key(f: &Finding) -> String {
        let labels: Vec<String> = std::iter::once(&f.primary).chain(&f.secondary).map(|l| format!("{}:{:?}:{}", l.file.rel_path, l.range, l.message)).collect();
        format!("{} {:?} {} | {} | {:?} {:?} {:?}", f.rule.name, f.level, f.message, labels.join(" ; "), f.fix.as_ref().map(|x| (&x.range, &x.replacement)), f.help, f.notes)
    }

    /// Every edit that keeps the file parseable: the incremental result equals a full check.
    #[test]
    fn incremental_results_equal_a_full_check() {
        let dir = std::env::temp_dir().join(format!("reuse-check-incremental-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let lib = include_str!("../../../fixtures/paged-kv/src/lib.rs").replace("pub mod buggy;\npub mod correct;\n", "pub mod user;\n");
        std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
        std::fs::write(dir.join("src/user.rs"), USER).unwrap();
        let dir = std::fs::canonicalize(&dir).unwrap();
        let path: PathBuf = dir.join("src/user.rs");
        let (mut live, mut reference) = (session(&dir), session(&dir));
        let _ = &mut live;
        let start = live.update(&path, USER.to_string());
        assert!(start.len() >= 3, "{:#?}", start.iter().map(key).collect::<Vec<_>>());

        // Edits: a space, a comment with non-ASCII text, a fix, a new finding, a new line, a
        // deletion, at many places.
        let mut edits: Vec<(usize, usize, &str)> = Vec::new();
        for (i, _) in USER.match_indices('\n') {
            edits.push((i, i, " "));
            edits.push((i, i, " /* é😀 */"));
        }
        let zero = USER.find("vec![0; n]; // 😀").unwrap() + 5;
        edits.push((zero, zero + 1, "PAD_SLOT_ID"));
        let pad = USER.rfind("vec![PAD_SLOT_ID; n]").unwrap() + 5;
        edits.push((pad, pad + "PAD_SLOT_ID".len(), "0"));
        let reason = USER.find("the cache is scratch here").unwrap();
        edits.push((reason, reason + "the cache is scratch here".len(), ""));
        let line = USER.find("        let _ = label;").unwrap();
        edits.push((line, line, "        let _second = \"é\";\n"));

        // Each edit applies to the original text, which the live session keeps.
        let old_file = live.file(&path).unwrap().clone();
        let job = live.job(&path).unwrap().clone();
        let mut used = 0;
        for (a, b, ins) in edits {
            let text = format!("{}{}{}", &USER[..a], ins, &USER[b..]);
            let new = Arc::new(SourceFile::new(path.clone(), old_file.rel_path.clone(), text.clone()));
            let expected: Vec<String> = reference.update(&path, text).iter().map(key).collect();
            if let Some(got) = recheck(&old_file, &start, &new, &job, live.index(), &live.items()) {
                used += 1;
                let got: Vec<String> = got.iter().map(key).collect();
                assert_eq!(got, expected, "edit {a}..{b} {ins:?}");
            }
        }
        assert!(used > 40, "the incremental path was taken {used} times");

        // Edits at two places at once (a multi-cursor edit): the run of items between them.
        let lines: Vec<usize> = USER.match_indices('\n').map(|(i, _)| i).collect();
        let mut pairs = 0;
        for (n, &i) in lines.iter().enumerate().step_by(3) {
            let Some(&j) = lines.get(n + 7) else { break };
            let text = format!("{} {} {}", &USER[..i], &USER[i..j], &USER[j..]);
            let new = Arc::new(SourceFile::new(path.clone(), old_file.rel_path.clone(), text.clone()));
            let expected: Vec<String> = reference.update(&path, text).iter().map(key).collect();
            if let Some(got) = recheck(&old_file, &start, &new, &job, live.index(), &live.items()) {
                pairs += 1;
                assert_eq!(got.iter().map(key).collect::<Vec<_>>(), expected, "edits at {i} and {j}");
            }
        }
        assert!(pairs > 3, "two-place edits took the incremental path {pairs} times");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file that declares a contract after its callers: edits elsewhere take the item path, and
    /// the session's index moves with the text (`Session::shift_text`), so that a full check of the
    /// shifted session, and its secondary labels into this file, equal a check from scratch.
    #[test]
    fn a_declaring_file_is_rechecked_item_by_item_and_its_index_moves() {
        let declaring = format!(
            "{USER}\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn local_write(cache: &mut [Row], slots: &[i64]) {{}}\n\npub fn e(cache: &mut [Row], n: usize) {{\n    let slots = vec![0; n];\n    local_write(cache, &slots);\n}}\n"
        );
        let dir = std::env::temp_dir().join(format!("reuse-check-incremental-decl-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let lib = include_str!("../../../fixtures/paged-kv/src/lib.rs").replace("pub mod buggy;\npub mod correct;\n", "pub mod user;\n");
        std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
        std::fs::write(dir.join("src/user.rs"), &declaring).unwrap();
        let dir = std::fs::canonicalize(&dir).unwrap();
        let path: PathBuf = dir.join("src/user.rs");
        let mut reference = session(&dir);
        let mut edits: Vec<(usize, usize, &str)> = Vec::new();
        for (i, _) in declaring.match_indices('\n') {
            edits.push((i, i, " /* é😀 */"));
        }
        let zero = declaring.find("vec![0; n]; // 😀").unwrap() + 5;
        edits.push((zero, zero + 1, "PAD_SLOT_ID"));
        let mut used = 0;
        for (a, b, ins) in edits {
            let mut live = session(&dir);
            let start = live.update(&path, declaring.clone());
            let old_file = live.file(&path).unwrap().clone();
            let job = live.job(&path).unwrap().clone();
            let text = format!("{}{}{}", &declaring[..a], ins, &declaring[b..]);
            let new = Arc::new(SourceFile::new(path.clone(), old_file.rel_path.clone(), text.clone()));
            let expected: Vec<String> = reference.update(&path, text.clone()).iter().map(key).collect();
            let Some(got) = recheck(&old_file, &start, &new, &job, live.index(), &live.items()) else { continue };
            used += 1;
            assert_eq!(got.iter().map(key).collect::<Vec<_>>(), expected, "edit {a}..{b} {ins:?}");
            let (old_edit, _) = edited(&declaring, &text);
            live.shift_text(&path, new, old_edit.end, text.len() as isize - declaring.len() as isize);
            assert_eq!(live.check_file(&path).iter().map(key).collect::<Vec<_>>(), expected, "shifted index, edit {a}..{b}");
        }
        assert!(used > 10, "the incremental path was taken {used} times");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Issue 11: the incremental path must give what a fresh check of the final text gives, after any
/// sequence of edits, including findings that depend on another item (a field's type) and
/// messages that name a line.
#[cfg(test)]
pub(super) mod equivalence {
    use std::path::PathBuf;
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::recheck;
    use super::tests::{key, session};
    use crate::source::{FileRef, SourceFile};

    pub(in crate::lsp) const LIB: &str = r#"pub mod user;

pub const PAD_SLOT_ID: i64 = -1;

pub struct PagedKv {
    pub cache: Vec<f32>,
}

impl PagedKv {
    #[reuse::contract(writes(self.cache[slots], skip = PAD_SLOT_ID))]
    pub fn write(&mut self, slots: &[i64]) {
        let _ = slots;
    }
}

#[derive(Clone, Copy)]
pub struct Buf(pub u64);

#[reuse::contract(aliases(return = x))]
pub fn relu_inplace(x: Buf) -> Buf {
    x
}

pub fn read(_: Buf) {}
"#;

    /// A caller file that declares nothing: a finding through a field's type (`self.kv`), one
    /// whose message names a line, a suppression, and items in between.
    pub(in crate::lsp) const USER: &str = r#"use crate::{read, relu_inplace, Buf, PagedKv, PAD_SLOT_ID};

pub struct Runner {
    kv: PagedKv,
    spare: PagedKv,
}

impl Runner {
    pub fn step(&mut self, n: usize) {
        let slots = vec![0; n];
        self.kv.write(&slots);
    }

    pub fn fine(&mut self, n: usize) {
        let slots = vec![PAD_SLOT_ID; n];
        self.spare.write(&slots);
    }
}

pub fn donate(a: Buf) -> Buf {
    let y = relu_inplace(a);
    read(a);
    y
}

pub fn quiet(r: &mut Runner, n: usize) {
    // reuse-check: allow(pad_to_null_block) scratch rows
    let slots = vec![0; n];
    r.kv.write(&slots);
}

pub fn later(a: Buf) -> Buf {
    let y = relu_inplace(a);
    let z = y;
    read(a);
    z
}
"#;

    #[derive(Clone, Debug)]
    enum Edit {
        BlankLineBefore(usize),
        DeleteLineIfBlank(usize),
        SpacesAtStart(usize, usize),
        SpacesAtEnd(usize, usize),
        DuplicateLine(usize),
        DeleteLine(usize),
    }

    fn edit_strategy() -> impl Strategy<Value = Edit> {
        prop_oneof![
            4 => any::<usize>().prop_map(Edit::BlankLineBefore),
            2 => any::<usize>().prop_map(Edit::DeleteLineIfBlank),
            2 => (any::<usize>(), 1..4usize).prop_map(|(l, n)| Edit::SpacesAtStart(l, n)),
            2 => (any::<usize>(), 1..4usize).prop_map(|(l, n)| Edit::SpacesAtEnd(l, n)),
            1 => any::<usize>().prop_map(Edit::DuplicateLine),
            1 => any::<usize>().prop_map(Edit::DeleteLine),
        ]
    }

    fn apply(text: &str, edit: &Edit) -> String {
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let n = lines.len();
        match *edit {
            Edit::BlankLineBefore(l) => lines.insert(l % n, String::new()),
            Edit::DeleteLineIfBlank(l) => {
                if lines[l % n].trim().is_empty() && n > 1 {
                    lines.remove(l % n);
                }
            }
            Edit::SpacesAtStart(l, k) => lines[l % n].insert_str(0, &" ".repeat(k)),
            Edit::SpacesAtEnd(l, k) => lines[l % n].push_str(&" ".repeat(k)),
            Edit::DuplicateLine(l) => {
                let line = lines[l % n].clone();
                lines.insert(l % n, line);
            }
            Edit::DeleteLine(l) => {
                if n > 1 {
                    lines.remove(l % n);
                }
            }
        }
        lines.join("\n")
    }

    /// A fresh copy of the workspace (tests and proptest cases run in parallel).
    fn workspace() -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("reuse-check-incremental-prop-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), LIB).unwrap();
        std::fs::write(dir.join("src/user.rs"), USER).unwrap();
        std::fs::canonicalize(&dir).unwrap()
    }

    /// The reported case: the finding through `self.kv` is there on open and after a blank line
    /// inserted in the method; a `(line N)` after the edit moves with it.
    #[test]
    fn a_blank_line_in_a_method_keeps_a_finding_that_needs_a_field_type() {
        let dir = workspace();
        let path = dir.join("src/user.rs");
        let mut live = session(&dir);
        let start = live.update(&path, USER.to_string());
        let rules: Vec<&str> = start.iter().map(|f| f.rule.name).collect();
        assert_eq!(rules, ["pad_to_null_block", "use_after_donate", "use_after_donate"], "{:#?}", start.iter().map(key).collect::<Vec<_>>());
        let old: FileRef = live.file(&path).unwrap().clone();
        let at = USER.find("        self.kv.write(&slots);").unwrap();
        let text = format!("{}\n{}", &USER[..at], &USER[at..]);
        let new: FileRef = Arc::new(SourceFile::new(path.clone(), old.rel_path.clone(), text.clone()));
        let got = recheck(&old, &start, &new, live.job(&path).unwrap(), live.index(), &live.items()).expect("the item path");
        let want = session(&dir).update(&path, text);
        assert_eq!(got.iter().map(key).collect::<Vec<_>>(), want.iter().map(key).collect::<Vec<_>>());
        assert!(got.iter().any(|f| f.rule.name == "pad_to_null_block"));
        assert!(got.iter().any(|f| f.message.contains("(line 22)")), "{:#?}", got.iter().map(key).collect::<Vec<_>>());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A helper's body counts for the effects of a function with `preserves(..)` in another item:
    /// editing the helper must not keep that function's old findings.
    #[test]
    fn editing_a_helper_that_a_preserving_function_follows_takes_the_full_check() {
        let dir = workspace();
        let path = dir.join("src/plans.rs");
        let text = "use std::collections::HashMap;\n\n#[reuse::effect]\npub fn log_step() {}\n\npub struct Plans {\n    plans: HashMap<u64, u64>,\n}\n\nimpl Plans {\n    #[reuse::contract(preserves(log_step))]\n    pub fn get(&mut self, k: u64) -> u64 {\n        self.effects();\n        *self.plans.entry(k).or_insert(k)\n    }\n}\n\nimpl Plans {\n    fn effects(&mut self) {\n        log_step();\n    }\n}\n";
        std::fs::write(&path, text).unwrap();
        let mut live = session(&dir);
        let start = live.update(&path, text.to_string());
        assert!(start.iter().all(|f| f.rule.name != "hit_skips_effect"), "{:#?}", start.iter().map(key).collect::<Vec<_>>());
        let edited = text.replace("        log_step();\n    }\n}\n", "    }\n}\n");
        let want = session(&dir).update(&path, edited.clone());
        assert!(want.iter().any(|f| f.rule.name == "hit_skips_effect"), "{:#?}", want.iter().map(key).collect::<Vec<_>>());
        let old = live.file(&path).unwrap().clone();
        let new: FileRef = Arc::new(SourceFile::new(path.clone(), old.rel_path.clone(), edited));
        assert!(recheck(&old, &start, &new, live.job(&path).unwrap(), live.index(), &live.items()).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// What the server does: each edit goes through the item path when it can, else the full
        /// check, on the text and findings of the step before. Every step must equal a fresh check.
        #[test]
        fn any_sequence_of_edits_gives_the_findings_of_a_fresh_check(edits in proptest::collection::vec(edit_strategy(), 1..12)) {
            let dir = workspace();
            let path = dir.join("src/user.rs");
            let (mut live, mut fresh) = (session(&dir), session(&dir));
            let mut findings = live.update(&path, USER.to_string());
            let mut file: FileRef = live.file(&path).unwrap().clone();
            for edit in &edits {
                let text = apply(&file.text, edit);
                let new: FileRef = Arc::new(SourceFile::new(path.clone(), file.rel_path.clone(), text.clone()));
                let job = live.job(&path).unwrap().clone();
                findings = match recheck(&file, &findings, &new, &job, live.index(), &live.items()) {
                    Some(f) => f,
                    None => live.update(&path, text.clone()),
                };
                file = new;
                let want: Vec<String> = fresh.update(&path, text.clone()).iter().map(key).collect();
                let got: Vec<String> = findings.iter().map(key).collect();
                prop_assert_eq!(got, want, "after {:?}\n{}", edit, text);
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
