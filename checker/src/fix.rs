//! `--fix`: writes the findings' fixes (the sentinel replacement of `pad_to_null_block`) into the
//! checked files. Only regular files inside the checked root are written, never through a link:
//! the new text goes to a temporary file in the same directory, renamed over the old one (a rename
//! replaces the directory entry, it does not follow it). A file whose text changed since it was
//! read is left alone.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::Report;
use crate::finding::Fix;
use crate::source::FileRef;

/// What `--fix` did.
#[derive(Debug, Default)]
pub struct Applied {
    /// Files written, with the number of fixes in each.
    pub written: Vec<(PathBuf, usize)>,
    /// Files not written, and why.
    pub refused: Vec<(PathBuf, String)>,
}

/// Applies every fix of `report` whose file lies inside `root`. Overlapping fixes: the first wins;
/// the next run offers the rest.
pub fn apply(report: &Report, root: &Path) -> Applied {
    let mut by_file: BTreeMap<PathBuf, (FileRef, Vec<&Fix>)> = BTreeMap::new();
    for f in &report.findings {
        if let Some(fix) = &f.fix {
            let entry = by_file.entry(f.primary.file.path.clone()).or_insert_with(|| (f.primary.file.clone(), Vec::new()));
            entry.1.push(fix);
        }
    }
    let mut applied = Applied::default();
    for (path, (file, fixes)) in by_file {
        match write_fixed(&path, &file.text, &fixes, root) {
            Ok(n) => applied.written.push((path, n)),
            Err(why) => applied.refused.push((path, why)),
        }
    }
    applied
}

/// `text` with `fixes` applied (later ones first, so that earlier ranges stay valid; a fix that
/// overlaps one already applied is skipped), and how many were applied.
pub fn fixed_text(text: &str, fixes: &[&Fix]) -> (String, usize) {
    let mut sorted: Vec<&Fix> = fixes.to_vec();
    sorted.sort_by(|a, b| b.range.start.cmp(&a.range.start).then(b.range.end.cmp(&a.range.end)));
    sorted.dedup_by(|a, b| a == b);
    let mut out = text.to_string();
    let mut limit = usize::MAX;
    let mut n = 0;
    for fix in sorted {
        let ok = fix.range.end <= limit && fix.range.start <= fix.range.end && out.is_char_boundary(fix.range.start) && out.is_char_boundary(fix.range.end) && fix.range.end <= text.len();
        if ok {
            out.replace_range(fix.range.clone(), &fix.replacement);
            limit = fix.range.start;
            n += 1;
        }
    }
    (out, n)
}

fn write_fixed(path: &Path, checked_text: &str, fixes: &[&Fix], root: &Path) -> Result<usize, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.file_type().is_file() {
        return Err("is not a regular file (a link is never written through)".into());
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return Err("has no directory".into()) };
    let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
    let dir = std::fs::canonicalize(parent).map_err(|e| format!("its directory cannot be read: {e}"))?;
    let root = std::fs::canonicalize(root).map_err(|e| format!("the checked root cannot be read: {e}"))?;
    if !dir.join(name).starts_with(&root) {
        return Err(format!("is outside the checked tree ({})", root.display()));
    }
    let current = crate::engine::read_source(path).map_err(|e| format!("cannot be read: {e}"))?;
    if current != checked_text {
        return Err("changed since it was checked".into());
    }
    let (text, n) = fixed_text(checked_text, fixes);
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|e| format!("cannot write next to it: {e}"))?;
    tmp.write_all(text.as_bytes()).map_err(|e| format!("cannot write: {e}"))?;
    tmp.as_file().set_permissions(meta.permissions()).map_err(|e| format!("cannot keep its permissions: {e}"))?;
    tmp.persist(dir.join(name)).map_err(|e| format!("cannot replace it: {}", e.error))?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(range: std::ops::Range<usize>, replacement: &str) -> Fix {
        Fix { message: String::new(), range, replacement: replacement.into() }
    }

    #[test]
    fn fixes_apply_from_the_end_and_overlaps_are_skipped() {
        let text = "let a = vec![0; n]; let b = vec![0; m];";
        let (a, b, c) = (fix(13..14, "PAD"), fix(33..34, "-1"), fix(12..15, "X"));
        let (out, n) = fixed_text(text, &[&a, &b, &c]);
        assert_eq!(n, 2);
        assert_eq!(out, "let a = vec![PAD; n]; let b = vec![-1; m];");
    }
}
