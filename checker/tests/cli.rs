//! The command line: exit statuses, `--explain`, `--list-rules`, and the cargo subcommand form.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reuse-check"))
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(rel)
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("binary runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn error_findings_exit_1_and_clean_trees_exit_0() {
    let (code, out, _) = run(bin().arg(fixture("plan-cache")).arg("--color=never"));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[reuse::hit_skips_effect]"));
    let dir = tempdir("clean");
    std::fs::write(dir.join("lib.rs"), "pub fn f() {}\n").unwrap();
    let (code, out, _) = run(bin().arg(&dir));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 errors, 0 warnings"));
}

#[test]
fn warnings_exit_0_unless_denied() {
    let dir = tempdir("warn");
    std::fs::write(dir.join("lib.rs"), "#[reuse::allow(stale_key, reason = \"old\")]\nfn f() {}\n").unwrap();
    let (code, out, _) = run(bin().arg(&dir));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("unused_suppression"));
    let (code, _, _) = run(bin().arg(&dir).args(["--deny", "warnings"]));
    assert_eq!(code, 1);
    let (code, _, _) = run(bin().arg(&dir).args(["-D", "warnings"]));
    assert_eq!(code, 1);
}

#[test]
fn tool_errors_exit_2_with_a_message() {
    let (code, _, err) = run(bin().arg("/no/such/dir"));
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/dir"), "{err}");
    let (code, _, err) = run(bin().arg("--no-such-flag"));
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(bin().args(["--explain", "no_such_rule"]));
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule `no_such_rule`"));
    let (code, _, err) = run(bin().args(["--deny", "everything", "."]));
    assert_eq!(code, 2);
    assert!(err.contains("--deny everything"), "{err}");
}

#[test]
fn explain_prints_the_rule_docs_and_list_rules_lists_all() {
    let (code, out, _) = run(bin().args(["--explain", "pad_to_null_block"]));
    assert_eq!(code, 0);
    assert!(out.starts_with("# pad_to_null_block"));
    assert!(out.contains("## Why it matters") && out.contains("vLLM"));
    let (code, out, _) = run(bin().arg("--list-rules"));
    assert_eq!(code, 0);
    for rule in reuse_rules::catalogue::ALL {
        assert!(out.contains(rule.name), "{} missing", rule.name);
    }
}

#[test]
fn runs_as_a_cargo_subcommand_on_a_workspace_package() {
    // `cargo reuse-check -p fixture-paged-kv` runs `cargo-reuse-check reuse-check -p fixture-paged-kv`.
    let cargo_bin = Path::new(env!("CARGO_BIN_EXE_reuse-check")).with_file_name("cargo-reuse-check");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let (code, out, err) = run(Command::new(cargo_bin).args(["reuse-check", "-p", "fixture-paged-kv", "--color=never", "--manifest-path"]).arg(&manifest));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("[reuse::pad_to_null_block]"), "{out}");
    assert!(!out.contains("plan-cache"), "only the selected package is checked");
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reuse-check-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
