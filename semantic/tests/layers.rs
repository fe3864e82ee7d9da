//! The semantic core knows nothing of terminals, JSON output formats, SARIF or LSP: none of the
//! crates the outer layer (`reuse-check`) renders or serves with is a dependency of it.

#[test]
fn the_core_depends_on_no_presentation_crate() {
    let manifest = include_str!("../Cargo.toml");
    let deps: Vec<&str> = manifest
        .lines()
        .skip_while(|l| !l.starts_with("[dependencies]"))
        .skip(1)
        .take_while(|l| !l.starts_with("[dev-dependencies]"))
        .filter_map(|l| l.split(['=', '.']).next().map(str::trim))
        .filter(|name| !name.is_empty() && !name.starts_with('['))
        .collect();
    assert!(deps.contains(&"syn"), "the manifest was read: {deps:?}");
    for outer in ["ariadne", "lsp-server", "lsp-types", "clap", "crossbeam-channel", "reuse-check"] {
        assert!(!deps.contains(&outer), "`{outer}` belongs to the outer layer, not to the semantic core");
    }
}
