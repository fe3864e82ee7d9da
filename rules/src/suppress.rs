//! Suppressions: `#[reuse::allow(rule, reason = "...")]` on an item and
//! `// reuse-check: allow(rule) reason` on the line before a statement.

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitStr, Token};

use crate::catalogue::{self, CONTRACT_SYNTAX, SUPPRESSION_WITHOUT_REASON, UNKNOWN_NAME};
use crate::contract::Name;
use crate::ContractError;

/// A parsed `#[reuse::allow(...)]`: the rules it names and its reason.
#[derive(Clone, Debug)]
pub struct Allow<S = Span> {
    pub rules: Vec<Name<S>>,
    pub reason: Option<String>,
}

/// Parses the arguments of `#[reuse::allow(...)]`. Returns what could be read, and the errors:
/// an unknown rule name (`unknown_name`) or a missing or empty reason (`suppression_without_reason`).
pub fn parse_allow_attr(tokens: TokenStream, attr_span: Span) -> (Option<Allow>, Vec<ContractError>) {
    let parsed = (|input: ParseStream| -> syn::Result<Allow> {
        let mut rules = Vec::new();
        let mut reason = None;
        while !input.is_empty() {
            let ident: Ident = input.parse()?;
            if ident == "reason" && input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
                let lit: LitStr = input.parse()?;
                reason = Some(lit.value());
            } else {
                rules.push(Name { text: ident.to_string(), span: ident.span() });
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(Allow { rules, reason })
    })
    .parse2(tokens);
    let allow = match parsed {
        Ok(a) => a,
        Err(e) => return (None, vec![ContractError::new(&CONTRACT_SYNTAX, e.span(), format!("{e}: expected `allow(rule, reason = \"...\")`"))]),
    };
    let mut errors = Vec::new();
    if allow.rules.is_empty() {
        errors.push(ContractError::new(&CONTRACT_SYNTAX, attr_span, "name the rule to allow: `allow(rule, reason = \"...\")`"));
    }
    for rule in &allow.rules {
        if catalogue::find(&rule.text).is_none() {
            errors.push(ContractError::new(&UNKNOWN_NAME, rule.span, format!("unknown rule `{}`{}: `reuse-check --list-rules` lists them", rule.text, catalogue::did_you_mean_rule(&rule.text))));
        }
    }
    if allow.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
        let span = allow.rules.last().map(|r| r.span).unwrap_or(attr_span);
        errors.push(ContractError::new(
            &SUPPRESSION_WITHOUT_REASON,
            span,
            "a suppression needs a reason: add `reason = \"why this reuse is safe here\"`",
        ));
    }
    (Some(allow), errors)
}

/// A `// reuse-check: allow(rule, ...) reason` comment, with byte ranges relative to the comment text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineAllow {
    pub rules: Vec<(String, std::ops::Range<usize>)>,
    pub reason: Option<String>,
}

/// The marker a suppression comment starts with (after `//`).
pub const COMMENT_MARKER: &str = "reuse-check:";

/// Parses the text of one line comment (everything after `//`). `None`: not a suppression comment.
/// `Some(Err(offset, message))`: a malformed one.
pub fn parse_allow_comment(comment: &str) -> Option<Result<LineAllow, (usize, String)>> {
    let lead = comment.len() - comment.trim_start().len();
    let rest = comment[lead..].strip_prefix(COMMENT_MARKER)?;
    let mut offset = lead + COMMENT_MARKER.len();
    let trimmed = rest.trim_start();
    offset += rest.len() - trimmed.len();
    let Some(args) = trimmed.strip_prefix("allow(") else {
        return Some(Err((offset, "expected `allow(rule) reason` after `reuse-check:`".into())));
    };
    offset += "allow(".len();
    let Some(close) = args.find(')') else {
        return Some(Err((offset, "unclosed `allow(`".into())));
    };
    let mut rules = Vec::new();
    let mut pos = offset;
    for part in args[..close].split(',') {
        let name = part.trim();
        let start = pos + (part.len() - part.trim_start().len());
        if !name.is_empty() {
            rules.push((name.to_string(), start..start + name.len()));
        }
        pos += part.len() + 1;
    }
    let reason = args[close + 1..].trim();
    Some(Ok(LineAllow { rules, reason: (!reason.is_empty()).then(|| reason.to_string()) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_needs_a_known_rule_and_a_reason() {
        let (a, errors) = parse_allow_attr(quote::quote!(pad_to_null_block, reason = "masked"), Span::call_site());
        assert!(errors.is_empty());
        assert_eq!(a.unwrap().reason.as_deref(), Some("masked"));
        let (_, errors) = parse_allow_attr(quote::quote!(pad_to_null_block), Span::call_site());
        assert_eq!(errors[0].rule.name, "suppression_without_reason");
        let (_, errors) = parse_allow_attr(quote::quote!(no_such_rule, reason = "x"), Span::call_site());
        assert_eq!(errors[0].rule.name, "unknown_name");
        let (_, errors) = parse_allow_attr(quote::quote!(stale_key, reason = "  "), Span::call_site());
        assert_eq!(errors[0].rule.name, "suppression_without_reason");
    }

    #[test]
    fn comments_parse_with_offsets() {
        let c = " reuse-check: allow(pad_to_null_block, stale_key) rows are masked";
        let parsed = parse_allow_comment(c).unwrap().unwrap();
        assert_eq!(parsed.rules[0].0, "pad_to_null_block");
        assert_eq!(&c[parsed.rules[1].1.clone()], "stale_key");
        assert_eq!(parsed.reason.as_deref(), Some("rows are masked"));
        assert_eq!(parse_allow_comment(" reuse-check: allow(stale_key)").unwrap().unwrap().reason, None);
        assert!(parse_allow_comment(" just a comment").is_none());
        assert!(parse_allow_comment(" reuse-check: deny(x)").unwrap().is_err());
    }
}
