//! Property tests (proptest, on stable, in CI): the contract parser round-trips what it accepts,
//! every renderer takes any finding in any text, the depth bound agrees with the nesting it
//! measures, and the checker never panics nor fails internally on generated source.

use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use reuse_check::config::Config;
use reuse_check::engine::{check_jobs, CheckOptions, FileJob, Report, Stats};
use reuse_check::finding::{Finding, Label};
use reuse_check::render::{self, json::Rendered, Format, RenderOptions};
use reuse_check::source::{too_deep, SourceFile, MAX_NESTING};

/// Contracts from the grammar: clauses, places, indexes, sentinels, effects and aliases.
fn contract() -> impl Strategy<Value = String> {
    let ident = prop::sample::select(vec!["cache", "slots", "table", "state", "out", "plans", "k", "v"]);
    let place = prop_oneof![
        ident.clone().prop_map(str::to_string),
        ident.clone().prop_map(|f| format!("self.{f}")),
        (ident.clone(), ident.clone()).prop_map(|(a, b)| format!("{a}.{b}")),
    ];
    let sentinel = prop_oneof![Just("-1".to_string()), Just("PAD_SLOT_ID".to_string()), Just("kv::PAD".to_string())];
    let region = prop_oneof![
        Just("0".to_string()),
        Just("NULL_BLOCK".to_string()),
        Just("0..BLOCK_SIZE".to_string()),
        (0u32..8, 8u32..64).prop_map(|(a, b)| format!("{a}..{b}")),
    ];
    let clause = prop_oneof![
        (place.clone(), prop::collection::vec(place.clone(), 1..3)).prop_map(|(p, k)| format!("reuses({p}, key({}))", k.join(", "))),
        prop::collection::vec(prop::sample::select(vec!["log_step", "check_errors", "obs::record", "rng_advance"]), 1..4)
            .prop_map(|e| format!("preserves({})", e.join(", "))),
        (place.clone(), ident.clone(), prop::option::of(sentinel)).prop_map(|(p, i, s)| match s {
            Some(s) => format!("writes({p}[{i}], skip = {s})"),
            None => format!("writes({p}[{i}])"),
        }),
        (place.clone(), ident.clone()).prop_map(|(p, i)| format!("reads({p}[{i}])")),
        (place.clone(), region).prop_map(|(p, r)| format!("forbids_write({p}[{r}])")),
        (prop::sample::select(vec!["return", "return.0", "return.out"]), ident).prop_map(|(o, i)| format!("aliases({o} = {i})")),
    ];
    prop::collection::vec(clause, 0..5).prop_map(|c| c.join(", "))
}

fn parse(text: &str) -> Result<String, ()> {
    let tokens: proc_macro2::TokenStream = text.parse().map_err(|_| ())?;
    reuse_rules::parse_contract(tokens).map(|c| c.to_string()).map_err(|_| ())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn accepted_contracts_round_trip_through_their_canonical_form(text in contract()) {
        if let Ok(printed) = parse(&text) {
            prop_assert_eq!(parse(&printed), Ok(printed.clone()));
        }
    }

    #[test]
    fn the_parser_rejects_or_accepts_any_token_soup_without_panicking(text in "[a-z_(),=\\[\\]. :0-9-]{0,80}") {
        if let Ok(printed) = parse(&text) {
            prop_assert_eq!(parse(&printed), Ok(printed.clone()));
        }
    }

    #[test]
    fn every_renderer_takes_any_finding_in_any_text(
        text in "(\\PC|\r|\n|\t|\u{feff}){0,200}",
        a in 0usize..400, b in 0usize..400, c in 0usize..400,
    ) {
        let file = Arc::new(SourceFile::new("/ws/src/x.rs".into(), "src/x.rs".into(), text.clone()));
        let boundary = |mut i: usize| { i = i.min(text.len()); while !text.is_char_boundary(i) { i -= 1; } i };
        let (s, e) = (boundary(a.min(b)), boundary(a.max(b)));
        let rule = reuse_rules::catalogue::ALL[c % reuse_rules::catalogue::ALL.len()];
        let f = Finding::new(rule, "a message with `code`, <html> & \"quotes\"", Label::new(&file, s..e, "here"))
            .with_secondary(Label::new(&file, boundary(c)..boundary(c), "there"))
            .with_help("help")
            .with_note("note");
        let stats = Stats { files: 1, lines: file.line_count(), parsed: 1, contracts: 0 };
        let report = Report { findings: vec![f], stats, root: "/ws".into(), packages: Vec::new(), warnings: Vec::new(), sources: Vec::new() };
        let options = RenderOptions { color: c % 2 == 0, success: false, repo_root: None, ..RenderOptions::default() };
        for format in [Format::Human, Format::Short, Format::Json(Rendered::Plain), Format::Json(Rendered::Ansi), Format::Json(Rendered::Short), Format::Sarif, Format::Github] {
            let out = render::render(format, &report, &options);
            if matches!(format, Format::Json(_)) {
                for line in out.lines() {
                    prop_assert!(serde_json::from_str::<serde_json::Value>(line).is_ok(), "{}", line);
                }
            }
            if matches!(format, Format::Sarif) {
                prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
            }
        }
    }

    #[test]
    fn the_depth_bound_measures_nesting_and_ignores_literals(
        depth in 1usize..(MAX_NESTING + 200),
        opens in prop::collection::vec(prop::sample::select(vec!['(', '[', '{']), 1..8),
        noise in prop::sample::select(vec!["", "/* ((( */", "\"{{{\"", "'('", "// [[[\n", "r#\"((\"#", "'a ", "b'['"]),
    ) {
        let mut text = String::from("fn f() ");
        let mut closes = Vec::new();
        for i in 0..depth {
            let open = opens[i % opens.len()];
            text.push(open);
            text.push_str(noise);
            closes.push(match open { '(' => ')', '[' => ']', _ => '}' });
        }
        text.extend(closes.iter().rev());
        // `fn f()` itself opens nothing: the body nests `depth` deep.
        prop_assert_eq!(too_deep(&text).is_some(), depth > MAX_NESTING, "depth {}", depth);
    }

    #[test]
    fn generated_source_never_makes_the_checker_fail(
        body in prop::collection::vec(prop::sample::select(vec![
            "let slots = vec![0; n];", "let slots = vec![PAD_SLOT_ID; n];", "slots.fill(0);", "slots.resize(n, 0);",
            "reshape_and_cache(&key, &mut cache, &slots);", "if warm { slots.fill(PAD_SLOT_ID); }", "for s in slots.iter_mut() { *s = -1; }",
            "let slots = slots;", "{ let slots = vec![1; n]; }", "return;", "let x = cache.get(&k)?;", "loop { break; }",
            "match k { 0 => {}, _ => return }", "let c = || reshape_and_cache(&key, &mut cache, &slots);", "c();",
        ]), 0..12),
    ) {
        let kernel = include_str!("../../fixtures/paged-kv/src/lib.rs");
        let source = format!("use crate::*;\npub fn step(key: &[Row], cache: &mut [Row], n: usize, warm: bool, k: usize) -> Option<()> {{\n{}\nSome(())\n}}\n", body.join("\n"));
        let job = |rel: &str, text: String, module: Vec<String>| FileJob {
            file: Arc::new(SourceFile::new(Path::new("/ws").join(rel), rel.to_string(), text)),
            crate_name: "fixture_paged_kv".into(),
            module,
            config: Arc::new(Config::default()),
            external: false,
            unreadable: None,
            report: true,
            reach: None,
            renames: Default::default(),
        };
        let jobs = vec![
            job("src/lib.rs", kernel.to_string(), vec!["fixture_paged_kv".into()]),
            job("src/step.rs", source, vec!["fixture_paged_kv".into(), "step".into()]),
        ];
        let report = check_jobs(&jobs, Path::new("/ws"), &CheckOptions { all_files: true, use_cache: false });
        prop_assert!(report.findings.iter().all(|f| f.rule.name != "internal_error" && f.rule.name != "parse_error"));
    }
}
