//! A Cargo workspace end to end: a contracts file for a crate the workspace does not own,
//! constants defined in files without contracts, re-exports, nested functions, and the warm cache
//! seeing a changed contract.

use std::path::{Path, PathBuf};

use reuse_check::engine::CheckOptions;
use reuse_check::workspace::Target;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn workspace(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("reuse-check-ws-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write(
        &root,
        "Cargo.toml",
        "[workspace]\nmembers = [\"kernels\", \"engine\"]\nresolver = \"2\"\n\n[workspace.metadata.reuse-check]\ncontracts = [\"contracts/kernels.rs\"]\n",
    );
    // A crate the workspace "does not own": no attributes in it.
    write(&root, "kernels/Cargo.toml", "[package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    write(
        &root,
        "kernels/src/lib.rs",
        "pub fn reshape_and_cache(key: &[f32], cache: &mut [f32], slots: &[i64]) {\n    for (k, s) in key.iter().zip(slots) { if *s >= 0 { cache[*s as usize] = *k; } }\n}\n",
    );
    write(
        &root,
        "contracts/kernels.rs",
        "mod kernels {\n    #[reuse::contract(writes(cache[slots], skip = -1))]\n    fn reshape_and_cache(key: &[f32], cache: &mut [f32], slots: &[i64]);\n}\n",
    );
    write(
        &root,
        "engine/Cargo.toml",
        "[package]\nname = \"engine\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nkernels = { path = \"../kernels\" }\n",
    );
    write(&root, "engine/src/consts.rs", "pub const NULL_SLOT: i64 = 0;\n");
    write(
        &root,
        "engine/src/ops.rs",
        "#[reuse::contract(aliases(return = x))]\npub fn donate(x: u64) -> u64 {\n    x\n}\n",
    );
    write(
        &root,
        "engine/src/lib.rs",
        r#"pub mod consts;
mod ops;
pub use ops::donate;
use kernels::reshape_and_cache;

pub fn dummy(cache: &mut [f32], n: usize) {
    let key = vec![0.0; n];
    let slots = vec![consts::NULL_SLOT; n];
    reshape_and_cache(&key, cache, &slots);
}

pub fn outer(h: u64) -> u64 {
    fn inner(h: u64) -> u64 {
        let out = crate::donate(h);
        h + out
    }
    inner(h)
}
"#,
    );
    root
}

fn findings(root: &Path, options: &CheckOptions) -> Vec<String> {
    let report = reuse_check::check_with(&Target { path: Some(root.to_path_buf()), ..Target::default() }, options).unwrap();
    report.findings.iter().map(|f| format!("{}:{} {}", f.primary.file.rel_path, f.line(), f.rule.name)).collect()
}

#[test]
fn contracts_files_consts_reexports_and_nested_functions() {
    let root = workspace("external");
    let found = findings(&root, &CheckOptions::default());
    assert_eq!(found, vec!["engine/src/lib.rs:8 pad_to_null_block", "engine/src/lib.rs:15 use_after_donate"]);
}

#[test]
fn the_warm_cache_sees_a_changed_contract() {
    let root = workspace("cache");
    let cached = CheckOptions { use_cache: true, ..CheckOptions::default() };
    let first = findings(&root, &cached);
    let target = Target { path: Some(root.clone()), ..Target::default() };
    assert!(reuse_check::cache::load(&target).is_some(), "nothing changed: the cache answers");
    assert_eq!(findings(&root, &cached), first, "nothing changed: the same answer");
    // The contract now skips 0 instead of -1: the caller's zeros are its sentinel, no finding.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        &root,
        "contracts/kernels.rs",
        "mod kernels {\n    #[reuse::contract(writes(cache[slots], skip = 0))]\n    fn reshape_and_cache(key: &[f32], cache: &mut [f32], slots: &[i64]);\n}\n",
    );
    assert!(reuse_check::cache::load(&target).is_none(), "a changed contracts file is a miss");
    assert_eq!(findings(&root, &cached), vec!["engine/src/lib.rs:15 use_after_donate"]);
    // A new file is seen too.
    write(&root, "engine/src/extra.rs", "pub fn f(h: u64) -> u64 { let o = crate::donate(h); h + o }\n");
    assert_eq!(findings(&root, &cached).len(), 2);
}

/// A library with a name of its own (`[lib] name = "pk"`) and a dependency renamed in the
/// manifest (`kern = { package = "kernels" }`): the code names the crates so, and their
/// contracts hold there (with and without a lock file, where only the manifests say it).
#[test]
fn a_lib_name_and_a_renamed_dependency_name_the_contracted_crate() {
    let root = std::env::temp_dir().join(format!("reuse-check-ws-renamed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write(&root, "Cargo.toml", "[workspace]\nmembers = [\"kernels\", \"engine\"]\nresolver = \"2\"\n");
    write(&root, "kernels/Cargo.toml", "[package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\nname = \"pk\"\n");
    write(
        &root,
        "kernels/src/lib.rs",
        "#[reuse::contract(writes(cache[slots], skip = -1))]\npub fn reshape_and_cache(cache: &mut [f32], slots: &[i64]) {}\n",
    );
    write(
        &root,
        "engine/Cargo.toml",
        "[package]\nname = \"engine\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nkern = { package = \"kernels\", path = \"../kernels\" }\n",
    );
    // `kern` in every module (an extern prelude name), under an import's rename too; a module of
    // the engine's own named like the crate is not it.
    write(
        &root,
        "engine/src/lib.rs",
        "pub mod step;\n\npub fn dummy(cache: &mut [f32], n: usize) {\n    kern::reshape_and_cache(cache, &vec![0; n]);\n}\n",
    );
    write(
        &root,
        "engine/src/step.rs",
        "use kern::reshape_and_cache as write_kv;\n\npub fn step(cache: &mut [f32], n: usize) {\n    write_kv(cache, &vec![0; n]);\n    kernels::reshape_and_cache(cache, &vec![0; n]);\n}\n\nmod kernels {\n    pub fn reshape_and_cache(_: &mut [f32], _: &[i64]) {}\n}\n",
    );
    let expected = vec!["engine/src/lib.rs:4 pad_to_null_block", "engine/src/step.rs:4 pad_to_null_block"];
    // Without a lock file: `cargo metadata --no-deps` and the manifests.
    assert_eq!(findings(&root, &CheckOptions::default()), expected);
    write(
        &root,
        "Cargo.lock",
        "version = 3\n\n[[package]]\nname = \"engine\"\nversion = \"0.1.0\"\ndependencies = [\n \"kernels\",\n]\n\n[[package]]\nname = \"kernels\"\nversion = \"0.1.0\"\n",
    );
    assert_eq!(findings(&root, &CheckOptions::default()), expected, "with the lock file: cargo's resolution");
}

/// The `macro_rules!` of another file of the crate, where Rust puts them in scope: a
/// `#[macro_use] mod macros;` (its macros expanded in every later module, which need name no
/// kernel to be analysed), a macro of an enclosing module's file defined before the module, an
/// exported one by `crate::` path, one of a `#[macro_use]` chain through an inline module. A
/// macro of a module declared without `#[macro_use]` is not in scope by its bare name, nor is
/// one defined after the module, nor one that two files define by path, nor one whose name the
/// file imports from another crate: none is expanded (the call there is another macro's).
#[test]
fn macros_of_other_files_of_the_crate_are_expanded_where_rust_scopes_them() {
    let root = std::env::temp_dir().join(format!("reuse-check-ws-macros-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write(&root, "Cargo.toml", "[workspace]\nmembers = [\"engine\"]\nresolver = \"2\"\n");
    write(&root, "engine/Cargo.toml", "[package]\nname = \"engine\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    write(
        &root,
        "engine/src/lib.rs",
        "#[macro_use]\nmod macros;\n#[macro_use]\nmod reg {\n    #[macro_use]\n    mod defs;\n}\nmod imported;\nmacro_rules! root_launch {\n    ($c:expr, $s:expr) => {\n        crate::write_kv($c, $s)\n    };\n}\nmod hidden;\nmod twice_a;\nmod twice_b;\npub mod run;\npub mod nested;\nmacro_rules! late_launch {\n    ($c:expr, $s:expr) => {\n        crate::write_kv($c, $s)\n    };\n}\n\n#[reuse::contract(writes(cache[slots], skip = -1))]\npub fn write_kv(cache: &mut [f32], slots: &[i64]) {}\n",
    );
    write(&root, "engine/src/macros.rs", "macro_rules! launch {\n    ($c:expr, $s:expr) => {\n        crate::write_kv($c, $s)\n    };\n}\n\n#[macro_export]\nmacro_rules! exported_launch {\n    ($c:expr, $s:expr) => {\n        $crate::write_kv($c, $s)\n    };\n}\n");
    write(&root, "engine/src/hidden.rs", "macro_rules! hidden_launch {\n    ($c:expr, $s:expr) => {\n        crate::write_kv($c, $s)\n    };\n}\n");
    write(&root, "engine/src/twice_a.rs", "#[macro_export]\nmacro_rules! twice {\n    ($c:expr, $s:expr) => {\n        crate::write_kv($c, $s)\n    };\n}\n");
    write(&root, "engine/src/twice_b.rs", "#[macro_export]\nmacro_rules! twice {\n    ($c:expr, $s:expr) => {};\n}\n");
    write(
        &root,
        "engine/src/run.rs",
        "pub fn through_macro_use(cache: &mut [f32], n: usize) {\n    let slots = vec![0i64; n];\n    launch!(cache, &slots);\n}\n\npub fn through_export(cache: &mut [f32], n: usize) {\n    let slots = vec![0i64; n];\n    crate::exported_launch!(cache, &slots);\n}\n\npub fn through_root(cache: &mut [f32], n: usize) {\n    let slots = vec![0i64; n];\n    root_launch!(cache, &slots);\n}\n\npub fn not_in_scope(cache: &mut [f32], n: usize) {\n    let slots = vec![0i64; n];\n    hidden_launch!(cache, &slots);\n    twice!(cache, &slots);\n    late_launch!(cache, &slots);\n}\n\npub fn padded(cache: &mut [f32], n: usize) {\n    let slots = vec![-1i64; n];\n    launch!(cache, &slots);\n}\n",
    );
    write(&root, "engine/src/reg/defs.rs", "macro_rules! reg_launch {\n    ($c:expr, $s:expr) => {\n        crate::write_kv($c, $s)\n    };\n}\n");
    // Imported from elsewhere: not the crate's `launch`.
    write(&root, "engine/src/imported.rs", "use other::launch;\n\npub fn elsewhere(cache: &mut [f32], n: usize) {\n    let slots = vec![0i64; n];\n    launch!(cache, &slots);\n}\n");
    write(&root, "engine/src/nested.rs", "pub fn nested(cache: &mut [f32], n: usize) {\n    let slots = vec![0i64; n];\n    exported_launch!(cache, &slots);\n    crate::twice!(cache, &slots);\n}\n\npub fn through_inline_chain(cache: &mut [f32], n: usize) {\n    let slots = vec![0i64; n];\n    reg_launch!(cache, &slots);\n}\n");
    assert_eq!(
        findings(&root, &CheckOptions::default()),
        vec!["engine/src/nested.rs:2 pad_to_null_block", "engine/src/nested.rs:8 pad_to_null_block", "engine/src/run.rs:2 pad_to_null_block", "engine/src/run.rs:7 pad_to_null_block", "engine/src/run.rs:12 pad_to_null_block"]
    );
}
