//! The one contract grammar and the one rule catalogue of reuse-check.
//!
//! Everything that reads a contract goes through this crate: the attribute macros (`reuse-macros`),
//! the static checker (`reuse-check`) and the runtime shim (`reuse-runtime`). That is what makes a
//! rule name and a clause mean the same thing everywhere.
//!
//! - [`contract`]: the model of a `#[reuse::contract(...)]` attribute and its parser. Every element
//!   carries a span; the model is generic over the span type so that the checker can resolve
//!   `proc_macro2` spans to file positions right after parsing (see [`contract::Contract::map_span`]).
//! - [`validate`]: checks a parsed contract against the signature it annotates (unknown names,
//!   `self` on a free function, aliases between types that cannot share storage).
//! - [`suppress`]: `#[reuse::allow(rule, reason = "...")]` and `// reuse-check: allow(rule) reason`.
//! - [`external`]: contracts files for functions you do not own.
//! - [`catalogue`]: the rules, one file each, whose doc comment is the `--explain` text.

pub mod catalogue;
pub mod contract;
pub mod external;
pub mod suppress;
pub mod validate;

pub use catalogue::{Level, Rule};
pub use contract::{parse_contract, Contract};

/// A problem found in contract syntax or against a signature, under the rule that reports it.
#[derive(Clone, Debug)]
pub struct ContractError<S = proc_macro2::Span> {
    pub rule: &'static Rule,
    pub span: S,
    pub message: String,
}

impl ContractError {
    pub fn new(rule: &'static Rule, span: proc_macro2::Span, message: impl Into<String>) -> Self {
        ContractError { rule, span, message: message.into() }
    }

    /// As a compiler error at the offending token (what the macros emit).
    pub fn to_syn_error(&self) -> syn::Error {
        syn::Error::new(self.span, format!("{} [reuse::{}]", self.message, self.rule.name))
    }
}

/// Folds several errors into one `syn::Error` so that a macro reports all of them at once.
pub fn combine_errors(errors: &[ContractError]) -> Option<syn::Error> {
    let mut iter = errors.iter().map(ContractError::to_syn_error);
    let mut first = iter.next()?;
    for e in iter {
        first.combine(e);
    }
    Some(first)
}
