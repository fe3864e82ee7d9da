//! Editor latency: findings for an edited 5,000-line file, as the language server computes them.
//! Run: `cargo bench -p reuse-check --bench editor`.
//!
//! Budget (SPEC.md): findings within 30 ms of the change. Two paths are timed on the same edit
//! (a character typed inside one function): the item re-check the server takes when no other item
//! depends on the edited one (`lsp::incremental::recheck`), and the whole-file re-check it falls
//! back to (`Session::update`). Medians of several runs; nothing is asserted.

mod common;

use common::{median, ms, ok};
use std::path::Path;
use std::sync::Arc;

use reuse_check::engine::Session;
use reuse_check::lsp::incremental::recheck;
use reuse_check::source::SourceFile;
use reuse_check::workspace::Target;

const FUNCTIONS: usize = 250;
const RUNS: usize = 15;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-editor");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub mod steps;\n\npub const PAD_SLOT_ID: i64 = -1;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_kv(cache: &mut [f32], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n",
    )
    .unwrap();
    // Each function: a padding loop, a conversion, a kernel call; every tenth pads with 0.
    let mut text = String::from("use crate::{write_kv, PAD_SLOT_ID};\n\n");
    for i in 0..FUNCTIONS {
        let pad = if i % 10 == 0 { "0" } else { "PAD_SLOT_ID" };
        text.push_str(&format!(
            "pub fn step_{i}(cache: &mut [f32], real: &[i64], n: usize, warm: bool) -> usize {{\n    let mut slots = real.to_vec();\n    for _ in real.len()..n {{\n        slots.push({pad});\n    }}\n    if warm {{\n        slots.fill(PAD_SLOT_ID);\n    }}\n    let total: i64 = slots.iter().sum();\n    let copy = slots.clone();\n    write_kv(cache, &copy);\n    let mut count = 0;\n    for s in &slots {{\n        if *s >= 0 {{\n            count += 1;\n        }}\n    }}\n    println!(\"{{}} {{}}\", total, count);\n    count\n}}\n\n"
        ));
    }
    let path = root.join("src/steps.rs");
    std::fs::write(&path, &text).unwrap();
    let lines = text.lines().count();

    let mut session = Session::open(&Target { path: Some(root.clone()), ..Target::default() }).unwrap();
    let path = std::fs::canonicalize(&path).unwrap();
    let start = session.update(&path, text.clone());
    let old = session.file(&path).unwrap().clone();
    let job = session.job(&path).unwrap().clone();
    // The edit: a space typed inside the middle function.
    let at = text.find(&format!("pub fn step_{}(", FUNCTIONS / 2)).unwrap() + 40;
    let edited = format!("{} {}", &text[..at], &text[at..]);
    let new = Arc::new(SourceFile::new(old.path.clone(), old.rel_path.clone(), edited.clone()));

    let mut item_findings = 0;
    let item = median(RUNS, || {
        let got = recheck(&old, &start, &new, &job, session.index(), &session.items()).expect("the item path is taken for an edit inside one function");
        item_findings = got.len();
    });
    let mut file_findings = 0;
    let whole = median(RUNS, || {
        file_findings = session.update(&path, edited.clone()).len();
        session.update(&path, text.clone());
    }) / 2;
    assert_eq!(item_findings, file_findings, "both paths find the same");
    let parse = median(RUNS, || {
        assert!(syn::parse_file(&edited).is_ok());
        proc_macro2::extra::invalidate_current_thread_spans();
    });

    println!("editor: {lines}-line file, {FUNCTIONS} functions, {file_findings} findings; median of {RUNS} runs");
    println!("{:<52} {:>8}", "", "ms");
    println!("{:<52} {:>8.1}", "one edited item re-checked (the server's usual path)", ms(item));
    println!("{:<52} {:>8.1}", "the whole file re-checked (its fallback)", ms(whole));
    println!("{:<52} {:>8.1}", "baseline: syn-parse the file once", ms(parse));
    println!("budget: findings within 30 ms (item path {}, whole file {})", ok(ms(item) <= 30.0), ok(ms(whole) <= 30.0));
}
