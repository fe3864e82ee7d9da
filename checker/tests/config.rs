//! Configuration from `[workspace.metadata.reuse-check]` and `[package.metadata.reuse-check]`, run
//! through the binary on temporary workspaces: a package's settings override the workspace's, and
//! every bad setting stops the tool with exit status 2 and a message that names the key and the file.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use cargo_metadata::diagnostic::DiagnosticLevel;
use cargo_metadata::Message;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn run(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reuse-check")).args(args).current_dir(root).output().unwrap()
}

fn package_manifest(name: &str, extra: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n{extra}")
}

/// Code that breaks a contract declared in a contracts file (`pad_to_null_block`, an error by
/// default) and carries a suppression that suppresses nothing (`unused_suppression`, a warning).
const LIB: &str = "pub fn warmup(cache: &mut [f32], n: usize) {
    let slots = vec![0; n];
    kernels::launch(cache, &slots);
}

#[reuse::allow(stale_key, reason = \"no cache here\")]
pub fn nothing() {}
";

/// A contract for a function the workspace does not own.
const CONTRACTS: &str = "mod kernels {
    #[reuse::contract(writes(cache[slots], skip = -1))]
    fn launch(cache: &mut [f32], slots: &[i64]);
}
";

/// `(file, rule, level)` of each finding, read from the cargo JSON stream.
fn findings(root: &Path) -> BTreeSet<(String, String, String)> {
    let out = run(root, &["--message-format", "json"]);
    assert_ne!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    Message::parse_stream(&out.stdout[..])
        .filter_map(|m| match m.unwrap() {
            Message::CompilerMessage(m) => Some(m.message),
            _ => None,
        })
        .map(|d| {
            let level = match d.level {
                DiagnosticLevel::Error => "error",
                DiagnosticLevel::Warning => "warning",
                _ => "other",
            };
            let code = d.code.unwrap().code;
            (d.spans[0].file_name.clone(), code.trim_start_matches("reuse::").to_string(), level.to_string())
        })
        .collect()
}

fn set(items: &[(&str, &str, &str)]) -> BTreeSet<(String, String, String)> {
    items.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
}

#[test]
fn package_settings_override_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        r#"[workspace]
members = ["a", "b", "c"]
resolver = "2"

[workspace.metadata.reuse-check]
exclude = ["a/src/generated/**"]
contracts = ["contracts/kernels.rs"]

[workspace.metadata.reuse-check.rules]
unused_suppression = "deny"
pad_to_null_block = "warn"
"#,
    );
    write(root, "contracts/kernels.rs", CONTRACTS);
    // a: the workspace's settings.
    write(root, "a/Cargo.toml", &package_manifest("a", ""));
    write(root, "a/src/lib.rs", LIB);
    write(root, "a/src/generated/gen.rs", LIB);
    // b: its own levels for both rules.
    write(
        root,
        "b/Cargo.toml",
        &package_manifest("b", "\n[package.metadata.reuse-check.rules]\nunused_suppression = \"allow\"\npad_to_null_block = \"deny\"\n"),
    );
    write(root, "b/src/lib.rs", LIB);
    // c: one rule of its own and an exclusion of its own; the other rule from the workspace.
    write(
        root,
        "c/Cargo.toml",
        &package_manifest("c", "\n[package.metadata.reuse-check]\nexclude = [\"c/src/old.rs\"]\nrules = { unused_suppression = \"warn\" }\n"),
    );
    write(root, "c/src/lib.rs", LIB);
    write(root, "c/src/old.rs", LIB);

    assert_eq!(
        findings(root),
        set(&[
            ("a/src/lib.rs", "pad_to_null_block", "warning"),
            ("a/src/lib.rs", "unused_suppression", "error"),
            ("b/src/lib.rs", "pad_to_null_block", "error"),
            ("c/src/lib.rs", "pad_to_null_block", "warning"),
            ("c/src/lib.rs", "unused_suppression", "warning"),
            // No crate `kernels` is in these workspaces: the contract binds nothing.
            ("contracts/kernels.rs", "unmatched_contract", "warning"),
        ])
    );
}

#[test]
fn defaults_apply_without_configuration_and_contracts_files_are_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "Cargo.toml", "[workspace]\nmembers = [\"a\"]\nresolver = \"2\"\n");
    write(root, "contracts/kernels.rs", CONTRACTS);
    write(root, "a/Cargo.toml", &package_manifest("a", ""));
    write(root, "a/src/lib.rs", LIB);
    // Without `contracts`, `kernels::launch` has no contract.
    assert_eq!(findings(root), set(&[("a/src/lib.rs", "unused_suppression", "warning")]));
    // A package can name a contracts file too (relative to the package).
    write(root, "a/Cargo.toml", &package_manifest("a", "\n[package.metadata.reuse-check]\ncontracts = [\"../contracts/kernels.rs\"]\n"));
    assert_eq!(
        findings(root),
        set(&[
            ("a/src/lib.rs", "pad_to_null_block", "error"),
            ("a/src/lib.rs", "unused_suppression", "warning"),
            ("contracts/kernels.rs", "unmatched_contract", "warning"),
        ])
    );
}

/// Runs the check on a workspace whose root manifest ends with `workspace_extra` and whose one
/// member's manifest ends with `package_extra`; returns the exit status, stdout, stderr.
fn run_with(workspace_extra: &str, package_extra: &str) -> (tempfile::TempDir, Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "Cargo.toml", &format!("[workspace]\nmembers = [\"kv\"]\nresolver = \"2\"\n\n{workspace_extra}"));
    write(root, "kv/Cargo.toml", &package_manifest("kv", &format!("\n{package_extra}")));
    write(root, "kv/src/lib.rs", LIB);
    let out = run(root, &["--message-format", "json"]);
    let (stdout, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    (dir, out.status.code(), stdout, stderr)
}

#[test]
fn each_bad_setting_exits_2_naming_the_key_and_the_file() {
    let ws = "[workspace.metadata.reuse-check]\n";
    let pkg = "[package.metadata.reuse-check]\n";
    let cases: &[(&str, &str, &str, &str)] = &[
        // (workspace settings, package settings, key named, manifest named)
        (&format!("{ws}rulez = {{}}\n"), "", "workspace.metadata.reuse-check.rulez", "Cargo.toml"),
        (&format!("{ws}rules = {{ no_such_rule = \"deny\" }}\n"), "", "workspace.metadata.reuse-check.rules.no_such_rule", "Cargo.toml"),
        (&format!("{ws}rules = {{ stale_key = \"loud\" }}\n"), "", "workspace.metadata.reuse-check.rules.stale_key", "Cargo.toml"),
        (&format!("{ws}rules = {{ stale_key = 1 }}\n"), "", "workspace.metadata.reuse-check.rules.stale_key", "Cargo.toml"),
        (&format!("{ws}rules = [\"stale_key\"]\n"), "", "workspace.metadata.reuse-check.rules", "Cargo.toml"),
        (&format!("{ws}exclude = \"vendor\"\n"), "", "workspace.metadata.reuse-check.exclude", "Cargo.toml"),
        (&format!("{ws}exclude = [\"vendor/[a\"]\n"), "", "workspace.metadata.reuse-check.exclude", "Cargo.toml"),
        (&format!("{ws}contracts = [1]\n"), "", "workspace.metadata.reuse-check.contracts", "Cargo.toml"),
        ("[workspace.metadata]\nreuse-check = \"on\"\n", "", "workspace.metadata.reuse-check", "Cargo.toml"),
        ("", &format!("{pkg}excludes = []\n"), "package.metadata.reuse-check.excludes", "kv/Cargo.toml"),
        ("", &format!("{pkg}rules = {{ memoized_effect = \"off\" }}\n"), "package.metadata.reuse-check.rules.memoized_effect", "kv/Cargo.toml"),
        ("", &format!("{pkg}contracts = \"c.rs\"\n"), "package.metadata.reuse-check.contracts", "kv/Cargo.toml"),
    ];
    for (workspace, package, key, manifest) in cases {
        let (dir, code, stdout, stderr) = run_with(workspace, package);
        let file = dir.path().canonicalize().unwrap().join(manifest);
        let raw_file = dir.path().join(manifest);
        assert_eq!(code, Some(2), "{key}: {stderr}");
        assert!(stdout.is_empty(), "{key}: nothing on stdout: {stdout}");
        assert!(stderr.contains(&format!("`{key}`")), "{key}: {stderr}");
        assert!(
            stderr.contains(&file.display().to_string()) || stderr.contains(&raw_file.display().to_string()),
            "{key} in {}: {stderr}",
            file.display()
        );
    }
}

#[test]
fn a_missing_contracts_file_exits_2_naming_it() {
    let (_dir, code, _, stderr) = run_with("[workspace.metadata.reuse-check]\ncontracts = [\"contracts/missing.rs\"]\n", "");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("contracts/missing.rs"), "{stderr}");
}
