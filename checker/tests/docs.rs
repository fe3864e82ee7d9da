//! The user documentation in `docs/` agrees with the tool: `docs/rules.md` is what `--explain`
//! prints for every rule (regenerate with `UPDATE_DOCS=1 cargo test -p reuse-check --test docs`),
//! and the README links only to pages that exist inside the repository.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `docs/rules.md`, from the catalogue: the table of rules, then each rule's `--explain` text with
/// its headings one level down.
fn rules_page() -> String {
    let mut out = String::from(
        "# Rules\n\n<!-- Generated from the rule catalogue (rules/src/catalogue/): \
         `UPDATE_DOCS=1 cargo test -p reuse-check --test docs`. Do not edit by hand. -->\n\n\
         Each section is what `reuse-check --explain RULE` prints. Levels: `error` fails the run (exit status 1), \
         `warning` is reported (exit status 0 unless `--deny warnings`), `allow` is not reported. Change a level in \
         the configuration ([configuration.md](configuration.md)) or for one run with `-A`/`-W`/`-D RULE`.\n\n\
         | rule | default | found by | what it reports |\n| --- | --- | --- | --- |\n",
    );
    for r in reuse_rules::catalogue::ALL {
        let by: Vec<String> = r.found_by.iter().map(|b| format!("{b:?}").to_lowercase()).collect();
        out.push_str(&format!("| [`{}`](#{}) | {} | {} | {} |\n", r.name, r.name, r.default_level, by.join(", "), r.summary));
    }
    for r in reuse_rules::catalogue::ALL {
        out.push('\n');
        out.push_str(&r.explain_nested(1));
    }
    out
}

#[test]
fn the_rules_page_is_what_explain_prints() {
    let path = repo().join("docs/rules.md");
    let expected = rules_page();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(actual == expected, "docs/rules.md is out of date: UPDATE_DOCS=1 cargo test -p reuse-check --test docs");
}

#[test]
fn the_readme_and_the_docs_link_to_pages_inside_the_repository() {
    let root = repo();
    for page in ["README.md", "docs/contracts.md", "docs/rules.md", "docs/contracts-files.md", "docs/configuration.md", "docs/runtime.md"] {
        let text = std::fs::read_to_string(root.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        let dir = root.join(page).parent().unwrap().to_path_buf();
        for target in text.split("](").skip(1).filter_map(|rest| rest.split(')').next()) {
            if target.starts_with("http") || target.starts_with('#') {
                continue;
            }
            let file = target.split('#').next().unwrap();
            let resolved = dir.join(file);
            assert!(resolved.exists(), "{page} links to {target}, which does not exist");
            let canonical = resolved.canonicalize().unwrap();
            assert!(canonical.starts_with(root.canonicalize().unwrap()), "{page} links outside the repository: {target}");
        }
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for page in ["docs/contracts.md", "docs/rules.md", "docs/contracts-files.md", "docs/configuration.md", "docs/runtime.md"] {
        assert!(readme.contains(&format!("]({page})")), "the README links to {page}");
    }
}

#[test]
fn every_clause_has_a_section_in_the_contract_language_page() {
    let text = std::fs::read_to_string(repo().join("docs/contracts.md")).unwrap();
    for clause in ["reuses", "preserves", "writes", "reads", "forbids_write", "aliases"] {
        assert!(text.contains(&format!("## `{clause}`")), "docs/contracts.md has a section on `{clause}`");
    }
}
