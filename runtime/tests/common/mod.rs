// Shared by the integration tests (each includes it with `mod common;`).
#![allow(dead_code)]

use reuse::runtime::Violation;

/// The rule names of `violations`, in order.
pub fn rules(violations: &[Violation]) -> Vec<&'static str> {
    violations.iter().map(|v| v.rule_name()).collect()
}
