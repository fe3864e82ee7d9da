//! Compile-time behaviour of the attributes: malformed contracts and suppressions are compile errors
//! at the offending token (`tests/ui/fail`, each with its reviewed `.stderr`), and every valid clause
//! form compiles without a single warning (`tests/ui/pass`, under `#![deny(warnings)]`).
//!
//! Regenerate the expected output after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p reuse --test ui`, then review every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
    // Names that resolve to nothing are rustc's own errors at the token; with the runtime feature
    // the instrumented wrapper names them too, so their text is reviewed for the feature off.
    #[cfg(not(feature = "runtime"))]
    t.compile_fail("tests/ui/names/*.rs");
}
