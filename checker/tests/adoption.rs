//! Adoption on real layouts, end to end on temporary workspaces: contracts declared in a
//! dependency (path, vendored registry) hold at the call site; `-p` keeps a sibling's contracts;
//! discovery falls back instead of failing; nested workspaces, single files and plain folders.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A kernel crate whose contract says padding must be -1.
const KV_LIB: &str = "pub const PAD: i64 = -1;\n\
#[reuse::contract(writes(cache[slots], skip = PAD))]\n\
pub fn write(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n";
/// A caller that pads with 0.
const APP_LIB: &str = "use kv::write;\npub fn warmup(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    write(cache, &slots);\n}\n";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn manifest(name: &str, deps: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}")
}

/// `reuse` itself, as a path dependency the kernel crate can name (its sources are not needed:
/// nothing is built).
fn reuse_stub(root: &Path) -> String {
    write(root, "reuse/Cargo.toml", &manifest("reuse", ""));
    write(root, "reuse/src/lib.rs", "");
    format!("reuse = {{ path = \"{}\" }}\n", root.join("reuse").display())
}

fn check(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reuse-check"))
        .current_dir(dir)
        .args(args)
        .args(["--color", "never", "--no-cache"])
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn tmp() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().canonicalize().unwrap();
    (d, p)
}

#[test]
fn a_contract_in_a_path_dependency_outside_the_workspace_holds_at_the_call_site() {
    let (_d, t) = tmp();
    let reuse = reuse_stub(&t);
    write(&t, "libs/kv/Cargo.toml", &manifest("kv", &reuse));
    write(&t, "libs/kv/src/lib.rs", KV_LIB);
    write(&t, "app/Cargo.toml", &manifest("app", "kv = { path = \"../libs/kv\" }\n"));
    write(&t, "app/src/lib.rs", APP_LIB);
    let (code, out) = check(&t.join("app"), &["-v"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[reuse::pad_to_null_block]") && out.contains("src/lib.rs"), "{out}");
    assert!(out.contains("contracts from dependency kv (") && out.contains("path): 1 files"), "{out}");
    // The dependency's own sources are read, never reported on.
    write(&t, "libs/kv/src/lib.rs", &format!("{KV_LIB}pub fn bad(c: &mut [f32]) {{ write(c, &vec![0; 2]); }}\n"));
    let (code, out) = check(&t.join("app"), &[]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches("[reuse::pad_to_null_block]").count(), 1, "{out}");
}

#[test]
fn a_contract_in_a_vendored_registry_dependency_holds_at_the_call_site() {
    let (_d, t) = tmp();
    // A directory source standing in for crates.io, configured in a CARGO_HOME of the test's own
    // (the environment is the user's: the tree's `.cargo/config.toml` is never read).
    let home = t.join("cargo-home");
    let vendor = t.join("vendor");
    write(&vendor, "kv/Cargo.toml", &manifest("kv", ""));
    write(&vendor, "kv/src/lib.rs", KV_LIB);
    write(&vendor, "kv/.cargo-checksum.json", "{\"files\":{},\"package\":null}");
    // The vendored `kv` names `reuse` as a dependency of its own.
    write(&vendor, "kv/Cargo.toml", &manifest("kv", "reuse = \"0.1\"\n"));
    write(&vendor, "reuse/Cargo.toml", &manifest("reuse", ""));
    write(&vendor, "reuse/src/lib.rs", "");
    write(&vendor, "reuse/.cargo-checksum.json", "{\"files\":{},\"package\":null}");
    write(&home, "config.toml", &format!("[source.crates-io]\nreplace-with = \"vendored\"\n\n[source.vendored]\ndirectory = \"{}\"\n", vendor.display()));
    write(&t, "app/Cargo.toml", &manifest("app", "kv = \"0.1\"\n"));
    write(&t, "app/src/lib.rs", APP_LIB);
    // Registry dependencies are resolved from the lock file (the checker never writes one).
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let lock = Command::new(cargo).args(["generate-lockfile", "--offline"]).current_dir(t.join("app")).env("CARGO_HOME", &home).output().unwrap();
    assert!(lock.status.success(), "{}", String::from_utf8_lossy(&lock.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_reuse-check"))
        .current_dir(t.join("app"))
        .args(["--color", "never", "--no-cache", "-v"])
        .env("CARGO_HOME", &home)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("[reuse::pad_to_null_block]"), "{text}");
    assert!(text.contains("contracts from dependency kv 0.1.0"), "{text}");
}

#[test]
fn dash_p_keeps_the_contracts_of_sibling_members() {
    let (_d, t) = tmp();
    let reuse = reuse_stub(&t);
    write(&t, "Cargo.toml", "[workspace]\nmembers = [\"kv\", \"engine\"]\nresolver = \"2\"\n");
    write(&t, "kv/Cargo.toml", &manifest("kv", &reuse));
    write(&t, "kv/src/lib.rs", &format!("{KV_LIB}pub fn own(c: &mut [f32]) {{ write(c, &vec![0; 2]); }}\n"));
    write(&t, "engine/Cargo.toml", &manifest("engine", "kv = { path = \"../kv\" }\n"));
    write(&t, "engine/src/lib.rs", APP_LIB);
    let (code, out) = check(&t, &["-p", "engine"]);
    assert_eq!(code, 1, "{out}");
    // The finding in `engine`, none in the unselected `kv`.
    assert_eq!(out.matches("[reuse::pad_to_null_block]").count(), 1, "{out}");
    assert!(out.contains("engine/src/lib.rs") && !out.contains("kv/src/lib.rs:4"), "{out}");
    assert!(out.contains("in 1 file"), "{out}");
}

#[test]
fn a_workspace_cargo_cannot_read_is_checked_as_a_plain_directory_with_a_warning() {
    let (_d, t) = tmp();
    write(&t, "Cargo.toml", &manifest("app", "missing = { path = \"../does-not-exist\" }\n"));
    write(&t, "src/lib.rs", "pub mod kv;\npub mod step;\n");
    write(&t, "src/kv.rs", KV_LIB);
    write(&t, "src/step.rs", &APP_LIB.replace("use kv::write;", "use crate::kv::write;"));
    // Dependencies that cannot be resolved: the members are still read, and the user is told.
    let (code, out) = check(&t, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("warning: the path dependency") && out.contains("does-not-exist does not exist"), "{out}");
    assert!(out.contains("[reuse::pad_to_null_block]"), "{out}");
    // A manifest cargo cannot read at all (a member that is not there): a plain directory.
    write(&t, "Cargo.toml", &format!("{}\n[workspace]\nmembers = [\"gone\"]\n", manifest("app", "")));
    let (code, out) = check(&t, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("warning: cargo cannot read the workspace") && out.contains("plain directory"), "{out}");
    assert!(out.contains("[reuse::pad_to_null_block]"), "{out}");
}

#[test]
fn a_workspace_in_a_subfolder_is_checked_with_its_own_configuration() {
    let (_d, t) = tmp();
    let reuse = reuse_stub(&t.join("elsewhere"));
    write(&t, "v3/Cargo.toml", "[workspace]\nmembers = [\"kv\", \"app\"]\nresolver = \"2\"\n\n[workspace.metadata.reuse-check.rules]\npad_to_null_block = \"warn\"\n");
    write(&t, "v3/kv/Cargo.toml", &manifest("kv", &reuse));
    write(&t, "v3/kv/src/lib.rs", KV_LIB);
    write(&t, "v3/app/Cargo.toml", &manifest("app", "kv = { path = \"../kv\" }\n"));
    write(&t, "v3/app/src/lib.rs", APP_LIB);
    write(&t, "scripts/tool.rs", "fn main() {}\n");
    let (code, out) = check(&t, &["."]);
    // The subfolder's configuration makes the finding a warning.
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("[reuse::pad_to_null_block] Warning"), "{out}");
    assert!(out.contains("v3/app/src/lib.rs"), "{out}");
}

#[test]
fn a_single_file_is_checked_against_its_workspace() {
    let (_d, t) = tmp();
    write(&t, "Cargo.toml", &manifest("app", ""));
    write(&t, "src/lib.rs", "pub mod kv;\npub mod step;\npub mod other;\n");
    write(&t, "src/kv.rs", KV_LIB);
    write(&t, "src/step.rs", &APP_LIB.replace("use kv::write;", "use crate::kv::write;"));
    write(&t, "src/other.rs", &APP_LIB.replace("use kv::write;", "use crate::kv::write;"));
    let (code, out) = check(&t, &["src/step.rs"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches("[reuse::pad_to_null_block]").count(), 1, "{out}");
    assert!(out.contains("src/step.rs") && !out.contains("src/other.rs"), "{out}");
}

#[test]
fn in_a_plain_directory_lib_rs_is_the_crate_root() {
    let (_d, t) = tmp();
    write(&t, "lib.rs", "pub mod kv;\npub mod step;\n");
    write(&t, "kv.rs", KV_LIB);
    write(&t, "step.rs", &APP_LIB.replace("use kv::write;", "use crate::kv::write;"));
    let (code, out) = check(&t, &["."]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[reuse::pad_to_null_block]"), "{out}");
}

#[test]
fn depending_on_reuse_without_any_contract_is_a_warning() {
    let (_d, t) = tmp();
    let reuse = reuse_stub(&t.join("elsewhere"));
    write(&t, "app/Cargo.toml", &manifest("app", &reuse));
    write(&t, "app/src/lib.rs", "pub fn f() {}\n");
    let (code, out) = check(&t.join("app"), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning: the workspace depends on `reuse` but no contract was found"), "{out}");
}

#[test]
fn resolving_dependencies_writes_nothing_into_the_tree() {
    let (_d, t) = tmp();
    let reuse = reuse_stub(&t.join("elsewhere"));
    write(&t, "kv/Cargo.toml", &manifest("kv", &reuse));
    write(&t, "kv/src/lib.rs", KV_LIB);
    write(&t, "app/Cargo.toml", &manifest("app", "kv = { path = \"../kv\" }\n"));
    write(&t, "app/src/lib.rs", APP_LIB);
    let (code, out) = check(&t.join("app"), &[]);
    assert_eq!(code, 1, "{out}");
    let mut entries: Vec<String> = std::fs::read_dir(t.join("app")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    entries.sort();
    assert_eq!(entries, ["Cargo.toml", "src"], "no Cargo.lock, no target/");
}

/// A workspace whose contracts file states the contracts of `kernels`, a member without attributes.
fn contracts_file_workspace(t: &Path, contracts: &str) {
    write(t, "Cargo.toml", "[workspace]\nmembers = [\"kernels\", \"engine\"]\nresolver = \"2\"\n\n[workspace.metadata.reuse-check]\ncontracts = [\"contracts/kernels.rs\"]\n");
    write(t, "kernels/Cargo.toml", &manifest("kernels", ""));
    write(
        t,
        "kernels/src/lib.rs",
        "pub mod ops;\npub use ops::write;\npub fn log_step() {}\npub fn check_errors() {}\n\
         pub struct Plans { hit: Option<u64> }\n\
         impl Plans {\n    pub fn run(&mut self, g: u64) -> u64 {\n        if let Some(p) = self.hit {\n            return p;\n        }\n        log_step();\n        check_errors();\n        g\n    }\n}\n",
    );
    write(t, "kernels/src/ops.rs", "pub fn write(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n");
    write(t, "engine/Cargo.toml", &manifest("engine", "kernels = { path = \"../kernels\" }\n"));
    write(t, "engine/src/lib.rs", "pub fn step(c: &mut [f32]) { kernels::ops::write(c, &vec![0; 4]); }\n");
    write(t, "contracts/kernels.rs", contracts);
}

#[test]
fn a_contracts_file_contract_holds_in_the_body_of_the_function_it_names() {
    let (_d, t) = tmp();
    contracts_file_workspace(
        &t,
        "mod kernels {\n    impl Plans {\n        #[reuse::contract(preserves(log_step, check_errors))]\n        fn run(&mut self, g: u64) -> u64;\n    }\n    mod ops {\n        #[reuse::contract(writes(cache[slots], skip = -1))]\n        fn write(cache: &mut [f32], slots: &[i64]);\n    }\n}\n",
    );
    let (code, out) = check(&t, &["--format", "short"]);
    assert_eq!(code, 1, "{out}");
    // The hit path of `Plans::run` skips the effects the contracts file says it preserves.
    assert!(out.contains("kernels/src/lib.rs:9:") && out.contains("reuse::hit_skips_effect"), "{out}");
    // The call at the definition path is checked; no contract is unmatched.
    assert!(out.contains("engine/src/lib.rs:1:") && out.contains("reuse::pad_to_null_block"), "{out}");
    assert!(!out.contains("unmatched_contract"), "{out}");
    let (_, verbose) = check(&t, &["--format", "short", "-v"]);
    assert!(verbose.contains("the contract for `kernels::Plans::run` (contracts/kernels.rs) is used by no call"), "{verbose}");
    assert!(!verbose.contains("`kernels::ops::write` (contracts/kernels.rs) is used by no call"), "{verbose}");
    // Calls through the re-export at the crate root, a renamed import and a glob are the same function.
    write(
        &t,
        "engine/src/lib.rs",
        "use kernels::write as store;\npub fn a(c: &mut [f32]) { kernels::write(c, &vec![0; 4]); }\npub fn b(c: &mut [f32]) { store(c, &vec![0; 4]); }\npub mod g { use kernels::*; pub fn c(c: &mut [f32]) { write(c, &vec![0; 4]); } }\n",
    );
    let (code, out) = check(&t, &["--format", "short"]);
    assert_eq!(code, 1, "{out}");
    for line in ["engine/src/lib.rs:2:", "engine/src/lib.rs:3:", "engine/src/lib.rs:4:"] {
        assert!(out.contains(line), "{line}: {out}");
    }
}

/// A vendored kernel's file calls nothing contracted: it is checked because it defines a function
/// the contracts file names, whose body writes what the contract does not declare.
#[test]
fn a_contracts_file_contract_holds_in_a_body_that_calls_nothing_contracted() {
    let (_d, t) = tmp();
    contracts_file_workspace(
        &t,
        "mod kernels {\n    mod ops {\n        #[reuse::contract(writes(cache[slots], skip = -1))]\n        fn write(cache: &mut [f32], slots: &[i64]);\n    }\n    mod scatter {\n        #[reuse::contract(writes(out[idx], skip = -1))]\n        fn scatter(out: &mut [f32], scratch: &mut [f32], idx: &[i64]);\n        #[reuse::contract(writes(out[idx], skip = -1))]\n        fn scatter_ok(out: &mut [f32], scratch: &mut [f32], idx: &[i64]);\n        impl Rows {\n            #[reuse::contract(writes(self.keys[idx], skip = -1))]\n            fn put(&mut self, idx: &[i64]);\n        }\n    }\n}\n",
    );
    write(&t, "kernels/src/lib.rs", "pub mod ops;\npub mod scatter;\npub use ops::write;\n");
    write(
        &t,
        "kernels/src/scatter.rs",
        "pub fn scatter(out: &mut [f32], scratch: &mut [f32], idx: &[i64]) {\n    out[0] = 1.0;\n    scratch.fill(0.0);\n    let _ = idx;\n}\n\
         pub fn scatter_ok(out: &mut [f32], scratch: &mut [f32], idx: &[i64]) {\n    out[0] = scratch[0];\n    let _ = idx;\n}\n\
         pub struct Rows { keys: Vec<f32>, values: Vec<f32> }\n\
         impl Rows {\n    pub fn put(&mut self, idx: &[i64]) {\n        self.keys[0] = 1.0;\n        self.values[0] = 0.0;\n        let _ = idx;\n    }\n}\n",
    );
    let (code, out) = check(&t, &["--format", "short"]);
    assert_eq!(code, 1, "{out}");
    let found: Vec<&str> = out.lines().filter(|l| l.contains("undeclared_write")).collect();
    assert_eq!(found.len(), 2, "{out}");
    assert!(found[0].starts_with("kernels/src/scatter.rs:3:"), "{out}");
    assert!(found[1].starts_with("kernels/src/scatter.rs:14:"), "{out}");
}

#[test]
fn a_contracts_file_sentinel_path_names_a_module_that_holds_the_constant() {
    let (_d, t) = tmp();
    let contract = |skip: &str| format!("#[reuse::contract(writes(cache[slots], skip = {skip}))]\n        fn write(cache: &mut [f32], slots: &[i64]);");
    contracts_file_workspace(
        &t,
        &format!(
            "mod kernels {{\n    mod ops {{\n        {}\n    }}\n}}\nmod kernels {{\n    mod ops {{\n        {}\n    }}\n}}\nmod kernels {{\n    mod ops {{\n        {}\n    }}\n}}\nmod kernels {{\n    mod ops {{\n        {}\n    }}\n}}\n",
            contract("kernels::opz::PAD_SLOT_ID"),
            contract("kernels::ops::PAD_SLOT_ID"),
            contract("crate::ops::PAD_SLOT_ID"),
            contract("cudarc::PAD_SLOT_ID"),
        ),
    );
    write(&t, "kernels/src/ops.rs", "pub const PAD_SLOT_ID: i64 = -1;\npub fn write(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n");
    let (_, out) = check(&t, &["--format", "short"]);
    // A module the crate does not have; the definition path, `crate::` of the function's crate
    // and a crate the check does not read (rustc's to check) are fine.
    assert!(out.contains("contracts/kernels.rs:3:") && out.contains("`kernels` has no module `opz`"), "{out}");
    assert_eq!(out.matches("reuse::unknown_name").count(), 1, "{out}");
}

#[test]
fn a_contract_that_matches_nothing_is_a_warning_at_the_contract() {
    let (_d, t) = tmp();
    contracts_file_workspace(
        &t,
        "mod kernels {\n    mod ops {\n        #[reuse::contract(writes(cache[slots], skip = -1))]\n        fn wirte(cache: &mut [f32], slots: &[i64]);\n    }\n}\nmod kernles {\n    #[reuse::contract(writes(cache[slots], skip = -1))]\n    fn write(cache: &mut [f32], slots: &[i64]);\n}\n",
    );
    let (code, out) = check(&t, &["--format", "short", "-v"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("contracts/kernels.rs:3:") && out.contains("`kernels::ops::wirte` matches no function: `kernels` has no function at this path"), "{out}");
    // A contract that binds a function no call reaches is said with `--verbose`.
    assert!(!out.contains("is used by no call"), "unmatched ones are not also unused: {out}");
    assert!(out.contains("contracts/kernels.rs:8:") && out.contains("there is no crate `kernles`"), "{out}");
}

#[test]
fn common_names_pull_in_only_files_that_can_call_the_contracted_function() {
    let (_d, t) = tmp();
    let reuse = reuse_stub(&t.join("elsewhere"));
    write(&t, "Cargo.toml", "[workspace]\nmembers = [\"kernels\", \"app\", \"other\"]\nresolver = \"2\"\n");
    write(&t, "kernels/Cargo.toml", &manifest("kernels", &reuse));
    write(&t, "kernels/src/lib.rs", "pub mod launch;\npub use launch::launch;\n");
    write(&t, "kernels/src/launch.rs", "#[reuse::contract(writes(cache[slots], skip = -1))]\npub fn launch(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n");
    write(&t, "app/Cargo.toml", &manifest("app", "kernels = { path = \"../kernels\" }\n"));
    write(&t, "app/src/lib.rs", "pub mod calls;\npub mod words;\npub mod methods;\n");
    write(&t, "app/src/calls.rs", "pub fn step(c: &mut [f32]) { kernels::launch(c, &vec![0; 4]); }\n");
    // Mentions of the name that are no calls: a module, a `use` of the module, a longer word.
    write(&t, "app/src/words.rs", "use kernels::launch as _;\npub fn launcher() {}\n// launch later\n");
    // A crate that may call it calls a method of the same name on a type of its own: the
    // contracted `launch` takes no `self`, so method-call syntax cannot call it.
    write(&t, "app/src/methods.rs", "pub struct Layer;\nimpl Layer { pub fn launch(&self) {} }\npub fn run(l: &Layer) { l.launch(); l\n    .launch(); }\n");
    // A crate that does not depend on `kernels` calls a method of the same name: it cannot be
    // the contracted function, and its file is not even parsed.
    write(&t, "other/Cargo.toml", &manifest("other", ""));
    write(&t, "other/src/lib.rs", "pub struct Stream;\nimpl Stream { pub fn launch(&self, _c: &mut [f32], _s: &[i64]) {} }\npub fn go(s: &Stream, c: &mut [f32]) { s.launch(c, &vec![0; 4]); }\n");
    let target = reuse_check::workspace::Target { path: Some(t.clone()), ..Default::default() };
    let report = reuse_check::check_with(&target, &reuse_check::engine::CheckOptions { use_cache: false, all_files: false }).unwrap();
    let found: Vec<String> = report.findings.iter().map(|f| format!("{}:{}", f.primary.file.rel_path, f.rule.name)).collect();
    assert_eq!(found, ["app/src/calls.rs:pad_to_null_block"]);
    // kernels/src/launch.rs (declares), app/src/calls.rs (calls) and app/src/words.rs (`as`):
    // not kernels/src/lib.rs, app/src/lib.rs, app/src/methods.rs nor other/src/lib.rs.
    assert_eq!(report.stats.parsed, 3, "{found:?}");
}

#[test]
fn a_sibling_constant_of_the_same_name_does_not_hide_a_crates_own() {
    let (_d, t) = tmp();
    let reuse = reuse_stub(&t.join("elsewhere"));
    write(&t, "Cargo.toml", "[workspace]\nmembers = [\"kv\", \"other\"]\nresolver = \"2\"\n");
    write(&t, "kv/Cargo.toml", &manifest("kv", &reuse));
    write(
        &t,
        "kv/src/lib.rs",
        "pub const BLOCK_SIZE: usize = 4;\npub const PAD: i64 = -1;\n\
         #[reuse::contract(forbids_write(cache[0..BLOCK_SIZE]))]\npub fn clear(cache: &mut [f32]) { cache[0] = 0.0; }\n\
         #[reuse::contract(writes(cache[slots], skip = PAD))]\npub fn write(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n\
         pub fn warmup(c: &mut [f32]) { write(c, &vec![0; 4]); }\n",
    );
    // Another crate of the workspace has constants of the same names and other values.
    write(&t, "other/Cargo.toml", &manifest("other", ""));
    write(&t, "other/src/lib.rs", "pub const BLOCK_SIZE: usize = 16;\npub const PAD: i64 = 0;\n");
    for args in [&["--format", "short"][..], &["--format", "short", "-p", "kv"][..]] {
        let (code, out) = check(&t, args);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("reuse::forbidden_write"), "{args:?}: {out}");
        assert!(out.contains("reuse::pad_to_null_block"), "{args:?}: {out}");
    }
}
