//! Editor latency: findings for an edited 5,000-line file, as the language server computes them.
//! Run: `cargo bench -p reuse-check --bench editor`.
//!
//! Budget (SPEC.md): findings within 30 ms of the change. Timed on the same file, through
//! `Session::edit` (what the server calls): a character typed inside one function (the item
//! path: that item is checked again); a helper edited that two functions call (the item path
//! with the items linked to it); a function deleted (the items' structure changes); a kernel's
//! contract edited (the file's declaring items parsed and indexed again, the items that name
//! the kernel checked again); a constant the file declares edited (the items that name it, or name a kernel whose
//! contract does, checked again); an import added to the file; a bracket
//! typed (the text does not parse: the whole file, a parse error) and closed (the item path from
//! the last text that parsed); another open file of the same size brought up to date after an
//! edit of the helper it calls (`Session::edit` of its unchanged text: the items that name what
//! the edit changed); and the whole-file check (`Session::update`: the first check of
//! a file, and of another open file after an edit whose effect on it is not known), beside the same
//! on one thread (a big file's items are shared with another). Medians of several
//! runs; nothing
//! is asserted but the path each edit takes and that it finds what a whole-file check finds.

mod common;

use common::{median, ms, ok};
use std::path::Path;

use reuse_check::engine::Session;
use reuse_check::workspace::Target;

const FUNCTIONS: usize = 250;
const RUNS: usize = 15;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-editor");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    // The path the language server is given: a file's own (no `..`), as the session's files are.
    let root = std::fs::canonicalize(&root).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub mod steps;\npub mod replay;\n\npub const PAD_SLOT_ID: i64 = -1;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_kv(cache: &mut [f32], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n",
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
    // Another open file of the same size, one of whose functions calls the helper below.
    let replay_text = format!(
        "use crate::{{write_kv, PAD_SLOT_ID}};\n\n{}pub fn replay_padded(cache: &mut [f32], real: &[i64], n: usize) {{\n    write_kv(cache, &crate::steps::pad_to(real.to_vec(), n));\n}}\n",
        text.replace("pub fn step_", "pub fn replay_").replace("use crate::{write_kv, PAD_SLOT_ID};\n\n", "")
    );
    let replay = root.join("src/replay.rs");
    std::fs::write(&replay, &replay_text).unwrap();

    // A helper that pads, and two callers: editing it re-checks the three.
    let helper = "pub fn pad_to(mut v: Vec<i64>, n: usize) -> Vec<i64> {\n    v.resize(n, PAD_SLOT_ID);\n    v\n}\n\npub fn padded_a(cache: &mut [f32], real: &[i64], n: usize) {\n    write_kv(cache, &pad_to(real.to_vec(), n));\n}\n\npub fn padded_b(cache: &mut [f32], real: &[i64], n: usize) {\n    let s = pad_to(real.to_vec(), n);\n    write_kv(cache, &s);\n}\n";
    // A kernel declared in the file itself, and a caller: editing its contract re-indexes the
    // file and re-checks the items that name it.
    let declared = "#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_local(cache: &mut [f32], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n\npub fn local_caller(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    write_local(cache, &slots);\n}\n\npub const DUMMY_SLOT: i64 = PAD_SLOT_ID;\n\npub fn local_dummy(cache: &mut [f32], n: usize) {\n    write_local(cache, &vec![DUMMY_SLOT; n]);\n}\n";
    let text = format!("{text}{helper}\n{declared}");
    std::fs::write(&path, &text).unwrap();
    let lines = text.lines().count();

    // Opening a session reads, indexes and (with a kernel that skips a sentinel) checks the
    // workspace once to learn its forwarders: the language server's start-up.
    let target = Target { path: Some(root.clone()), ..Target::default() };
    let opened = median(RUNS, || drop(Session::open(&target).unwrap()));
    let no_cache = reuse_check::engine::CheckOptions { use_cache: false, ..Default::default() };
    let cold = median(RUNS, || drop(reuse_check::check_with(&target, &no_cache).unwrap()));
    let mut session = Session::open(&target).unwrap();
    let path = std::fs::canonicalize(&path).unwrap();
    session.update(&path, text.clone());
    let mid = text.find(&format!("pub fn step_{}(", FUNCTIONS / 2)).unwrap();
    // A space typed inside the middle function.
    let typed = format!("{} {}", &text[..mid + 40], &text[mid + 40..]);
    // The helper pads with 0: both callers' calls become findings.
    let helper_zero = text.replace("v.resize(n, PAD_SLOT_ID);", "v.resize(n, 0);");
    // The middle function deleted.
    let next = text[mid..].find("\npub fn ").map(|i| mid + i + 1).unwrap();
    let deleted = format!("{}{}", &text[..mid], &text[next..]);

    // The kernel's contract edited (the sentinel written by its value).
    let contract_edited = text.replace("writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_local", "writes(cache[slots], skip = -1))]\npub fn write_local");
    assert_ne!(contract_edited, text);
    // The constant the dummy row pads with is 0: a finding at its call.
    let constant_edited = text.replace("pub const DUMMY_SLOT: i64 = PAD_SLOT_ID;", "pub const DUMMY_SLOT: i64 = 0;");
    let import_added = text.replacen("use crate::{write_kv, PAD_SLOT_ID};\n", "use crate::{write_kv, PAD_SLOT_ID};\nuse std::collections::HashMap;\n", 1);
    assert!(constant_edited != text && import_added != text);
    let mut cases = Vec::new();
    for (what, edited) in [("a character typed in one function", &typed), ("a helper of two functions edited", &helper_zero), ("a function deleted", &deleted), ("a contract edited", &contract_edited), ("a constant edited", &constant_edited), ("an import added", &import_added)] {
        let mut items = None;
        let mut found = 0;
        // Each run: the edit, then back (both through the item path), halved.
        let t = median(RUNS, || {
            let edit = session.edit(&path, edited.clone());
            (items, found) = (edit.items, edit.findings.len());
            assert!(session.edit(&path, text.clone()).items.is_some(), "{what}: back by the item path");
        }) / 2;
        let whole = Session::open(&Target { path: Some(root.clone()), ..Target::default() }).unwrap().update(&path, edited.clone()).len();
        assert_eq!(found, whole, "{what}: the item path finds what the whole file does");
        let items = items.unwrap_or_else(|| panic!("{what}: the item path is taken"));
        cases.push((format!("{what} ({items} item{})", if items == 1 { "" } else { "s" }), t));
    }
    // The other open file, its text unchanged, brought up to date after the helper it calls was
    // edited (the server does this after each edit): the items that name what the edit changed.
    let replay = std::fs::canonicalize(&replay).unwrap();
    session.update(&replay, replay_text.clone());
    let (mut refreshed, mut refresh_items) = (Vec::new(), None);
    median(RUNS, || {
        for t in [&helper_zero, &text] {
            session.edit(&path, t.clone());
            let started = std::time::Instant::now();
            let edit = session.edit(&replay, replay_text.clone());
            refreshed.push(started.elapsed());
            refresh_items = edit.items;
            let mut fresh = Session::open(&Target { path: Some(root.clone()), ..Target::default() }).unwrap();
            fresh.update(&path, t.clone());
            assert_eq!(edit.findings.len(), fresh.update(&replay, replay_text.clone()).len(), "the other file is brought up to date");
        }
    });
    let refresh_items = refresh_items.expect("the other file takes the item path");
    // The same, checked whole (what the server did when an edit changed the index).
    let mut whole_other = Vec::new();
    median(RUNS, || {
        for t in [&helper_zero, &text] {
            session.edit(&path, t.clone());
            let started = std::time::Instant::now();
            session.check_file(&replay);
            whole_other.push(started.elapsed());
        }
    });
    // A bracket typed: the text does not parse (the whole file: a parse error). Closed again: the
    // item path, from the last text that parsed.
    let sum = mid + text[mid..].find("slots.iter().sum()").unwrap();
    let open = format!("{}({}", &text[..sum], &text[sum..]);
    let closed = format!("{}({}){}", &text[..sum], &text[sum..sum + "slots.iter().sum()".len()], &text[sum + "slots.iter().sum()".len()..]);
    let (mut open_times, mut closed_times) = (Vec::new(), Vec::new());
    median(RUNS, || {
        let t = std::time::Instant::now();
        assert!(session.edit(&path, open.clone()).items.is_none(), "a parse error: the whole file");
        open_times.push(t.elapsed());
        let t = std::time::Instant::now();
        assert!(session.edit(&path, closed.clone()).items.is_some(), "closed: the item path");
        closed_times.push(t.elapsed());
        session.edit(&path, text.clone());
    });
    let mid_of = |mut v: Vec<std::time::Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    cases.push(("a bracket closed after a parse error".to_string(), mid_of(closed_times)));
    let other_file = (format!("another open file, after the helper it calls was edited ({refresh_items} item{})", if refresh_items == 1 { "" } else { "s" }), mid_of(refreshed));
    let whole_other = mid_of(whole_other);
    let unclosed = mid_of(open_times);

    let mut file_findings = 0;
    let whole = median(RUNS, || {
        file_findings = session.update(&path, typed.clone()).len();
        session.update(&path, text.clone());
    }) / 2;
    // The same on one thread (a big file's items are shared with another).
    session.split_whole_checks_from(None);
    let whole_one_thread = median(RUNS, || {
        session.update(&path, typed.clone());
        session.update(&path, text.clone());
    }) / 2;
    let parse = median(RUNS, || {
        assert!(syn::parse_file(&typed).is_ok());
        reuse_semantic::source::invalidate_spans();
    });

    println!("editor: {lines}-line file, {} functions, {file_findings} findings; median of {RUNS} runs", FUNCTIONS + 5);
    println!("{:<60} {:>8}", "", "ms");
    for (what, t) in &cases {
        println!("{:<60} {:>8.1}", format!("item path: {what}"), ms(*t));
    }
    println!("{:<60} {:>8.1}", format!("item path: {}", other_file.0), ms(other_file.1));
    println!("{:<60} {:>8.1}", "  baseline: that file checked whole", ms(whole_other));
    println!("{:<60} {:>8.1}", "whole file: a bracket typed, not closed (a parse error)", ms(unclosed));
    println!("{:<60} {:>8.1}", "whole file re-checked (Session::update)", ms(whole));
    println!("{:<60} {:>8.1}", "  baseline: the same on one thread", ms(whole_one_thread));
    println!("{:<60} {:>8.1}", "baseline: syn-parse the file once", ms(parse));
    println!("{:<60} {:>8.1}", "start-up: Session::open (learns the forwarders)", ms(opened));
    println!("{:<60} {:>8.1}", "baseline: a cold check of the workspace (no cache)", ms(cold));
    let worst = cases.iter().map(|(_, t)| ms(*t)).fold(0.0, f64::max);
    println!("budget: findings within 30 ms of an edit ({}); the whole-file check (the first check of a file), {}", ok(worst.max(ms(unclosed)) <= 30.0), ok(ms(whole) <= 30.0));
}
