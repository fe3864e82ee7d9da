//! Cold and warm check of a generated 400K-line workspace, against the baseline of reading and
//! syn-parsing every file (in parallel, as the checker does). Run: `cargo bench -p reuse-check --bench check`.
//!
//! Budgets (SPEC.md): a cold check at most half the baseline; a warm re-check with nothing changed at
//! most 50 ms. Printed as ratios of medians over several runs, side by side; nothing is asserted.

mod common;

use common::{median, ms, ok};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rayon::prelude::*;
use reuse_check::engine::CheckOptions;
use reuse_check::workspace::Target;

const FILES: usize = 800;
const RUNS: usize = 5;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-workspace");
    let lines = generate(&root);
    let target = Target { path: Some(root.clone()), ..Target::default() };
    let files: Vec<PathBuf> = std::fs::read_dir(root.join("src")).unwrap().map(|e| e.unwrap().path()).collect();

    let baseline = median(RUNS, || {
        let parsed: usize = files
            .par_iter()
            .map(|f| {
                let text = std::fs::read_to_string(f).unwrap();
                let ok = syn::parse_file(&text).is_ok() as usize;
                reuse_semantic::source::invalidate_spans();
                ok
            })
            .sum();
        assert_eq!(parsed, files.len());
    });
    let mut findings = 0;
    let cold = median(RUNS, || {
        let report = reuse_check::check_with(&target, &CheckOptions { use_cache: false, ..CheckOptions::default() }).unwrap();
        findings = report.findings.len();
    });
    let all_files = median(RUNS, || {
        reuse_check::check_with(&target, &CheckOptions { all_files: true, use_cache: false }).unwrap();
    });
    // Prime the cache once, then measure re-checks with nothing changed.
    reuse_check::check_with(&target, &CheckOptions { use_cache: true, ..CheckOptions::default() }).unwrap();
    let warm = median(RUNS, || {
        reuse_check::check_with(&target, &CheckOptions { use_cache: true, ..CheckOptions::default() }).unwrap();
    });

    println!("workspace: {FILES} files, {lines} lines, {findings} findings; median of {RUNS} runs");
    println!("{:<44} {:>10}  {:>8}", "", "ms", "ratio");
    let row = |name: &str, d: Duration| println!("{name:<44} {:>10.1}  {:>8.3}", ms(d), ms(d) / ms(baseline));
    row("baseline: read + syn-parse every file", baseline);
    row("cold check (prefiltered)", cold);
    row("cold check, every file parsed and analysed", all_files);
    row("warm re-check, nothing changed", warm);
    println!("budgets: cold <= 0.5 x baseline ({}), warm <= 50 ms ({})", ok(ms(cold) <= 0.5 * ms(baseline)), ok(ms(warm) <= 50.0));
    common_names();
}

/// The same budget when the contracted names are common words: kernels called `launch` and
/// `copy_from` in a crate with a module named `launch`, in a Cargo workspace of 8 crates where
/// only 2 depend on the kernels and the others call methods of the same names on types of
/// their own, import the module, or use the words in longer identifiers.
fn common_names() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-common-names");
    let _ = std::fs::remove_dir_all(&root);
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let crates = ["kernels", "engine", "serve", "tokenizer", "sampler", "scheduler", "metrics", "loader"];
    let members: Vec<String> = crates.iter().map(|c| format!("\"{c}\"")).collect();
    write("Cargo.toml", &format!("[workspace]\nmembers = [{}]\nresolver = \"2\"\n", members.join(", ")));
    let mut files = Vec::new();
    let mut lines = 0;
    for (k, krate) in crates.iter().enumerate() {
        let deps = if matches!(*krate, "engine" | "serve") { "kernels = { path = \"../kernels\" }\n" } else { "" };
        write(&format!("{krate}/Cargo.toml"), &format!("[package]\nname = \"{krate}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}"));
        let mut lib = String::new();
        for i in 0..100 {
            lib.push_str(&format!("pub mod m{i:03};\n"));
            let text = match (*krate, i) {
                ("kernels", 0) => "pub use crate::launch::{launch, copy_from};\n".to_string(),
                ("engine" | "serve", 7) => "use kernels::launch;\npub fn step(c: &mut [f32], n: usize) { let slots = vec![0; n]; launch(c, &slots); }\n".to_string(),
                // Methods of the same names on types of their own, called; a module import.
                _ => format!(
                    "{}\n#[allow(unused_imports)]\nuse crate::m000;\npub fn run(l: &mut Layer0, o: &Layer0) {{ l.launch(); l.copy_from(o); }}\n",
                    ordinary(k * 100 + i).replace("pub fn new(", "pub fn launch(&self) {}\n    pub fn copy_from(&mut self, _o: &Self) {}\n    pub fn new(")
                ),
            };
            lines += text.lines().count();
            let rel = format!("{krate}/src/m{i:03}.rs");
            write(&rel, &text);
            files.push(root.join(rel));
        }
        if *krate == "kernels" {
            // The module and the function share a name (different namespaces), as in real kernel crates.
            lib.push_str("pub mod launch;\npub use launch::{launch, copy_from};\n");
            write("kernels/src/launch.rs", "#[reuse::contract(writes(cache[slots], skip = -1))]\npub fn launch(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n#[reuse::contract(writes(cache[slots], skip = -1))]\npub fn copy_from(cache: &mut [f32], slots: &[i64]) { let _ = (cache, slots); }\n");
        }
        write(&format!("{krate}/src/lib.rs"), &lib);
    }
    let target = Target { path: Some(root.clone()), ..Target::default() };
    let baseline = median(RUNS, || {
        files.par_iter().for_each(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let _ = syn::parse_file(&text);
            reuse_semantic::source::invalidate_spans();
        });
    });
    let mut parsed = 0;
    let mut findings = 0;
    let cold = median(RUNS, || {
        let report = reuse_check::check_with(&target, &CheckOptions { use_cache: false, ..CheckOptions::default() }).unwrap();
        (parsed, findings) = (report.stats.parsed, report.findings.len());
    });
    // Where the cold check's time goes: discovery (`cargo metadata`, the walk), reading every
    // file, and the phases of the check on what was read.
    let discover = median(RUNS, || {
        reuse_check::workspace::discover(&target).unwrap();
    });
    let ws = reuse_check::workspace::discover(&target).unwrap();
    let read = median(RUNS, || {
        reuse_check::engine::read_jobs(&ws);
    });
    let jobs = reuse_check::engine::read_jobs(&ws);
    let checked = median(RUNS, || {
        reuse_check::engine::check_jobs(&jobs, &ws.root, &CheckOptions::default());
    });
    println!();
    println!("common names: {} crates, {} files, {lines} lines, {findings} findings, {parsed} files parsed in phase 2", crates.len(), files.len());
    println!("{:<44} {:>10}  {:>8}", "", "ms", "ratio");
    let row = |name: &str, d: Duration| println!("{name:<44} {:>10.1}  {:>8.3}", ms(d), ms(d) / ms(baseline));
    row("baseline: read + syn-parse every file", baseline);
    row("cold check (prefiltered)", cold);
    row("  of which: discovery (cargo metadata, walk)", discover);
    row("  of which: reading every file", read);
    row("  of which: index and analysis", checked);
    println!("budget: cold <= 0.5 x baseline ({})", ok(ms(cold) <= 0.5 * ms(baseline)));
}

/// A workspace of ordinary ML-engine-like code: most files never mention a contracted name; a few
/// declare contracts and a few call them (with one seeded bug each).
fn generate(root: &Path) -> usize {
    let src = root.join("src");
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(&src).unwrap();
    let mut lines = 0;
    let mut lib = String::new();
    for i in 0..FILES {
        lib.push_str(&format!("pub mod m{i:04};\n"));
        let text = match i {
            0 => KERNELS.to_string(),
            _ if i % 200 == 7 => CALLER.replace("NUM", &i.to_string()),
            _ => ordinary(i),
        };
        lines += text.lines().count();
        std::fs::write(src.join(format!("m{i:04}.rs")), text).unwrap();
    }
    std::fs::write(src.join("lib.rs"), lib).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"bench-workspace\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n").unwrap();
    lines + FILES
}

const KERNELS: &str = r#"
pub const PAD_SLOT_ID: i64 = -1;
pub const BLOCK_SIZE: usize = 16;

#[reuse::contract(writes(key_cache[slot_mapping], skip = PAD_SLOT_ID), forbids_write(key_cache[0..BLOCK_SIZE]))]
pub fn reshape_and_cache(key: &[f32], key_cache: &mut [f32], slot_mapping: &[i64]) {
    for (row, &slot) in key.iter().zip(slot_mapping) {
        if slot == PAD_SLOT_ID { continue; }
        key_cache[slot as usize] = *row;
    }
}

#[reuse::effect]
pub fn log_step() {}
"#;

const CALLER: &str = r#"
use crate::m0000::{reshape_and_cache, PAD_SLOT_ID};

pub fn dummy_run_NUM(cache: &mut [f32], n: usize) {
    let key = vec![0.0; n];
    let slots = vec![0; n];
    reshape_and_cache(&key, cache, &slots);
}

pub fn padded_NUM(cache: &mut [f32], key: &[f32], real: &[i64]) {
    let mut slots = vec![PAD_SLOT_ID; key.len()];
    slots[..real.len()].copy_from_slice(real);
    reshape_and_cache(key, cache, &slots);
}
"#;

/// About 500 lines of code that mentions no contracted name.
fn ordinary(i: usize) -> String {
    let mut s = format!("//! Generated module {i}.\nuse std::collections::HashMap;\n\n");
    for j in 0..20 {
        s.push_str(&format!(
            r#"#[derive(Debug, Clone, Default)]
pub struct Layer{j} {{
    weights: Vec<f32>,
    bias: Vec<f32>,
    cache: HashMap<u64, Vec<f32>>,
}}

impl Layer{j} {{
    pub fn new(n: usize) -> Self {{
        Layer{j} {{ weights: vec![0.5; n], bias: vec![0.0; n], cache: HashMap::new() }}
    }}

    pub fn forward(&mut self, input: &[f32], key: u64) -> Vec<f32> {{
        if let Some(hit) = self.cache.get(&key) {{
            return hit.clone();
        }}
        let mut out = Vec::with_capacity(input.len());
        for (k, x) in input.iter().enumerate() {{
            let w = self.weights.get(k).copied().unwrap_or(0.0);
            let b = match self.bias.get(k) {{
                Some(b) if *b > 0.0 => *b,
                Some(_) => 0.0,
                None => continue,
            }};
            out.push(x * w + b);
        }}
        let total: f32 = out.iter().map(|v| v.abs()).sum();
        if total > 1e6 {{
            out.iter_mut().for_each(|v| *v /= total);
        }}
        self.cache.insert(key, out.clone());
        out
    }}
}}

"#
        ));
    }
    s
}
