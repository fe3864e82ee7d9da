//! The rough edges a new user hits first (the adoption issue): help, summary and colours, paths
//! that can be clicked from where the command ran, names that agree across surfaces, level flags,
//! configuration errors that show the manifest, and the sentinel fix and `--fix`.

use std::path::{Path, PathBuf};
use std::process::Command;

use reuse_check::workspace::Target;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reuse-check"))
}

/// Runs with a clean colour environment: (exit status, stdout, stderr).
fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.env_remove("CARGO_TERM_COLOR").env_remove("NO_COLOR").output().expect("binary runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(rel)
}

/// A workspace of two crates: `kv` declares the kernel in module `ops` (with its sentinel) and
/// pads with 0 itself; `app` calls it through the crate without importing the sentinel; `imp`
/// imports it.
fn two_crates() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "Cargo.toml", "[workspace]\nmembers = [\"kv\", \"app\", \"imp\"]\nresolver = \"2\"\n");
    let package = |name: &str, deps: &str| format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}");
    write(root, "kv/Cargo.toml", &package("kv", ""));
    write(
        root,
        "kv/src/ops.rs",
        "pub const PAD_SLOT_ID: i64 = -1;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write(cache: &mut [f32], slots: &[i64]) {}\n",
    );
    write(root, "kv/src/lib.rs", "pub mod ops;\n\npub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    ops::write(cache, &slots);\n}\n");
    write(root, "app/Cargo.toml", &package("app", "kv = { path = \"../kv\" }\n"));
    write(root, "app/src/lib.rs", "pub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    kv::ops::write(cache, &slots);\n}\n");
    write(root, "imp/Cargo.toml", &package("imp", "kv = { path = \"../kv\" }\n"));
    write(
        root,
        "imp/src/lib.rs",
        "use kv::ops::{write, PAD_SLOT_ID};\n\npub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    write(cache, &slots);\n    let _ = PAD_SLOT_ID;\n}\n",
    );
    dir
}

#[test]
fn the_sentinel_fix_names_a_path_that_resolves_from_the_file() {
    let ws = two_crates();
    let report = reuse_check::check(&Target { path: Some(ws.path().to_path_buf()), workspace: true, ..Target::default() }).unwrap();
    let fix = |file: &str| {
        let f = report.findings.iter().find(|f| f.primary.file.rel_path == file).unwrap_or_else(|| panic!("a finding in {file}: {:?}", report.findings));
        assert_eq!(f.rule.name, "pad_to_null_block");
        f.fix.as_ref().unwrap().replacement.clone()
    };
    assert_eq!(fix("kv/src/lib.rs"), "crate::ops::PAD_SLOT_ID");
    assert_eq!(fix("app/src/lib.rs"), "kv::ops::PAD_SLOT_ID");
    assert_eq!(fix("imp/src/lib.rs"), "PAD_SLOT_ID");
}

#[test]
fn a_contracts_file_sentinel_without_a_known_path_is_replaced_by_its_value() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check]\ncontracts = [\"contracts.rs\"]\n");
    write(root, "contracts.rs", "mod kernels {\n    #[reuse::contract(writes(cache[slots], skip = NO_SLOT))]\n    fn launch(cache: &mut [f32], slots: &[i64]);\n}\n");
    write(root, "src/lib.rs", "pub const NO_SLOT: i64 = -1;\npub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    kernels::launch(cache, &slots);\n}\n");
    write(root, "src/other.rs", "");
    let report = reuse_check::check(&Target { path: Some(root.to_path_buf()), ..Target::default() }).unwrap();
    let f = report.findings.iter().find(|f| f.rule.name == "pad_to_null_block").expect("a finding");
    // The calling file defines it: its name.
    assert_eq!(f.fix.as_ref().unwrap().replacement, "NO_SLOT");
    write(root, "src/lib.rs", "pub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    kernels::launch(cache, &slots);\n}\n");
    write(root, "src/other.rs", "pub const NO_SLOT: i64 = -1;\n");
    let report = reuse_check::check(&Target { path: Some(root.to_path_buf()), ..Target::default() }).unwrap();
    let f = report.findings.iter().find(|f| f.rule.name == "pad_to_null_block").expect("a finding");
    assert_eq!(f.fix.as_ref().unwrap().replacement, "-1");
}

#[test]
fn fix_writes_the_sentinel_rechecks_and_reports_what_remains() {
    let ws = two_crates();
    let root = ws.path();
    let (code, out, err) = run(bin().args(["--workspace", "--fix", "--color=never"]).current_dir(root));
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("fixed 1 finding in kv/src/lib.rs"), "{err}");
    assert!(out.contains("0 errors, 0 warnings"), "{out}");
    let text = std::fs::read_to_string(root.join("app/src/lib.rs")).unwrap();
    assert!(text.contains("vec![kv::ops::PAD_SLOT_ID; n]"), "{text}");
    assert!(std::fs::read_to_string(root.join("kv/src/lib.rs")).unwrap().contains("vec![crate::ops::PAD_SLOT_ID; n]"));
}

#[cfg(unix)]
#[test]
fn fix_never_writes_outside_the_tree_or_through_a_link() {
    let ws = two_crates();
    let root = ws.path();
    let report = reuse_check::check(&Target { path: Some(root.to_path_buf()), workspace: true, ..Target::default() }).unwrap();
    // A root the files are not in: nothing is written.
    let elsewhere = tempfile::tempdir().unwrap();
    let applied = reuse_check::fix::apply(&report, elsewhere.path());
    assert!(applied.written.is_empty());
    assert_eq!(applied.refused.len(), 3);
    assert!(applied.refused.iter().all(|(_, why)| why.contains("outside the checked tree")), "{:?}", applied.refused);
    // A checked file replaced by a link to a file outside: the link is not followed.
    let outside = elsewhere.path().join("lib.rs");
    let app = root.join("app/src/lib.rs");
    std::fs::copy(&app, &outside).unwrap();
    std::fs::remove_file(&app).unwrap();
    std::os::unix::fs::symlink(&outside, &app).unwrap();
    let applied = reuse_check::fix::apply(&report, root);
    assert!(applied.refused.iter().any(|(p, why)| p.ends_with("app/src/lib.rs") && why.contains("not a regular file")), "{:?}", applied.refused);
    assert!(std::fs::read_to_string(&outside).unwrap().contains("vec![0; n]"));
    assert!(std::fs::symlink_metadata(&app).unwrap().file_type().is_symlink());
}

#[test]
fn level_flags_override_the_configuration_and_later_ones_win() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "lib.rs", "#[reuse::allow(stale_key, reason = \"old\")]\nfn f() {}\n");
    let (code, out, _) = run(bin().arg(root).arg("--no-cache"));
    assert_eq!(code, 0);
    assert!(out.contains("unused_suppression"), "{out}");
    let (code, out, _) = run(bin().arg(root).args(["-D", "unused_suppression"]));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("1 error, 0 warnings"), "{out}");
    let (code, out, _) = run(bin().arg(root).args(["-A", "reuse::unused_suppression"]));
    assert_eq!(code, 0);
    assert!(!out.contains("unused_suppression"), "{out}");
    let (code, _, _) = run(bin().arg(root).args(["-A", "unused_suppression", "-D", "unused_suppression"]));
    assert_eq!(code, 1);
    let (code, _, _) = run(bin().arg(root).args(["-D", "unused_suppression", "-W", "unused_suppression"]));
    assert_eq!(code, 0);
    let (code, _, _) = run(bin().arg(root).args(["-W", "unused_suppression", "-D", "warnings"]));
    assert_eq!(code, 1);
    let (code, _, err) = run(bin().arg(root).args(["-D", "unused_supression"]));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `unused_suppression`?"), "{err}");
}

#[test]
fn help_lists_lsp_describes_every_flag_and_names_the_cargo_form() {
    let (code, out, _) = run(bin().arg("--help"));
    assert_eq!(code, 0);
    assert!(out.contains("reuse-check lsp") && out.contains("language server"), "{out}");
    let manifest = out.lines().find(|l| l.contains("--manifest-path")).unwrap_or("");
    assert!(manifest.contains("Cargo.toml"), "--manifest-path has a description: {out}");
    assert!(out.contains("-q, --quiet") && out.contains("--fix") && out.contains("-A, --allow <RULE>"), "{out}");
    assert!(out.contains("docs/") && out.contains("rules.md"), "{out}");
    let (code, out, _) = run(Command::new(env!("CARGO_BIN_EXE_cargo-reuse-check")).args(["reuse-check", "--help"]));
    assert_eq!(code, 0);
    assert!(out.contains("Usage: cargo reuse-check [OPTIONS] [PATH]"), "{out}");
}

#[test]
fn quiet_hides_the_summary_and_the_summary_reads_well() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib.rs", "pub fn f() {}\n");
    let (code, out, _) = run(bin().arg(dir.path()).arg("--no-cache"));
    assert_eq!(code, 0);
    assert_eq!(out, "reuse-check: 0 errors, 0 warnings in 1 file (2 lines, 0 parsed)\n");
    let (_, out, _) = run(bin().arg(dir.path()).arg("-q"));
    assert_eq!(out, "");
    let (_, out, _) = run(bin().arg(dir.path()).args(["--quiet", "--format", "short"]));
    assert_eq!(out, "");
}

#[test]
fn human_output_has_no_trailing_spaces_and_one_escape_per_span() {
    let (_, plain, _) = run(bin().arg(fixture("paged-kv")).arg("--color=never"));
    assert!(plain.lines().all(|l| !l.ends_with(' ')), "{plain}");
    let (_, colored, _) = run(bin().arg(fixture("paged-kv")).arg("--color=always"));
    assert!(colored.contains("\u{1b}["));
    // The source line is one span, not one escape sequence per character.
    assert!(colored.contains("let slot_mapping = vec!["), "{colored:?}");
    assert!(colored.lines().all(|l| !l.ends_with(' ')), "{colored:?}");
    let escapes = colored.matches('\u{1b}').count();
    assert!(escapes < colored.lines().count() * 12, "{escapes} escapes");
}

#[test]
fn colour_follows_cargo_term_color_and_no_color_and_the_flag_wins() {
    let colored = |envs: &[(&str, &str)], args: &[&str]| {
        let out = bin().arg(fixture("paged-kv")).args(args).env_remove("CARGO_TERM_COLOR").env_remove("NO_COLOR").envs(envs.iter().copied()).output().unwrap();
        String::from_utf8_lossy(&out.stdout).contains('\u{1b}')
    };
    assert!(colored(&[("CARGO_TERM_COLOR", "always")], &[]));
    assert!(!colored(&[("CARGO_TERM_COLOR", "never")], &[]));
    assert!(!colored(&[("CARGO_TERM_COLOR", "always")], &["--color=never"]));
    assert!(colored(&[("NO_COLOR", "1")], &["--color=always"]));
    assert!(!colored(&[("NO_COLOR", "1")], &[]));
}

#[test]
fn short_and_human_paths_are_relative_to_the_current_directory() {
    let ws = two_crates();
    let root = ws.path();
    let (_, out, _) = run(bin().args(["--workspace", "--format", "short"]).current_dir(root));
    assert!(out.contains("\napp/src/lib.rs:2:22: error[reuse::pad_to_null_block]") || out.starts_with("app/src/lib.rs:2:22"), "{out}");
    let (_, out, _) = run(bin().args(["--format", "short", ".."]).current_dir(root.join("app")));
    assert!(out.contains("src/lib.rs:2:22: error") && !out.contains("app/src/lib.rs"), "{out}");
    assert!(out.contains("../kv/src/lib.rs:4:22") || out.contains(&root.join("kv/src/lib.rs").canonicalize().unwrap().display().to_string()), "{out}");
    let (_, out, _) = run(bin().args(["--color=never"]).arg(root).current_dir(root.join("app")));
    assert!(out.contains("[ src/lib.rs:2:22 ]"), "{out}");
    let elsewhere = tempfile::tempdir().unwrap();
    let (_, out, _) = run(bin().args(["--format", "short"]).arg(root).current_dir(elsewhere.path()));
    let absolute = root.canonicalize().unwrap().join("app/src/lib.rs");
    assert!(out.contains(&format!("{}:2:22", absolute.display())), "{out}");
}

#[test]
fn names_agree_across_surfaces() {
    // `--list-rules` prints `warning`/`error`; the configuration takes them.
    let (_, list, _) = run(bin().arg("--list-rules"));
    assert!(list.lines().any(|l| l.starts_with("memoized_effect") && l.contains(" warning ")), "{list}");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check.rules]\nunused_suppression = \"error\"\nstale_key = \"warning\"\n");
    write(root, "src/lib.rs", "#[reuse::allow(stale_key, reason = \"old\")]\nfn f() {}\n");
    let (code, out, err) = run(bin().arg(root));
    assert_eq!(code, 1, "{out}{err}");
    // `--explain` takes the code as printed, and hints at a misspelling.
    let (code, out, _) = run(bin().args(["--explain", "reuse::pad_to_null_block"]));
    assert_eq!(code, 0);
    assert!(out.starts_with("# pad_to_null_block"));
    let (code, _, err) = run(bin().args(["--explain", "pad_to_nul_block"]));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `pad_to_null_block`?"), "{err}");
    // An allow comment or attribute with a misspelled rule.
    write(root, "src/lib.rs", "// reuse-check: allow(stale_kee) old\nfn f() {}\n#[reuse::allow(stale_kee, reason = \"old\")]\nfn g() {}\n");
    let (_, out, _) = run(bin().arg(root).arg("--format=short"));
    assert_eq!(out.matches("did you mean `stale_key`?").count(), 2, "{out}");
}

#[test]
fn a_configuration_error_shows_the_manifest_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check.rules]\nstale_key = \"lowd\"\n");
    write(root, "src/lib.rs", "");
    let (code, _, err) = run(bin().arg("--color=never").current_dir(root));
    assert_eq!(code, 2);
    assert!(err.contains("`package.metadata.reuse-check.rules.stale_key`"), "{err}");
    assert!(err.contains("Cargo.toml:7:13"), "{err}");
    assert!(err.contains(" 7 │ stale_key = \"lowd\""), "{err}");
    assert!(err.contains("─┬─"), "the value is underlined: {err}");
    write(root, "Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check]\nrulez = {}\n");
    let (code, _, err) = run(bin().arg("--color=never").current_dir(root));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `rules`?") && err.contains(" 7 │ rulez = {}"), "{err}");
}

#[test]
fn a_parse_error_says_what_did_not_parse() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib.rs", "#[reuse::effect]\nfn log_step() {}\n\nfn f() {\n    let x = 1\n    log_step();\n}\n");
    let (code, out, _) = run(bin().arg(dir.path()).args(["--format", "short", "--no-cache"]));
    assert_eq!(code, 0, "a parse error is a warning: {out}");
    assert!(out.contains("`log_step` at line 6, column 5 is not valid Rust here: the parser expected `;` before it"), "{out}");
    write(dir.path(), "lib.rs", "#[reuse::effect]\nfn log_step() {}\n\nfn f() {\n    log_step();\n");
    let (_, out, _) = run(bin().arg(dir.path()).args(["--format", "short", "--no-cache"]));
    assert!(out.contains("its brackets do not balance"), "{out}");
}
