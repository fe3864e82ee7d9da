//! Hostile workspaces: the checked tree is a pull request nobody reviewed. Each test builds a
//! temporary workspace that attacks one promise (SPEC.md, "Invariants") and asserts that nothing
//! in it ran, nothing outside it was read, echoed or written, and the bug in it is still reported.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A kernel with a contract and a caller that pads with 0: one `pad_to_null_block` finding.
const KERNEL: &str = "pub const PAD: i64 = -1;\n\
#[reuse::contract(writes(cache[slots], skip = PAD))]\n\
pub fn write(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n";
const BUGGY: &str = "use crate::kernel::write;\npub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    write(cache, &slots);\n}\n";
/// The same size as `BUGGY`, padded with the sentinel.
const FIXED: &str = "use crate::kernel::write;\npub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![-1; n];\n    write(cache, &slots);\n}\n";

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// Where the checker may keep its cache (outside the tree), and where "outside" files live.
    outside: PathBuf,
}

impl Ws {
    /// A one-package Cargo workspace with the buggy caller.
    fn new() -> Ws {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let ws = Ws { root, outside, _dir: dir };
        ws.write("Cargo.toml", "[package]\nname = \"victim\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
        ws.write("src/lib.rs", "pub mod kernel;\npub mod step;\n");
        ws.write("src/kernel.rs", KERNEL);
        ws.write("src/step.rs", BUGGY);
        ws
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The checker on the tree, from inside it, with the cache directory outside it.
    fn check(&self, args: &[&str]) -> (i32, String) {
        let out = self.command(args).output().unwrap();
        result(out)
    }

    fn command(&self, args: &[&str]) -> Command {
        self.command_of(Path::new(env!("CARGO_BIN_EXE_reuse-check")), args)
    }

    /// The same with another copy of the checker's binary.
    fn command_of(&self, program: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root)
            .args(args)
            .args(["--color", "never"])
            .env("XDG_CACHE_HOME", self.outside.join("cache"))
            .env_remove("CARGO_TARGET_DIR")
            .stdin(Stdio::null());
        cmd
    }
}

fn result(out: Output) -> (i32, String) {
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

fn executable(path: &Path, script: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_tree_chooses_no_cargo_rustc_or_toolchain() {
    let ws = Ws::new();
    let marker = ws.outside.join("ran");
    let evil = format!("#!/bin/sh\necho \"$0 $*\" >> {}\nexit 1\n", marker.display());
    for tool in ["cargo", "rustc", "rustc-wrapper"] {
        executable(&ws.root.join("tc/bin").join(tool), &evil);
    }
    ws.write("rust-toolchain.toml", &format!("[toolchain]\npath = \"{}\"\n", ws.root.join("tc").display()));
    ws.write(
        ".cargo/config.toml",
        &format!("[build]\nrustc = \"{0}/tc/bin/rustc\"\nrustc-wrapper = \"{0}/tc/bin/rustc-wrapper\"\n", ws.root.display()),
    );
    // From inside the tree with no path, with a path, and as the language server's discovery
    // does: with cargo's `CARGO` (as under `cargo reuse-check`) and without it (rustup's proxy).
    for with_cargo_env in [true, false] {
        for args in [&[][..], &["."][..], &["--manifest-path", "Cargo.toml"][..]] {
            let mut cmd = ws.command(args);
            if !with_cargo_env {
                cmd.env_remove("CARGO");
            }
            let (code, out) = result(cmd.output().unwrap());
            assert!(!marker.exists(), "a binary of the tree ran: {}", std::fs::read_to_string(&marker).unwrap_or_default());
            assert_eq!(code, 1, "{args:?}: {out}");
            assert!(out.contains("reuse::pad_to_null_block"), "{out}");
        }
    }
}

#[test]
fn a_toolchain_file_naming_an_uninstalled_version_installs_nothing() {
    let ws = Ws::new();
    ws.write("rust-toolchain.toml", "[toolchain]\nchannel = \"1.61.0\"\n");
    let mut cmd = ws.command(&[]);
    cmd.env_remove("CARGO");
    let (code, out) = result(cmd.output().unwrap());
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("installing") && !out.contains("syncing channel"), "{out}");
}

#[test]
fn a_committed_cache_decides_nothing() {
    let ws = Ws::new();
    // What an attacker can commit: forged caches and links where older versions kept theirs.
    let victim = ws.outside.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let forged = r#"{"version":"0.1.0","target":"None|None|[]|false","root":"/","stamps":[],"files":0,"lines":0,"parsed":0,"findings":[],"packages":[]}"#;
    for name in ["check-0.json", "check-0000000000000000.json"] {
        ws.write(&format!("target/reuse-check/{name}"), forged);
    }
    std::fs::create_dir_all(ws.root.join("target/reuse-check")).unwrap();
    std::os::unix::fs::symlink(&victim, ws.root.join("target/reuse-check/check-0000000000000000.tmp")).unwrap();
    for _ in 0..2 {
        let (code, out) = ws.check(&[]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("reuse::pad_to_null_block"), "{out}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // The cache lives outside the tree.
    assert!(ws.outside.join("cache/reuse-check").read_dir().unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with("check-")));
}

#[test]
fn a_symlinked_target_directory_receives_nothing() {
    let ws = Ws::new();
    let elsewhere = ws.outside.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, ws.root.join("target")).unwrap();
    let (code, out) = ws.check(&[]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    // Even when the user's CARGO_TARGET_DIR points into the tree, the cache goes elsewhere.
    let mut cmd = ws.command(&[]);
    cmd.env("CARGO_TARGET_DIR", ws.root.join("target"));
    let (code, out) = result(cmd.output().unwrap());
    assert_eq!(code, 1, "{out}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// The cache file the checker wrote for `ws` (run once first).
fn cache_file(ws: &Ws) -> PathBuf {
    let dir = ws.outside.join("cache/reuse-check");
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|e| e == "json")).expect("a cache file")
}

#[test]
fn a_tampered_cache_is_validated_not_trusted() {
    let ws = Ws::new();
    let (code, _) = ws.check(&[]);
    assert_eq!(code, 1);
    let path = cache_file(&ws);
    let good: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let tamper = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = good.clone();
        f(&mut v);
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
        let (code, out) = ws.check(&[]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("reuse::pad_to_null_block"), "{out}");
        assert!(!out.contains("root:x:0:0"), "{out}");
    };
    tamper(&|v| {
        v["stamps"] = serde_json::json!([]);
        v["findings"] = serde_json::json!([]);
    });
    tamper(&|v| v["findings"][0]["primary"]["file"] = "/etc/passwd".into());
    tamper(&|v| v["findings"][0]["primary"]["file"] = "../../../../../../etc/passwd".into());
    tamper(&|v| {
        v["findings"][0]["primary"]["start"] = 50.into();
        v["findings"][0]["primary"]["end"] = 10.into();
    });
    tamper(&|v| v["findings"][0]["primary"]["end"] = 1_000_000.into());
    tamper(&|v| v["root"] = "/etc".into());
    tamper(&|v| v["stamps"][0]["path"] = "/etc/passwd".into());
}

#[test]
fn contracts_files_are_regular_files_inside_the_workspace() {
    for (path, link) in [
        ("/proc/self/environ", false),
        ("/dev/zero", false),
        ("/dev/stdin", false),
        ("/etc/hostname", false),
        ("in-tree-link.rs", true),
    ] {
        let ws = Ws::new();
        let named = if link {
            std::os::unix::fs::symlink("/proc/self/environ", ws.root.join(path)).unwrap();
            path.to_string()
        } else {
            path.to_string()
        };
        ws.write(
            "Cargo.toml",
            &format!("[package]\nname = \"victim\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check]\ncontracts = [\"{named}\"]\n"),
        );
        let mut child = ws.command(&[]).env("REUSE_CHECK_SECRET_FOR_TEST", "do-not-print-me").stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::piped()).spawn().unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("`contracts = [\"{named}\"]` hangs");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let (code, out) = result(child.wait_with_output().unwrap());
        assert_eq!(code, 2, "{named}: {out}");
        assert!(out.contains("contracts"), "names the key: {out}");
        assert!(!out.contains("do-not-print-me"), "{out}");
    }
}

#[test]
fn a_contracts_file_that_does_not_parse_is_an_error() {
    let ws = Ws::new();
    ws.write("src/step.rs", FIXED);
    ws.write("contracts.rs", "mod kernels { #[reuse::contract(writes(c[s], skip = -1))] fn f(c: &mut [f32], s: &[i64]) \n");
    ws.write(
        "Cargo.toml",
        "[package]\nname = \"victim\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check]\ncontracts = [\"contracts.rs\"]\n",
    );
    let (code, out) = ws.check(&[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("reuse::contract_syntax") && out.contains("contracts file does not parse"), "{out}");
}

fn nested_ifs(n: usize) -> String {
    format!("pub fn deep(c: bool) -> u32 {{\n{}1{}\n}}\n", "if c { ".repeat(n), " } else { 0 }".repeat(n))
}

#[test]
fn deep_nesting_is_checked_or_reported_never_a_crash() {
    let ws = Ws::new();
    // What rustc compiles is checked, in a multi-file tree (on the worker threads).
    ws.write("src/lib.rs", "pub mod kernel;\npub mod step;\npub mod deep;\npub mod chain;\n");
    ws.write("src/deep.rs", &format!("use crate::kernel::write;\n{}\npub fn again(cache: &mut [f32]) {{ write(cache, &vec![0; 4]); }}\n", nested_ifs(400)));
    ws.write("src/chain.rs", &format!("pub fn chain(x: Vec<u8>) -> usize {{ x{}.len() }}\n", ".clone()".repeat(1500)));
    let (code, out) = ws.check(&["--no-cache"]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("parse_error"), "{out}");
    assert_eq!(out.matches("[reuse::pad_to_null_block]").count(), 2, "{out}");
    // Deeper than the bound: reported like a parse error; the rest is still checked. (Both files
    // call the kernel, so the prefilter hands them to the parser.)
    let call = "pub fn again(cache: &mut [f32]) { write(cache, &vec![0; 4]); }\n";
    ws.write("src/deep.rs", &format!("use crate::kernel::write;\n{call}{}", nested_ifs(5_000)));
    ws.write("src/chain.rs", &format!("use crate::kernel::write;\n{call}pub fn chain(x: Vec<u8>) -> usize {{ x{}.len() }}\n", ".clone()".repeat(30_000)));
    let (code, out) = ws.check(&["--no-cache"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("src/deep.rs") && out.contains("nest more than"), "{out}");
    assert!(out.contains("src/chain.rs") && out.contains("chains more than"), "{out}");
    assert!(out.contains("[reuse::pad_to_null_block]"), "{out}");
    // A single file, and every file parsed.
    let (code, out) = ws.check(&["--all-files", "src/deep.rs"]);
    assert!(code == 0 || code == 1, "{out}");
}

/// A macro that calls itself ten times, in a file of its own that the other files call through
/// `#[macro_use]`: expanded a bounded number of times, the check ends (quickly) with the
/// buggy caller's finding, never hangs nor runs out of memory.
#[test]
fn a_macro_that_calls_itself_many_times_is_expanded_a_bounded_number_of_times() {
    let ws = Ws::new();
    ws.write("src/lib.rs", "#[macro_use]\nmod macros;\npub mod kernel;\npub mod step;\npub mod storm;\n");
    let calls = "crate::kernel::write(c, &[0]); r!(c); ".repeat(10);
    ws.write("src/macros.rs", &format!("macro_rules! r {{\n    ($c:expr) => {{ {calls} }};\n}}\n"));
    ws.write("src/storm.rs", "pub fn storm(c: &mut [f32]) {\n    r!(c);\n}\n");
    let (code, out) = ws.check(&["--no-cache"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("src/step.rs"), "{out}");
}

/// Sets a file's modification time back to what it was: edits that keep mtimes (`touch -r`,
/// `cp -p`, pinned-mtime checkouts).
fn keep_mtime(path: &Path, edit: impl FnOnce()) {
    let before = std::fs::metadata(path).unwrap().modified().unwrap();
    edit();
    std::fs::File::options().write(true).open(path).unwrap().set_modified(before).unwrap();
}

#[test]
fn the_warm_cache_sees_every_changed_input() {
    // A same-size edit with the mtime kept.
    let ws = Ws::new();
    ws.write("src/step.rs", FIXED);
    assert_eq!(ws.check(&[]).0, 0);
    let step = ws.root.join("src/step.rs");
    keep_mtime(&step, || std::fs::write(&step, BUGGY).unwrap());
    assert_eq!(ws.check(&[]).0, 1, "same-size edit, mtime kept");

    // The same in a contracts file.
    let ws = Ws::new();
    ws.write("src/kernel.rs", "pub fn write(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n");
    let contract = |skip: &str| format!("mod victim {{ mod kernel {{\n#[reuse::contract(writes(cache[slots], skip = {skip}))]\nfn write(cache: &mut [f32], slots: &[i64]);\n}} }}\n");
    ws.write("contracts.rs", &contract("00"));
    ws.write(
        "Cargo.toml",
        "[package]\nname = \"victim\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check]\ncontracts = [\"contracts.rs\"]\n",
    );
    let (code, out) = ws.check(&[]);
    assert_eq!(code, 0, "{out}");
    let contracts = ws.root.join("contracts.rs");
    keep_mtime(&contracts, || std::fs::write(&contracts, contract("-1")).unwrap());
    let (code, out) = ws.check(&[]);
    assert_eq!(code, 1, "contracts file edited, mtime kept: {out}");

    // A new .rs file in a directory that held none.
    let ws = Ws::new();
    ws.write("src/step.rs", FIXED);
    assert_eq!(ws.check(&[]).0, 0);
    ws.write("src/extra/more.rs", BUGGY);
    assert_eq!(ws.check(&[]).0, 1, "a new file in a new directory");

    // A .gitignore edit that un-ignores a file.
    let ws = Ws::new();
    ws.write("src/step.rs", FIXED);
    ws.write("src/gen.rs", BUGGY);
    ws.write(".gitignore", "src/gen.rs\n");
    assert_eq!(ws.check(&[]).0, 0);
    let ignore = ws.root.join(".gitignore");
    keep_mtime(&ignore, || std::fs::write(&ignore, "src/xxx.rs\n").unwrap());
    assert_eq!(ws.check(&[]).0, 1, "a .gitignore edit");

    // A new member that matches a `members` glob.
    let ws = Ws::new();
    ws.write("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n");
    ws.write("crates/kv/Cargo.toml", "[package]\nname = \"kv\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    ws.write("crates/kv/src/lib.rs", "pub mod kernel;\npub mod step;\n");
    ws.write("crates/kv/src/kernel.rs", KERNEL);
    ws.write("crates/kv/src/step.rs", FIXED);
    for rel in ["src/lib.rs", "src/kernel.rs", "src/step.rs"] {
        std::fs::remove_file(ws.root.join(rel)).unwrap();
    }
    let (code, out) = ws.check(&[]);
    assert_eq!(code, 0, "{out}");
    ws.write("crates/app/Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    ws.write("crates/app/src/lib.rs", "pub const PAD: i64 = -1;\n#[reuse::contract(writes(cache[slots], skip = PAD))]\npub fn write(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\npub fn warmup(cache: &mut [f32], n: usize) { write(cache, &vec![0; n]); }\n");
    let (code, out) = ws.check(&[]);
    assert_eq!(code, 1, "a new member under a glob: {out}");

    // A copied workspace, edited.
    let ws = Ws::new();
    ws.write("src/step.rs", FIXED);
    assert_eq!(ws.check(&[]).0, 0);
    let copy = ws.root.with_file_name("ws2");
    let status = Command::new("cp").arg("-a").arg(&ws.root).arg(&copy).status().unwrap();
    assert!(status.success());
    let step = copy.join("src/step.rs");
    keep_mtime(&step, || std::fs::write(&step, BUGGY).unwrap());
    let mut cmd = ws.command(&[]);
    cmd.current_dir(&copy);
    assert_eq!(result(cmd.output().unwrap()).0, 1, "a copied workspace, edited");
}

#[test]
fn unreadable_and_oversized_files_are_reported_and_the_rest_is_checked() {
    let ws = Ws::new();
    // Larger than the cap (a sparse file: no disk used), and not UTF-8.
    let big = std::fs::File::create(ws.root.join("src/huge.rs")).unwrap();
    big.set_len(9 << 20).unwrap();
    std::fs::write(ws.root.join("src/latin1.rs"), b"// caf\xe9\npub fn f() {}\n").unwrap();
    let (code, out) = ws.check(&["--no-cache"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("reuse::pad_to_null_block"), "{out}");
    assert!(out.contains("src/huge.rs") && out.contains("limit of a source file"), "{out}");
    assert!(out.contains("src/latin1.rs") && out.contains("not valid UTF-8"), "{out}");
    assert_eq!(out.matches("[reuse::unreadable_file]").count(), 2, "{out}");
}

#[test]
fn files_and_directories_without_permission_are_reported() {
    // Permissions do not bind root: run the checker as `nobody` then.
    let root = unsafe_geteuid() == 0;
    let ws = Ws::new();
    // A plain directory: `nobody` may not run the cargo of whoever runs the tests.
    std::fs::remove_file(ws.root.join("Cargo.toml")).unwrap();
    ws.write("src/locked.rs", "pub fn f() {}\n");
    ws.write("src/closed/inner.rs", "pub fn g() {}\n");
    std::fs::set_permissions(ws.root.join("src/locked.rs"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(ws.root.join("src/closed"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut cmd = ws.command(&["--no-cache", "."]);
    if root {
        use std::os::unix::process::CommandExt;
        // The temporary directory is private to its owner; open the way for `nobody`.
        for dir in ws.root.ancestors().take_while(|d| d.starts_with(std::env::temp_dir()) && *d != std::env::temp_dir()) {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        // So may be the checkout the binary was built in (a clone in `mktemp -d`): `nobody` runs
        // a copy of it from the opened directory.
        let copy = ws.outside.join("reuse-check");
        std::fs::copy(env!("CARGO_BIN_EXE_reuse-check"), &copy).unwrap();
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        cmd = ws.command_of(&copy, &["--no-cache", "."]);
        cmd.uid(65534).gid(65534);
    }
    let (code, out) = result(cmd.output().unwrap());
    std::fs::set_permissions(ws.root.join("src/closed"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("reuse::pad_to_null_block"), "{out}");
    assert!(out.contains("src/locked.rs") && out.contains("src/closed"), "{out}");
    assert_eq!(out.matches("[reuse::unreadable_file]").count(), 2, "{out}");
}

fn unsafe_geteuid() -> u32 {
    // `id -u` rather than libc: the test needs no unsafe code.
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn a_rule_that_fails_is_reported_and_exits_2() {
    let ws = Ws::new();
    let mut cmd = ws.command(&["--no-cache"]);
    cmd.env("REUSE_CHECK_FAIL_ON_FILE", "step.rs");
    let (code, out) = result(cmd.output().unwrap());
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("reuse::internal_error") && out.contains("src/step.rs"), "{out}");
    // Levels from the tree's configuration do not lower it.
    ws.write(
        "Cargo.toml",
        "[package]\nname = \"victim\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.reuse-check.rules]\ninternal_error = \"allow\"\n",
    );
    let (code, out) = result(cmd.output().unwrap());
    assert_eq!(code, 2, "{out}");
}

#[test]
fn positions_with_a_bom_and_paths_outside_the_tree_print_as_they_are() {
    let ws = Ws::new();
    ws.write("src/step.rs", &format!("\u{feff}{}", BUGGY.replace("use crate::kernel::write;\n", "use crate::kernel::write; pub fn again(cache: &mut [f32]) { write(cache, &vec![0; 1]); }\n")));
    let (code, out) = ws.check(&["--no-cache", "--format", "short"]);
    assert_eq!(code, 1, "{out}");
    // `vec![0; 1]` starts at char 79 of line 1 (the BOM is not a column).
    let col = "use crate::kernel::write; pub fn again(cache: &mut [f32]) { write(cache, &vec![".chars().count() + 1;
    assert!(out.contains(&format!("src/step.rs:1:{col}")), "{out}");
    assert!(!out.contains("//"), "{out}");
}

#[test]
fn a_function_past_the_work_bound_is_reported_in_bounded_time() {
    let ws = Ws::new();
    // The solver counts one step per expression it visits: a call and its argument are two.
    let calls = "        log(0);\n".repeat(110_000);
    ws.write("src/lib.rs", "pub mod kernel;\npub mod step;\npub mod huge;\n");
    ws.write("src/huge.rs", &format!("#[reuse::effect]\npub fn log(_: u8) {{}}\n#[reuse::contract(preserves(log))]\npub fn run() {{\n{calls}}}\n"));
    let (code, out) = ws.check(&["--no-cache"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[reuse::analysis_limit]") && out.contains("`run` is too complex"), "{out}");
    assert!(out.contains("[reuse::pad_to_null_block]"), "{out}");
}

#[test]
fn thousands_of_calls_in_one_function_are_linear() {
    let ws = Ws::new();
    let calls: String = (0..5_000).map(|i| format!("    let s{i} = vec![-1; 4]; write(cache, &s{i});\n")).collect();
    ws.write("src/step.rs", &format!("use crate::kernel::write;\npub fn warmup(cache: &mut [f32]) {{\n{calls}    write(cache, &vec![0; 4]);\n}}\n"));
    let (code, out) = ws.check(&["--no-cache"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches("[reuse::pad_to_null_block]").count(), 1, "{out}");
    // (Quadratic, this took minutes in a debug build; linear, about a second: timed by hand, not here.)
}
