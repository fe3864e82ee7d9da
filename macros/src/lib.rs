//! The attributes of reuse-check: `#[reuse::contract(...)]`, `#[reuse::effect]`, `#[reuse::indexes]` and
//! `#[reuse::allow(rule, reason = "...")]`. Use them through the `reuse` crate.
//!
//! Every attribute validates its input with the one grammar in `reuse-rules` and reports problems as
//! compile errors at the offending token. With the `runtime` feature off, a valid item is emitted
//! as written: the attributes cost nothing and trip no lint in the user's crate. The one addition:
//! a contract that names constants (`skip = PAD_SLOT_ID`, `forbids_write(kv[NULL_BLOCK])`) or
//! functions (`except(health_check)`) gets a `const _: () = { let _ = &PAD_SLOT_ID; .. };` item
//! first in its body, so that a misspelled name is a compile error at its token whatever the
//! features. A `const` item is evaluated by the compiler and emits no code, so the function
//! compiles to the same code as without the attribute.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::ToTokens;

mod expand;
#[cfg(feature = "runtime")]
mod instrument;

/// Declares what a function may reuse and what it must still do or leave untouched.
///
/// ```rust,ignore
/// #[reuse::contract(
///     writes(key_cache[slot_mapping], skip = PAD_SLOT_ID),
///     forbids_write(key_cache[NULL_BLOCK]),
/// )]
/// fn reshape_and_cache(key: &[f32], key_cache: &mut [f32], slot_mapping: &[i64]) { /* ... */ }
/// ```
#[proc_macro_attribute]
pub fn contract(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::contract(attr.into(), item.into()).into()
}

/// Marks an effect: a function whose every call must happen, in order, on cache hits and misses alike.
#[proc_macro_attribute]
pub fn effect(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::effect(attr.into(), item.into()).into()
}

/// Marks a sanctioned writer: a function that a contract names in `forbids_write(P[R], except(f))`
/// and that may write `R` on purpose (a health check writing a dummy token into the null block).
/// The checker requires the mark on every function an `except` names; with the runtime feature,
/// the function enters a scope while it runs, in which the contracted functions it calls may write
/// the regions that name it. Without the feature, the function is emitted as written.
///
/// ```rust,ignore
/// #[reuse::contract(writes(kv[slots], skip = PAD_SLOT_ID), forbids_write(kv[NULL_BLOCK], except(health_check)))]
/// fn write_kv(kv: &mut [f32], slots: &[i64]) { /* ... */ }
///
/// #[reuse::sanctioned]
/// fn health_check(kv: &mut [f32]) { write_kv(kv, &[NULL_BLOCK as i64]); }
/// ```
#[proc_macro_attribute]
pub fn sanctioned(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::sanctioned(attr.into(), item.into()).into()
}

/// Declares write indexes kept in struct fields: `#[reuse::index(skip = S)]` on a field says the
/// field holds the positions a kernel writes at, and that S is its "no write" entry. The checker
/// holds every function of the workspace that builds or changes the field to it: its entries are
/// S or real positions, never the null block (`pad_to_null_block`). The macro validates the
/// declarations at their tokens, removes them, and names each sentinel in a `const _` item (a
/// misspelled constant is an error); the struct is otherwise emitted as written.
///
/// ```rust,ignore
/// #[reuse::indexes]
/// pub struct StepMeta {
///     #[reuse::index(skip = PAD_SLOT_ID)]
///     pub slot_mapping: Vec<i64>,
///     pub block_tables: Vec<Vec<u32>>,
/// }
/// ```
#[proc_macro_attribute]
pub fn indexes(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::indexes(attr.into(), item.into()).into()
}

/// Suppresses reuse-check rules on an item: `#[reuse::allow(rule, reason = "...")]`. A malformed
/// attribute or an unknown rule is a compile error; a missing reason is not (it is the checker's
/// `suppression_without_reason` warning, as for the `// reuse-check: allow(rule)` comment).
#[proc_macro_attribute]
pub fn allow(attr: TokenStream, item: TokenStream) -> TokenStream {
    let span = first_span(&attr.clone().into());
    let (_, mut errors) = reuse_rules::suppress::parse_allow_attr(attr.into(), span);
    errors.retain(|e| e.rule.name != reuse_rules::catalogue::SUPPRESSION_WITHOUT_REASON.name);
    with_errors(item.into(), &errors).into()
}

fn first_span(tokens: &TokenStream2) -> proc_macro2::Span {
    tokens.clone().into_iter().next().map(|t| t.span()).unwrap_or_else(proc_macro2::Span::call_site)
}

/// The item unchanged, preceded by the errors: keeping the item avoids a cascade of
/// "cannot find function" errors after the one that matters.
fn with_errors(item: TokenStream2, errors: &[reuse_rules::ContractError]) -> TokenStream2 {
    match reuse_rules::combine_errors(errors) {
        None => item,
        Some(e) => {
            let mut out = e.to_compile_error();
            item.to_tokens(&mut out);
            out
        }
    }
}
