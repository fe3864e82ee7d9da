//! The contract model and its parser: the only parser of contracts in the project.
//!
//! ```text
//! contract  := clause (',' clause)* ','?
//! clause    := 'reuses' '(' place ',' 'key' '(' place (',' place)* ')' (',' 'miss' '=' pattern)? ')'
//!            | 'preserves' '(' effect (',' effect)* ')'
//!            | 'fresh' '(' out ',' 'after' '=' effect ')'
//!            | 'writes' '(' place '[' place ']' (',' 'skip' '=' sentinel)? ')'      (repeatable)
//!            | 'reads' '(' place '[' place ']' ')'                                   (repeatable)
//!            | 'forbids_write' '(' place '[' region ']' (',' place '[' region ']')* (',' except)? ')' (repeatable)
//!            | 'aliases' '(' out '=' place (',' out '=' place)* ')'
//! place     := 'self' ('.' ident)+ | ident ('.' ident)* | path ('::' ident)+
//! effect    := ident ('::' ident)* | 'self' '.' ident
//! except    := 'except' '(' fn-path (',' fn-path)* ')'
//! fn-path   := ident ('::' ident)*           (`health_check`, `diag::health_check`, `Pool::health_check`)
//! sentinel  := '-'? int | const-path
//! region    := int | const-path | bound? ('..' | '..=') bound?
//! out       := 'return' | 'return' '.' int | 'return' '.' ident
//! pattern   := a Rust pattern that binds nothing (`Ok(None)`, `Ok(Outcome::Eager) | Err(_)`)
//! ```
//!
//! A single lower-case identifier is a parameter; `self.a.b` is a field path of the receiver; an
//! UPPER_CASE identifier or a `::` path names a `const` or `static` (which the checker resolves).
//!
//! `except(f, ..)` ends a `forbids_write` clause: the functions it names (paths resolved where the
//! contract is written, as Rust resolves them there) are *sanctioned writers* of the clause's
//! regions: a call of the contracted function made from one of them (the runtime: while one of them
//! runs) may write the regions; every other caller is checked as without `except`.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitInt, Token};

use crate::catalogue::CONTRACT_SYNTAX;
use crate::ContractError;

/// A name as written in the contract, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name<S = Span> {
    pub text: String,
    pub span: S,
}

/// What a place is rooted at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceRoot {
    /// A parameter of the function (`state`, `cfg.blocks`).
    Param,
    /// A field path of the receiver (`self.plans`).
    SelfField,
    /// A `const` or `static` (`NULL_BLOCK`, `kv::NULL_BLOCK`).
    Static,
}

/// A storage place: a parameter, a field path or a static path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place<S = Span> {
    pub root: PlaceRoot,
    /// For `Param` and `SelfField`: the field chain (`self`, `plans`); for `Static`: the path segments.
    pub segments: Vec<Name<S>>,
}

impl<S: Clone> Place<S> {
    pub fn first_span(&self) -> S {
        self.segments[0].span.clone()
    }
    pub fn last_span(&self) -> S {
        self.segments[self.segments.len() - 1].span.clone()
    }
}

impl<S> Place<S> {
    /// The root name: the parameter, `self`, or the first path segment.
    pub fn root_name(&self) -> &str {
        &self.segments[0].text
    }
    /// The last segment (the const name of a static path).
    pub fn last_name(&self) -> &str {
        &self.segments[self.segments.len() - 1].text
    }
}

impl<S> std::fmt::Display for Place<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sep = if self.root == PlaceRoot::Static { "::" } else { "." };
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str(sep)?;
            }
            f.write_str(&s.text)?;
        }
        Ok(())
    }
}

/// `P[IDX]`: storage `P` accessed at the positions held by `IDX`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indexed<S = Span> {
    pub place: Place<S>,
    pub index: Place<S>,
}

/// The value an index takes to mean "no write" (`skip = PAD_SLOT_ID`, `skip = -1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sentinel<S = Span> {
    Int { value: i128, span: S },
    Const(Place<S>),
}

/// One bound or position of a forbidden region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound<S = Span> {
    Int { value: i128, span: S },
    Const(Place<S>),
}

/// The index of a `forbids_write` region: one position or a range of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionIndex<S = Span> {
    At(Bound<S>),
    Range { start: Option<Bound<S>>, end: Option<Bound<S>>, inclusive: bool, span: S },
}

/// `P[C]` in `forbids_write`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region<S = Span> {
    pub place: Place<S>,
    pub index: RegionIndex<S>,
}

/// The output side of an alias.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AliasOut<S = Span> {
    /// `return`
    Return { span: S },
    /// `return.0`
    ReturnIndex { index: u32, span: S },
    /// `return.field`
    ReturnField { field: Name<S>, span: S },
}

impl<S: Clone> AliasOut<S> {
    pub fn span(&self) -> S {
        match self {
            AliasOut::Return { span } | AliasOut::ReturnIndex { span, .. } | AliasOut::ReturnField { span, .. } => span.clone(),
        }
    }
}

impl<S> std::fmt::Display for AliasOut<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AliasOut::Return { .. } => f.write_str("return"),
            AliasOut::ReturnIndex { index, .. } => write!(f, "return.{index}"),
            AliasOut::ReturnField { field, .. } => write!(f, "return.{}", field.text),
        }
    }
}

/// `OUT = IN` in `aliases`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias<S = Span> {
    pub output: AliasOut<S>,
    pub input: Place<S>,
}

/// An effect named in `preserves`: a function or method, matched by its last path segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect<S = Span> {
    pub path: Vec<Name<S>>,
}

impl<S> std::fmt::Display for Effect<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sep = if self.path[0].text == "self" { "." } else { "::" };
        f.write_str(&self.path.iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join(sep))
    }
}

impl<S> Effect<S> {
    /// The name call sites are matched by.
    pub fn name(&self) -> &str {
        &self.path[self.path.len() - 1].text
    }
}

/// A function named by its path in `except(..)`: `health_check`, `diag::health_check`,
/// `Pool::health_check`, `crate::diag::health_check`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnPath<S = Span> {
    pub segments: Vec<Name<S>>,
}

impl<S> FnPath<S> {
    /// The function's own name (the last segment).
    pub fn name(&self) -> &str {
        &self.segments[self.segments.len() - 1].text
    }
}

impl<S: Clone> FnPath<S> {
    /// From the first segment to the last.
    pub fn spans(&self) -> (S, S) {
        (self.segments[0].span.clone(), self.segments[self.segments.len() - 1].span.clone())
    }
}

impl<S> std::fmt::Display for FnPath<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<&str> = self.segments.iter().map(|s| s.text.as_str()).collect();
        f.write_str(&parts.join("::"))
    }
}

/// `miss = PATTERN` in `reuses`: the returned values that decline to serve (a miss that leaves the
/// work to the caller). Kept as its canonical text, which parses as a `syn::Pat` (the checker
/// matches returned expressions against it; the macro emits `matches!(ret, PATTERN)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissPattern<S = Span> {
    pub text: String,
    /// The pattern's first token.
    pub span: S,
}

impl<S> MissPattern<S> {
    /// The pattern, parsed again (it parsed when the contract was read).
    pub fn pat(&self) -> Option<syn::Pat> {
        syn::Pat::parse_multi_with_leading_vert.parse_str(&self.text).ok()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseKind<S = Span> {
    Reuses { place: Place<S>, key: Vec<Place<S>>, miss: Option<MissPattern<S>> },
    Preserves(Vec<Effect<S>>),
    /// `fresh(OUT, after = E)`: what a hit returns as OUT is produced by, or read after, effect E.
    Fresh { output: AliasOut<S>, after: Effect<S> },
    Writes { target: Indexed<S>, skip: Option<Sentinel<S>> },
    Reads(Indexed<S>),
    /// `forbids_write(P[C], .., except(f, ..))`: the regions, and the sanctioned writers of all of them.
    ForbidsWrite { regions: Vec<Region<S>>, except: Vec<FnPath<S>> },
    Aliases(Vec<Alias<S>>),
}

/// One clause, with its keyword (the span secondary labels point at) and the span of the whole clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause<S = Span> {
    pub keyword: Name<S>,
    /// From the keyword to the closing parenthesis.
    pub end: S,
    pub kind: ClauseKind<S>,
}

impl<S> Clause<S> {
    /// The sanctioned writers of a `forbids_write` clause (`except(..)`); empty for other clauses.
    pub fn except(&self) -> &[FnPath<S>] {
        match &self.kind {
            ClauseKind::ForbidsWrite { except, .. } => except,
            _ => &[],
        }
    }
}

/// A parsed `#[reuse::contract(...)]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contract<S = Span> {
    pub clauses: Vec<Clause<S>>,
}

impl<S> Contract<S> {
    /// The parameters it names renamed (`(from, to)` pairs, applied at once): the contract of a
    /// trait's method read for an implementation that names its parameters otherwise (`fn
    /// clear(&self, pool: ..)` in the trait, `fn clear(&self, buf: ..)` in the `impl`).
    pub fn rename_params(&mut self, renames: &[(String, String)]) {
        let rename = |p: &mut Place<S>| {
            if p.root != PlaceRoot::Param {
                return;
            }
            if let Some((_, to)) = p.segments.first().and_then(|first| renames.iter().find(|(from, _)| *from == first.text)) {
                p.segments[0].text = to.clone();
            }
        };
        for clause in &mut self.clauses {
            match &mut clause.kind {
                ClauseKind::Reuses { place, key, .. } => {
                    rename(place);
                    key.iter_mut().for_each(rename);
                }
                ClauseKind::Writes { target, .. } | ClauseKind::Reads(target) => {
                    rename(&mut target.place);
                    rename(&mut target.index);
                }
                ClauseKind::ForbidsWrite { regions, .. } => regions.iter_mut().for_each(|r| rename(&mut r.place)),
                ClauseKind::Aliases(aliases) => aliases.iter_mut().for_each(|a| rename(&mut a.input)),
                ClauseKind::Preserves(_) | ClauseKind::Fresh { .. } => {}
            }
        }
    }
}

/// The clause keywords, in the order the spec lists them.
pub const CLAUSE_KEYWORDS: &[&str] = &["reuses", "preserves", "fresh", "writes", "reads", "forbids_write", "aliases"];
/// Clauses that may appear more than once.
pub const REPEATABLE: &[&str] = &["writes", "reads", "forbids_write"];

impl<S> Contract<S> {
    pub fn reuses(&self) -> impl Iterator<Item = (&Clause<S>, &Place<S>, &[Place<S>])> {
        self.clauses.iter().filter_map(|c| match &c.kind {
            ClauseKind::Reuses { place, key, .. } => Some((c, place, key.as_slice())),
            _ => None,
        })
    }
    /// The declared `miss = PATTERN` of `reuses`, if any.
    pub fn miss(&self) -> Option<&MissPattern<S>> {
        self.clauses.iter().find_map(|c| match &c.kind {
            ClauseKind::Reuses { miss, .. } => miss.as_ref(),
            _ => None,
        })
    }
    /// `fresh(OUT, after = E)`.
    pub fn fresh(&self) -> Option<(&Clause<S>, &AliasOut<S>, &Effect<S>)> {
        self.clauses.iter().find_map(|c| match &c.kind {
            ClauseKind::Fresh { output, after } => Some((c, output, after)),
            _ => None,
        })
    }
    pub fn preserves(&self) -> Option<(&Clause<S>, &[Effect<S>])> {
        self.clauses.iter().find_map(|c| match &c.kind {
            ClauseKind::Preserves(e) => Some((c, e.as_slice())),
            _ => None,
        })
    }
    pub fn writes(&self) -> impl Iterator<Item = (&Clause<S>, &Indexed<S>, Option<&Sentinel<S>>)> {
        self.clauses.iter().filter_map(|c| match &c.kind {
            ClauseKind::Writes { target, skip } => Some((c, target, skip.as_ref())),
            _ => None,
        })
    }
    pub fn reads(&self) -> impl Iterator<Item = (&Clause<S>, &Indexed<S>)> {
        self.clauses.iter().filter_map(|c| match &c.kind {
            ClauseKind::Reads(i) => Some((c, i)),
            _ => None,
        })
    }
    pub fn forbidden_regions(&self) -> impl Iterator<Item = (&Clause<S>, &Region<S>)> {
        self.clauses.iter().flat_map(|c| match &c.kind {
            ClauseKind::ForbidsWrite { regions, .. } => regions.iter().map(|r| (c, r)).collect::<Vec<_>>(),
            _ => Vec::new(),
        })
    }
    /// The constants a contract names by path: its `skip` sentinels and its region bounds.
    pub fn const_paths(&self) -> Vec<&Place<S>> {
        let mut out: Vec<&Place<S>> = self.writes().filter_map(|(_, _, skip)| match skip {
            Some(Sentinel::Const(p)) => Some(p),
            _ => None,
        }).collect();
        for (_, region) in self.forbidden_regions() {
            let bounds: Vec<&Bound<S>> = match &region.index {
                RegionIndex::At(b) => vec![b],
                RegionIndex::Range { start, end, .. } => start.iter().chain(end.iter()).collect(),
            };
            out.extend(bounds.into_iter().filter_map(|b| match b {
                Bound::Const(p) => Some(p),
                Bound::Int { .. } => None,
            }));
        }
        out
    }
    /// Every place a contract names that is rooted at a parameter or at `self` (the storage, the
    /// indexes, the cache, its key components, the alias inputs).
    pub fn rooted_places(&self) -> Vec<&Place<S>> {
        let mut out = Vec::new();
        for c in &self.clauses {
            match &c.kind {
                ClauseKind::Reuses { place, key, .. } => out.extend(std::iter::once(place).chain(key)),
                ClauseKind::Writes { target, .. } | ClauseKind::Reads(target) => out.extend([&target.place, &target.index]),
                ClauseKind::ForbidsWrite { regions, .. } => out.extend(regions.iter().map(|r| &r.place)),
                ClauseKind::Aliases(a) => out.extend(a.iter().map(|a| &a.input)),
                _ => {}
            }
        }
        out.retain(|p| p.root != PlaceRoot::Static);
        out
    }
    /// Every `except(..)` path of every `forbids_write` clause, with its clause.
    pub fn sanctioned_writers(&self) -> impl Iterator<Item = (&Clause<S>, &FnPath<S>)> {
        self.clauses.iter().flat_map(|c| c.except().iter().map(move |f| (c, f)))
    }
    pub fn aliases(&self) -> impl Iterator<Item = (&Clause<S>, &Alias<S>)> {
        self.clauses.iter().flat_map(|c| match &c.kind {
            ClauseKind::Aliases(a) => a.iter().map(|a| (c, a)).collect::<Vec<_>>(),
            _ => Vec::new(),
        })
    }
    /// Whether a `writes` or `aliases` clause names this parameter (the closed write set).
    pub fn declares_write_to(&self, param: &str) -> bool {
        self.writes().any(|(_, t, _)| t.place.root != PlaceRoot::Static && t.place.root_name() == param)
            || self.aliases().any(|(_, a)| a.input.root_name() == param)
    }
    /// Whether the contract declares any write set at all (so writes outside it are undeclared).
    pub fn has_write_set(&self) -> bool {
        self.writes().next().is_some() || self.aliases().next().is_some()
    }
}

/// Parses the arguments of `#[reuse::contract(...)]`.
///
/// Syntax errors stop at the first malformed token; duplicate clauses are all reported.
pub fn parse_contract(tokens: TokenStream) -> Result<Contract, Vec<ContractError>> {
    let contract = parse_clauses
        .parse2(tokens)
        .map_err(|e| vec![ContractError::new(&CONTRACT_SYNTAX, e.span(), e.to_string())])?;
    let mut errors = Vec::new();
    for (i, clause) in contract.clauses.iter().enumerate() {
        let kw = &clause.keyword.text;
        if REPEATABLE.contains(&kw.as_str()) {
            continue;
        }
        if contract.clauses[..i].iter().any(|c| &c.keyword.text == kw) {
            errors.push(ContractError::new(
                &CONTRACT_SYNTAX,
                clause.keyword.span,
                format!("duplicate `{kw}` clause: `{kw}` may appear once; list all its items in one clause"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(contract)
    } else {
        Err(errors)
    }
}

/// `#[reuse::index(skip = S)]` on a struct field (the struct carries `#[reuse::indexes]`): the
/// field holds the positions some kernel writes at, and S is the entry that means "no write".
/// Wherever the field is built or changed, its entries must be S or real positions, never the null
/// block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexDecl<S = Span> {
    pub skip: Sentinel<S>,
}

/// Parses the arguments of `#[reuse::index(...)]`: `skip = SENTINEL`.
pub fn parse_index_attr(tokens: TokenStream) -> Result<IndexDecl, Vec<ContractError>> {
    let parse = |input: ParseStream| -> syn::Result<IndexDecl> {
        if input.is_empty() {
            return Err(input.error("expected `skip = SENTINEL`: the entry of this index that means \"no write\""));
        }
        let skip = keyed(input, "skip", "expected `skip = SENTINEL`", parse_sentinel)?;
        expect_end(input, "`#[reuse::index]` takes `skip = SENTINEL`")?;
        Ok(IndexDecl { skip })
    };
    parse.parse2(tokens).map_err(|e| vec![ContractError::new(&CONTRACT_SYNTAX, e.span(), e.to_string())])
}

impl<S: Clone, T> MapSpan<S, T> for IndexDecl<S> {
    type Output = IndexDecl<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> IndexDecl<T> {
        IndexDecl {
            skip: match &self.skip {
                Sentinel::Int { value, span } => Sentinel::Int { value: *value, span: f(span.clone()) },
                Sentinel::Const(p) => Sentinel::Const(p.map_span(f)),
            },
        }
    }
}

fn parse_clauses(input: ParseStream) -> syn::Result<Contract> {
    let mut clauses = Vec::new();
    while !input.is_empty() {
        clauses.push(parse_clause(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(Contract { clauses })
}

fn name(ident: &Ident) -> Name {
    Name { text: ident.unraw().to_string(), span: ident.span() }
}

fn parse_clause(input: ParseStream) -> syn::Result<Clause> {
    let kw: Ident = input.call(Ident::parse_any).map_err(|e| {
        syn::Error::new(e.span(), format!("expected a contract clause: one of {}", CLAUSE_KEYWORDS.join(", ")))
    })?;
    let keyword = name(&kw);
    if !CLAUSE_KEYWORDS.contains(&keyword.text.as_str()) {
        return Err(syn::Error::new(
            kw.span(),
            format!("unknown contract clause `{}`: expected one of {}", keyword.text, CLAUSE_KEYWORDS.join(", ")),
        ));
    }
    let content;
    let paren = syn::parenthesized!(content in input);
    let kind = match keyword.text.as_str() {
        "reuses" => parse_reuses(&content)?,
        "preserves" => ClauseKind::Preserves(comma_separated(&content, parse_effect, "an effect name")?),
        "fresh" => parse_fresh(&content)?,
        "writes" => parse_writes(&content)?,
        "reads" => {
            let target = parse_indexed(&content)?;
            expect_end(&content, "`reads` takes one `PLACE[INDEX]`")?;
            ClauseKind::Reads(target)
        }
        "forbids_write" => parse_forbids_write(&content)?,
        "aliases" => ClauseKind::Aliases(comma_separated(&content, parse_alias, "`OUT = IN`")?),
        _ => unreachable!("keyword checked against CLAUSE_KEYWORDS"),
    };
    Ok(Clause { keyword, end: paren.span.close(), kind })
}

fn expect_end(input: ParseStream, what: &str) -> syn::Result<()> {
    if input.is_empty() {
        Ok(())
    } else {
        Err(input.error(format!("unexpected tokens: {what}")))
    }
}

fn comma_separated<T>(
    input: ParseStream,
    item: fn(ParseStream) -> syn::Result<T>,
    what: &str,
) -> syn::Result<Vec<T>> {
    let mut items = Vec::new();
    if input.is_empty() {
        return Err(input.error(format!("expected at least one {what}")));
    }
    while !input.is_empty() {
        items.push(item(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(items)
}

fn parse_reuses(input: ParseStream) -> syn::Result<ClauseKind> {
    let place = parse_place(input)?;
    input.parse::<Token![,]>().map_err(|e| syn::Error::new(e.span(), "expected `, key(...)` after the cache place"))?;
    let key_kw: Ident = input.call(Ident::parse_any)?;
    if key_kw != "key" {
        return Err(syn::Error::new(key_kw.span(), "expected `key(...)`: the components an entry is valid for"));
    }
    let content;
    syn::parenthesized!(content in input);
    let key = comma_separated(&content, parse_place, "key component")?;
    let miss = trailing_option(input, "miss", "expected `miss = PATTERN`: the returned values that decline to serve", parse_miss_pattern)?;
    expect_end(input, "`reuses` takes `PLACE, key(...)` and an optional `miss = PATTERN`")?;
    Ok(ClauseKind::Reuses { place, key, miss })
}

/// `miss = PATTERN`: a Rust pattern that binds nothing and does not match every value, so that the
/// checker can match returned expressions against it and the shim can test `matches!(ret, PATTERN)`.
fn parse_miss_pattern(input: ParseStream) -> syn::Result<MissPattern> {
    let span = input.span();
    if input.is_empty() {
        return Err(input.error("expected a pattern after `miss =`: the returned values that decline to serve (`Ok(None)`)"));
    }
    let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
    if matches!(pat, syn::Pat::Wild(_)) {
        return Err(syn::Error::new_spanned(&pat, "`miss = _` makes every return a miss: name the declining values (`Ok(None)`)"));
    }
    check_miss_pattern(&pat)?;
    Ok(MissPattern { text: pattern_text(quote::ToTokens::to_token_stream(&pat)), span })
}

/// Rejects what a miss pattern may not hold: bindings (they match every value and cannot be
/// compared across the checker and the shim), macros and types.
fn check_miss_pattern(pat: &syn::Pat) -> syn::Result<()> {
    use syn::Pat;
    fn nested<'p>(mut pats: impl Iterator<Item = &'p Pat>) -> syn::Result<()> {
        pats.try_for_each(check_miss_pattern)
    }
    match pat {
        Pat::Ident(pi) => {
            let name = pi.ident.to_string();
            let constant = name.starts_with(|c: char| c.is_ascii_uppercase());
            if pi.by_ref.is_some() || pi.mutability.is_some() || pi.subpat.is_some() || !constant {
                return Err(syn::Error::new(
                    pi.ident.span(),
                    format!("`{name}` would bind the value and match anything: a miss pattern names variants, constants or literals (use `_` for a part that does not matter)"),
                ));
            }
            Ok(())
        }
        Pat::Lit(_) | Pat::Path(_) | Pat::Range(_) | Pat::Rest(_) | Pat::Wild(_) => Ok(()),
        Pat::Or(o) => nested(o.cases.iter()),
        Pat::Paren(p) => check_miss_pattern(&p.pat),
        Pat::Reference(r) => check_miss_pattern(&r.pat),
        Pat::Slice(s) => nested(s.elems.iter()),
        Pat::Tuple(t) => nested(t.elems.iter()),
        Pat::TupleStruct(t) => nested(t.elems.iter()),
        Pat::Struct(s) => nested(s.fields.iter().map(|f| &*f.pat)),
        other => Err(syn::Error::new_spanned(other, "a miss pattern is a plain pattern: variants, constants, literals, ranges, `_` and `|`")),
    }
}

/// The canonical text of a pattern: `Ok(None)`, `Ok(Outcome::Eager) | Err(_)`, `S { .. }`.
fn pattern_text(tokens: TokenStream) -> String {
    use proc_macro2::{Delimiter, TokenTree};
    let mut out = String::new();
    let mut prev_word = false;
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let inner = pattern_text(g.stream());
                match g.delimiter() {
                    Delimiter::Parenthesis => out.push_str(&format!("({inner})")),
                    Delimiter::Bracket => out.push_str(&format!("[{inner}]")),
                    Delimiter::Brace => out.push_str(&format!(" {{ {inner} }}")),
                    Delimiter::None => out.push_str(&inner),
                }
                prev_word = false;
            }
            TokenTree::Punct(p) => {
                match p.as_char() {
                    ',' => out.push_str(", "),
                    '|' => out.push_str(" | "),
                    ':' if p.spacing() == proc_macro2::Spacing::Alone && !out.ends_with(':') => out.push_str(": "),
                    c => out.push(c),
                }
                prev_word = false;
            }
            TokenTree::Ident(_) | TokenTree::Literal(_) => {
                if prev_word {
                    out.push(' ');
                }
                out.push_str(&tt.to_string());
                prev_word = true;
            }
        }
    }
    out.trim().replace("  ", " ")
}

fn parse_fresh(input: ParseStream) -> syn::Result<ClauseKind> {
    let output = parse_output(input, "the fresh output")?;
    input.parse::<Token![,]>().map_err(|e| syn::Error::new(e.span(), "expected `, after = EFFECT` after the output"))?;
    let kw: Ident = input.call(Ident::parse_any)?;
    if kw != "after" {
        return Err(syn::Error::new(kw.span(), "expected `after = EFFECT`: the effect whose run the output must come from"));
    }
    input.parse::<Token![=]>()?;
    let after = parse_effect(input)?;
    input.parse::<Option<Token![,]>>()?;
    expect_end(input, "`fresh` takes `OUT, after = EFFECT`")?;
    Ok(ClauseKind::Fresh { output, after })
}

fn parse_writes(input: ParseStream) -> syn::Result<ClauseKind> {
    let target = parse_indexed(input)?;
    let skip = trailing_option(input, "skip", "expected `skip = SENTINEL`", parse_sentinel)?;
    expect_end(input, "`writes` takes `PLACE[INDEX]` and an optional `skip = SENTINEL`")?;
    Ok(ClauseKind::Writes { target, skip })
}

/// `, KEYWORD = VALUE` after a clause's main part, if there is one (a lone trailing comma is none).
fn trailing_option<T>(input: ParseStream, keyword: &str, expected: &str, value: fn(ParseStream) -> syn::Result<T>) -> syn::Result<Option<T>> {
    if input.parse::<Option<Token![,]>>()?.is_none() || input.is_empty() {
        return Ok(None);
    }
    keyed(input, keyword, expected, value).map(Some)
}

/// `KEYWORD = VALUE`, then an optional comma.
fn keyed<T>(input: ParseStream, keyword: &str, expected: &str, value: fn(ParseStream) -> syn::Result<T>) -> syn::Result<T> {
    let kw: Ident = input.call(Ident::parse_any)?;
    if kw != keyword {
        return Err(syn::Error::new(kw.span(), expected));
    }
    input.parse::<Token![=]>()?;
    let v = value(input)?;
    input.parse::<Option<Token![,]>>()?;
    Ok(v)
}

fn parse_sentinel(input: ParseStream) -> syn::Result<Sentinel> {
    let fork = input.fork();
    match parse_bound(&fork) {
        Ok(bound) if fork.is_empty() || fork.peek(Token![,]) => {
            use syn::parse::discouraged::Speculative;
            input.advance_to(&fork);
            Ok(match bound {
                Bound::Int { value, span } => Sentinel::Int { value, span },
                Bound::Const(p) => Sentinel::Const(p),
            })
        }
        _ => {
            let expr: syn::Expr = input.parse()?;
            Err(syn::Error::new_spanned(
                expr,
                "`skip` must be a const path (`PAD_SLOT_ID`) or an integer literal (`-1`), so that it is known before the call",
            ))
        }
    }
}

/// An integer literal (optionally negated) or a const path.
fn parse_bound(input: ParseStream) -> syn::Result<Bound> {
    if input.peek(Token![-]) || input.peek(LitInt) {
        let neg = input.parse::<Option<Token![-]>>()?;
        let lit: LitInt = input.parse()?;
        let value: i128 = lit.base10_parse()?;
        let span = neg.map(|n| n.span).unwrap_or_else(|| lit.span());
        return Ok(Bound::Int { value: if neg.is_some() { -value } else { value }, span });
    }
    let place = parse_place(input)?;
    if place.root != PlaceRoot::Static {
        return Err(syn::Error::new(
            place.first_span(),
            format!("`{place}` is not a constant: use an UPPER_CASE const, a `::` path to one, or a literal"),
        ));
    }
    Ok(Bound::Const(place))
}

fn parse_place(input: ParseStream) -> syn::Result<Place> {
    let first: Ident = input.call(Ident::parse_any).map_err(|e| syn::Error::new(e.span(), "expected a place: a parameter, `self.field` or a const path"))?;
    if input.peek(Token![::]) {
        let mut segments = vec![name(&first)];
        while input.peek(Token![::]) {
            input.parse::<Token![::]>()?;
            segments.push(name(&input.call(Ident::parse_any)?));
        }
        return Ok(Place { root: PlaceRoot::Static, segments });
    }
    let mut segments = vec![name(&first)];
    while input.peek(Token![.]) && !input.peek(Token![..]) {
        input.parse::<Token![.]>()?;
        let field: Ident = input.call(Ident::parse_any)?;
        segments.push(name(&field));
    }
    let root = if first == "self" {
        if segments.len() == 1 {
            return Err(syn::Error::new(first.span(), "expected a field of `self` (`self.cache`), not `self` itself"));
        }
        PlaceRoot::SelfField
    } else if segments.len() == 1 && is_const_name(&segments[0].text) {
        PlaceRoot::Static
    } else {
        PlaceRoot::Param
    };
    Ok(Place { root, segments })
}

/// `NULL_BLOCK`, `PAD_SLOT_ID`: the Rust naming convention for consts and statics.
pub fn is_const_name(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn parse_indexed(input: ParseStream) -> syn::Result<Indexed> {
    let place = parse_place(input)?;
    if !input.peek(syn::token::Bracket) {
        return Err(input.error(format!("expected `[INDEX]` after `{place}`: the parameter holding the positions")));
    }
    let content;
    syn::bracketed!(content in input);
    let index = parse_place(&content)?;
    expect_end(&content, "the index is one parameter or field")?;
    Ok(Indexed { place, index })
}

fn parse_forbids_write(input: ParseStream) -> syn::Result<ClauseKind> {
    let is_except = |input: ParseStream| input.peek(Ident::peek_any) && input.peek2(syn::token::Paren) && input.fork().call(Ident::parse_any).is_ok_and(|i| i == "except");
    if input.is_empty() || is_except(input) {
        return Err(input.error("expected at least one `PLACE[INDEX]` (a region) before `except(..)`"));
    }
    let mut regions = Vec::new();
    let mut except = Vec::new();
    while !input.is_empty() {
        if is_except(input) {
            input.call(Ident::parse_any)?;
            let content;
            syn::parenthesized!(content in input);
            except = comma_separated(&content, parse_fn_path, "sanctioned function")?;
            input.parse::<Option<Token![,]>>()?;
            expect_end(input, "`except(..)` comes last, once, after the regions")?;
            break;
        }
        regions.push(parse_region(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(ClauseKind::ForbidsWrite { regions, except })
}

/// A function's path in `except(..)`: `f`, `m::f`, `Type::f`, `crate::m::f`, `Self::f`.
fn parse_fn_path(input: ParseStream) -> syn::Result<FnPath> {
    let first: Ident = input.call(Ident::parse_any).map_err(|e| syn::Error::new(e.span(), "expected a function path: `health_check`, `diag::health_check`"))?;
    let mut segments = vec![name(&first)];
    let generics = "a sanctioned writer is a function path (`diag::health_check`, `Pool::health_check`), without generics or fields";
    while input.peek(Token![::]) {
        input.parse::<Token![::]>()?;
        if input.peek(Token![<]) {
            return Err(input.error(generics));
        }
        segments.push(name(&input.call(Ident::parse_any)?));
    }
    if input.peek(syn::token::Paren) {
        let call: proc_macro2::Group = input.parse()?;
        return Err(syn::Error::new(call.span(), "name the function without calling it: `health_check`, not `health_check()`"));
    }
    if input.peek(Token![.]) || input.peek(Token![<]) {
        return Err(input.error(generics));
    }
    Ok(FnPath { segments })
}

fn parse_region(input: ParseStream) -> syn::Result<Region> {
    let place = parse_place(input)?;
    if !input.peek(syn::token::Bracket) {
        return Err(input.error(format!("expected `[INDEX]` after `{place}`: a const, a literal or a range")));
    }
    let content;
    let bracket = syn::bracketed!(content in input);
    let index = parse_region_index(&content, bracket.span.join())?;
    expect_end(&content, "the index is a const, a literal or a range")?;
    Ok(Region { place, index })
}

fn parse_region_index(input: ParseStream, span: Span) -> syn::Result<RegionIndex> {
    let start = if input.peek(Token![..]) || input.peek(Token![..=]) { None } else { Some(parse_bound(input)?) };
    let inclusive = if input.peek(Token![..=]) {
        input.parse::<Token![..=]>()?;
        true
    } else if input.peek(Token![..]) {
        input.parse::<Token![..]>()?;
        false
    } else {
        return Ok(RegionIndex::At(start.expect("a bound was parsed when no range follows")));
    };
    let end = if input.is_empty() { None } else { Some(parse_bound(input)?) };
    if inclusive && end.is_none() {
        return Err(input.error("an inclusive range `..=` needs an end"));
    }
    Ok(RegionIndex::Range { start, end, inclusive, span })
}

fn parse_alias(input: ParseStream) -> syn::Result<Alias> {
    let output = parse_output(input, "an alias output")?;
    input.parse::<Token![=]>()?;
    // `aliases(return = self)`: a method that returns its receiver's storage (an in-place op
    // that consumes `self`, burn's style, or a builder's `&mut Self`).
    if input.peek(Token![self]) && (input.peek2(Token![,]) || peek_end(input)) {
        let this: Ident = input.call(Ident::parse_any)?;
        return Ok(Alias { output, input: Place { root: PlaceRoot::SelfField, segments: vec![name(&this)] } });
    }
    let input_place = parse_place(input)?;
    Ok(Alias { output, input: input_place })
}

/// Whether only `self` is left of the input (`self` is the last token).
fn peek_end(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<Token![self]>().is_ok() && fork.is_empty()
}

/// `return`, `return.N` or `return.field`.
fn parse_output(input: ParseStream, what: &str) -> syn::Result<AliasOut> {
    let ret: Ident = input.call(Ident::parse_any)?;
    if ret != "return" {
        return Err(syn::Error::new(ret.span(), format!("{what} is `return`, `return.N` or `return.field`")));
    }
    let output = if input.peek(Token![.]) {
        input.parse::<Token![.]>()?;
        if input.peek(LitInt) {
            let lit: LitInt = input.parse()?;
            AliasOut::ReturnIndex { index: lit.base10_parse()?, span: lit.span() }
        } else {
            let field: Ident = input.call(Ident::parse_any)?;
            AliasOut::ReturnField { span: field.span(), field: name(&field) }
        }
    } else {
        AliasOut::Return { span: ret.span() }
    };
    Ok(output)
}

fn parse_effect(input: ParseStream) -> syn::Result<Effect> {
    let first: Ident = input.call(Ident::parse_any)?;
    let mut path = vec![name(&first)];
    if first == "self" {
        input.parse::<Token![.]>()?;
        path.push(name(&input.call(Ident::parse_any)?));
        return Ok(Effect { path });
    }
    while input.peek(Token![::]) {
        input.parse::<Token![::]>()?;
        path.push(name(&input.call(Ident::parse_any)?));
    }
    if input.peek(syn::token::Paren) {
        let call: proc_macro2::Group = input.parse()?;
        return Err(syn::Error::new(call.span(), "name the effect without calling it: `log_step`, not `log_step()`"));
    }
    Ok(Effect { path })
}

// ---------------------------------------------------------------------------------------------
// Span mapping: the checker resolves proc_macro2 spans (thread-local in proc_macro2's fallback
// mode) into file positions on the thread that parsed the file, so the index can cross threads.

/// Rewrites every span of a model value.
pub trait MapSpan<S, T> {
    type Output;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Self::Output;
}

impl<S: Clone, T> MapSpan<S, T> for Name<S> {
    type Output = Name<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Name<T> {
        Name { text: self.text.clone(), span: f(self.span.clone()) }
    }
}

impl<S: Clone, T> MapSpan<S, T> for Place<S> {
    type Output = Place<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Place<T> {
        Place { root: self.root, segments: self.segments.iter().map(|s| s.map_span(f)).collect() }
    }
}

impl<S: Clone, T> MapSpan<S, T> for Bound<S> {
    type Output = Bound<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Bound<T> {
        match self {
            Bound::Int { value, span } => Bound::Int { value: *value, span: f(span.clone()) },
            Bound::Const(p) => Bound::Const(p.map_span(f)),
        }
    }
}

impl<S: Clone, T> MapSpan<S, T> for Effect<S> {
    type Output = Effect<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Effect<T> {
        Effect { path: self.path.iter().map(|n| n.map_span(f)).collect() }
    }
}

impl<S: Clone, T> MapSpan<S, T> for AliasOut<S> {
    type Output = AliasOut<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> AliasOut<T> {
        match self {
            AliasOut::Return { span } => AliasOut::Return { span: f(span.clone()) },
            AliasOut::ReturnIndex { index, span } => AliasOut::ReturnIndex { index: *index, span: f(span.clone()) },
            AliasOut::ReturnField { field, span } => AliasOut::ReturnField { field: field.map_span(f), span: f(span.clone()) },
        }
    }
}

impl<S: Clone, T> MapSpan<S, T> for Indexed<S> {
    type Output = Indexed<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Indexed<T> {
        Indexed { place: self.place.map_span(f), index: self.index.map_span(f) }
    }
}

impl<S: Clone, T> MapSpan<S, T> for Clause<S> {
    type Output = Clause<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Clause<T> {
        let kind = match &self.kind {
            ClauseKind::Reuses { place, key, miss } => ClauseKind::Reuses {
                place: place.map_span(f),
                key: key.iter().map(|k| k.map_span(f)).collect(),
                miss: miss.as_ref().map(|m| MissPattern { text: m.text.clone(), span: f(m.span.clone()) }),
            },
            ClauseKind::Preserves(effects) => ClauseKind::Preserves(effects.iter().map(|e| e.map_span(f)).collect()),
            ClauseKind::Fresh { output, after } => {
                ClauseKind::Fresh { output: output.map_span(f), after: after.map_span(f) }
            }
            ClauseKind::Writes { target, skip } => ClauseKind::Writes {
                target: target.map_span(f),
                skip: skip.as_ref().map(|s| match s {
                    Sentinel::Int { value, span } => Sentinel::Int { value: *value, span: f(span.clone()) },
                    Sentinel::Const(p) => Sentinel::Const(p.map_span(f)),
                }),
            },
            ClauseKind::Reads(t) => ClauseKind::Reads(t.map_span(f)),
            ClauseKind::ForbidsWrite { regions, except } => ClauseKind::ForbidsWrite {
                regions: regions
                    .iter()
                    .map(|r| Region {
                        place: r.place.map_span(f),
                        index: match &r.index {
                            RegionIndex::At(b) => RegionIndex::At(b.map_span(f)),
                            RegionIndex::Range { start, end, inclusive, span } => RegionIndex::Range {
                                start: start.as_ref().map(|b| b.map_span(f)),
                                end: end.as_ref().map(|b| b.map_span(f)),
                                inclusive: *inclusive,
                                span: f(span.clone()),
                            },
                        },
                    })
                    .collect(),
                except: except.iter().map(|p| FnPath { segments: p.segments.iter().map(|n| n.map_span(f)).collect() }).collect(),
            },
            ClauseKind::Aliases(aliases) => ClauseKind::Aliases(
                aliases
                    .iter()
                    .map(|a| Alias { output: a.output.map_span(f), input: a.input.map_span(f) })
                    .collect(),
            ),
        };
        Clause { keyword: self.keyword.map_span(f), end: f(self.end.clone()), kind }
    }
}

impl<S: Clone, T> MapSpan<S, T> for Contract<S> {
    type Output = Contract<T>;
    fn map_span(&self, f: &mut impl FnMut(S) -> T) -> Contract<T> {
        Contract { clauses: self.clauses.iter().map(|c| c.map_span(f)).collect() }
    }
}

// ---------------------------------------------------------------------------------------------
// Printing: the canonical text of a contract (hover text, round-trip tests).

impl<S> std::fmt::Display for Bound<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Int { value, .. } => write!(f, "{value}"),
            Bound::Const(p) => write!(f, "{p}"),
        }
    }
}

impl<S> std::fmt::Display for Sentinel<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sentinel::Int { value, .. } => write!(f, "{value}"),
            Sentinel::Const(p) => write!(f, "{p}"),
        }
    }
}

impl<S> std::fmt::Display for RegionIndex<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegionIndex::At(b) => write!(f, "{b}"),
            RegionIndex::Range { start, end, inclusive, .. } => {
                if let Some(s) = start {
                    write!(f, "{s}")?;
                }
                f.write_str(if *inclusive { "..=" } else { ".." })?;
                if let Some(e) = end {
                    write!(f, "{e}")?;
                }
                Ok(())
            }
        }
    }
}

impl<S> std::fmt::Display for Clause<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let join = |items: Vec<String>| items.join(", ");
        match &self.kind {
            ClauseKind::Reuses { place, key, miss } => {
                write!(f, "reuses({place}, key({})", join(key.iter().map(|k| k.to_string()).collect()))?;
                if let Some(m) = miss {
                    write!(f, ", miss = {}", m.text)?;
                }
                f.write_str(")")
            }
            ClauseKind::Preserves(effects) => {
                write!(f, "preserves({})", join(effects.iter().map(|e| e.to_string()).collect()))
            }
            ClauseKind::Fresh { output, after } => write!(f, "fresh({output}, after = {after})"),
            ClauseKind::Writes { target, skip } => {
                write!(f, "writes({}[{}]", target.place, target.index)?;
                if let Some(s) = skip {
                    write!(f, ", skip = {s}")?;
                }
                f.write_str(")")
            }
            ClauseKind::Reads(t) => write!(f, "reads({}[{}])", t.place, t.index),
            ClauseKind::ForbidsWrite { regions, except } => {
                let mut items: Vec<String> = regions.iter().map(|r| format!("{}[{}]", r.place, r.index)).collect();
                if !except.is_empty() {
                    items.push(format!("except({})", join(except.iter().map(|p| p.to_string()).collect())));
                }
                write!(f, "forbids_write({})", join(items))
            }
            ClauseKind::Aliases(aliases) => {
                write!(f, "aliases({})", join(aliases.iter().map(|a| format!("{} = {}", a.output, a.input)).collect()))
            }
        }
    }
}

impl<S> std::fmt::Display for Contract<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.clauses.iter().map(|c| c.to_string()).collect();
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Result<Contract, Vec<ContractError>> {
        parse_contract(src.parse().expect("test input tokenizes"))
    }

    /// The error message and the exact text under its span.
    #[allow(clippy::disallowed_methods)] // spans of the short test string itself
    fn error_at(src: &str) -> (String, String) {
        let errors = parse(src).expect_err("input is malformed");
        let e = &errors[0];
        let range = e.span.byte_range();
        (e.message.clone(), src[range].to_string())
    }

    #[test]
    fn every_clause_form_round_trips() {
        for src in [
            "reuses(self.plans, key(graph.fingerprint, self.adapter_version))",
            "reuses(cache, key(k))",
            "reuses(self.graphs, key(bs), miss = Ok(None))",
            "reuses(self.graphs, key(bs), miss = Ok(Outcome::Eager) | Err(_))",
            "reuses(self.graphs, key(bs), miss = Some(Plan { steps: 0, .. }))",
            "reuses(self.graphs, key(bs), miss = (false, _))",
            "reuses(self.graphs, key(bs), miss = Ok(0..=3))",
            "fresh(return, after = replay)",
            "fresh(return.0, after = self.replay)",
            "fresh(return.output, after = graph::replay)",
            "preserves(log_step, check_errors)",
            "preserves(self.log_step, obs::metrics::record)",
            "writes(key_cache[slot_mapping], skip = PAD_SLOT_ID)",
            "writes(key_cache[slot_mapping], skip = -1)",
            "writes(cfg.blocks[idx], skip = kv::PAD_SLOT_ID)",
            "writes(out[positions])",
            "writes(key_cache[slot_mapping], skip = -1), writes(value_cache[slot_mapping], skip = -1)",
            "reads(key_cache[block_table])",
            "forbids_write(key_cache[NULL_BLOCK])",
            "forbids_write(key_cache[0], value_cache[crate::kv::NULL_BLOCK])",
            "forbids_write(pool[0..4]), forbids_write(pool[..=3]), forbids_write(pool[RESERVED..])",
            "forbids_write(kv[NULL_BLOCK], except(health_check))",
            "forbids_write(kv[0], pool[0..2], except(diag::health_check, Pool::warm_up, crate::kv::reset))",
            "aliases(return = state)",
            "aliases(return.0 = input, return.cache = self.cache)",
        ] {
            let contract = parse(src).unwrap_or_else(|e| panic!("{src}: {:?}", e[0].message));
            assert_eq!(contract.to_string(), src, "round trip of {src}");
            let reparsed = parse(&contract.to_string()).expect("printed form parses");
            assert_eq!(reparsed.to_string(), src);
        }
    }

    #[test]
    fn place_roots_are_classified() {
        let c = parse("reuses(self.plans, key(graph.fingerprint, NULL_BLOCK, a::B))").unwrap();
        let (_, place, key) = c.reuses().next().unwrap();
        assert_eq!(place.root, PlaceRoot::SelfField);
        assert_eq!(key[0].root, PlaceRoot::Param);
        assert_eq!(key[1].root, PlaceRoot::Static);
        assert_eq!(key[2].root, PlaceRoot::Static);
    }

    #[test]
    fn sentinels_and_regions_carry_values() {
        let c = parse("writes(k[s], skip = -1), forbids_write(k[0..=3])").unwrap();
        let (_, _, skip) = c.writes().next().unwrap();
        assert!(matches!(skip, Some(Sentinel::Int { value: -1, .. })));
        let (_, region) = c.forbidden_regions().next().unwrap();
        assert!(matches!(region.index, RegionIndex::Range { inclusive: true, .. }));
    }

    #[test]
    fn except_names_the_sanctioned_writers_of_every_region_of_its_clause() {
        let c = parse("forbids_write(kv[NULL_BLOCK], pool[0], except(diag::health_check, warm)), forbids_write(kv[1])").unwrap();
        let consts: Vec<String> = parse("writes(k[s], skip = kv::PAD), forbids_write(k[A..=3], k[..B], k[C])").unwrap().const_paths().iter().map(|p| p.to_string()).collect();
        assert_eq!(consts, ["kv::PAD", "A", "B", "C"]);
        let writers: Vec<(String, String)> = c.sanctioned_writers().map(|(cl, p)| (cl.to_string(), p.to_string())).collect();
        let clause = "forbids_write(kv[NULL_BLOCK], pool[0], except(diag::health_check, warm))".to_string();
        assert_eq!(writers, vec![(clause.clone(), "diag::health_check".into()), (clause, "warm".into())]);
        let regions: Vec<(usize, &str)> = c.forbidden_regions().map(|(cl, r)| (cl.except().len(), r.place.root_name())).collect();
        assert_eq!(regions, vec![(2, "kv"), (2, "pool"), (0, "kv")]);
        // A parameter named `except` is still a region.
        let c = parse("forbids_write(except[0])").unwrap();
        assert_eq!(c.forbidden_regions().count(), 1);
        assert!(c.sanctioned_writers().next().is_none());
    }

    #[test]
    fn malformed_contracts_are_rejected_at_the_token() {
        let cases = [
            ("reuse(self.plans, key(a))", "unknown contract clause", "reuse"),
            ("preserves(a), preserves(b)", "duplicate `preserves`", "preserves"),
            ("writes(k[s], skip = compute())", "`skip` must be a const path", "compute()"),
            ("writes(k[s], skip = pad)", "`skip` must be a const path", "pad"),
            ("writes(k, skip = -1)", "expected `[INDEX]`", ","),
            ("reuses(self.plans)", "expected `, key(...)`", ")"),
            ("reuses(self.plans, keys(a))", "expected `key(...)`", "keys"),
            ("aliases(out = x)", "alias output is `return`", "out"),
            ("forbids_write(k[slot])", "is not a constant", "slot"),
            ("preserves()", "expected at least one", ")"),
            ("preserves(log())", "without calling it", "()"),
            ("reads(k[a b])", "unexpected tokens", "b"),
            ("reuses(self, key(a))", "field of `self`", "self"),
            ("writes(k[s], skipp = -1)", "expected `skip = SENTINEL`", "skipp"),
            ("forbids_write(k[..=])", "inclusive range", "]"),
            ("forbids_write(except(f))", "before `except(..)`", "except"),
            ("forbids_write(k[0], except())", "at least one sanctioned function", ")"),
            ("forbids_write(k[0], except(f), k[1])", "`except(..)` comes last", "k"),
            ("forbids_write(k[0], except(f()))", "without calling it", "()"),
            ("forbids_write(k[0], except(self.f))", "a function path", "."),
            ("forbids_write(k[0], except(f::<u8>))", "without generics", "<"),
            ("reuses(self.g, key(a), miss = Ok(x))", "would bind the value", "x"),
            ("reuses(self.g, key(a), miss = Some(ref p))", "would bind the value", "p"),
            ("reuses(self.g, key(a), miss = _)", "makes every return a miss", "_"),
            ("reuses(self.g, key(a), miss = Ok(m!()))", "plain pattern", "m!()"),
            ("reuses(self.g, key(a), miss = Ok(None) +)", "unexpected tokens", "+"),
            ("reuses(self.g, key(a), miss =)", "expected a pattern", ")"),
            ("reuses(self.g, key(a), misses = None)", "expected `miss = PATTERN`", "misses"),
            ("fresh(out, after = replay)", "the fresh output is `return`", "out"),
            ("fresh(return)", "expected `, after = EFFECT`", ")"),
            ("fresh(return, before = replay)", "expected `after = EFFECT`", "before"),
            ("fresh(return, after = replay())", "without calling it", "()"),
            ("fresh(return, after = replay), fresh(return.0, after = replay)", "duplicate `fresh`", "fresh"),
        ];
        for (src, message, under) in cases {
            let (got, text) = error_at(src);
            assert!(got.contains(message), "{src}: message {got:?} lacks {message:?}");
            assert_eq!(text, under, "{src}: span");
        }
    }

    #[test]
    fn duplicates_are_all_reported_and_repeatable_clauses_are_not() {
        let errors = parse("preserves(a), aliases(return = x), preserves(b), aliases(return = y)").unwrap_err();
        assert_eq!(errors.len(), 2);
        assert!(parse("writes(a[i]), writes(b[i]), reads(c[j]), reads(d[j]), forbids_write(a[0]), forbids_write(b[0])").is_ok());
    }

    /// Random token soups built from the grammar's own vocabulary: every one is parsed, validated
    /// against a signature and printed without a panic.
    #[test]
    fn random_token_sequences_never_panic() {
        const WORDS: &[&str] = &[
            "reuses", "preserves", "writes", "reads", "forbids_write", "aliases", "key", "skip", "return", "self", "x",
            "PAD", "a::B", "except", "(f)", "forbids_write(x[0], except(f))", ".", ",", "=", "-", "1", "0", "..", "..=", "[", "]", "(", ")", "(x)", "[0]", "::", "-1", "\"lit\"", "preserves(x)", "writes(x[key], skip = -1)", "aliases(return = x)",
        ];
        let sig: syn::Signature = syn::parse_str("fn f(&self, x: &mut [f32], key: u64) -> u64").unwrap();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut valid = 0;
        for _ in 0..20_000 {
            let mut src = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 12) as usize;
            for i in 0..len {
                let pick = ((state >> (i * 5)) % WORDS.len() as u64) as usize;
                src.push_str(WORDS[pick]);
                src.push(' ');
            }
            // Unbalanced delimiters do not tokenize; those are the compiler's to report.
            let Ok(tokens) = src.parse::<TokenStream>() else { continue };
            if let Ok(contract) = parse_contract(tokens) {
                let _ = crate::validate::validate(&contract, &sig);
                let printed = contract.to_string();
                let reparsed = parse_contract(printed.parse().expect("printed form tokenizes")).expect("printed form parses");
                assert_eq!(reparsed.to_string(), printed);
                valid += 1;
            }
        }
        assert!(valid > 0, "some soups are valid contracts, so the round trip is exercised");
    }

    #[test]
    fn renamed_parameters_rename_every_place_rooted_at_them() {
        let mut c = parse("reuses(self.plans, key(h, cfg.v)), writes(pool[slots], skip = PAD), forbids_write(pool[NULL_BLOCK]), aliases(return = pool)").unwrap();
        c.rename_params(&[("pool".to_string(), "buf".to_string()), ("h".to_string(), "hash".to_string())]);
        assert_eq!(c.to_string(), "reuses(self.plans, key(hash, cfg.v)), writes(buf[slots], skip = PAD), forbids_write(buf[NULL_BLOCK]), aliases(return = buf)");
    }

    #[test]
    fn map_span_keeps_structure() {
        let c = parse("writes(k[s], skip = PAD), aliases(return.0 = x)").unwrap();
        let mut n = 0;
        let mapped: Contract<usize> = c.map_span(&mut |_| {
            n += 1;
            n
        });
        assert_eq!(mapped.to_string(), c.to_string());
        assert!(n >= 6);
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // spans of the short test string itself
    fn index_declarations_take_a_sentinel_and_reject_the_rest_at_the_token() {
        let ok = |src: &str| parse_index_attr(src.parse().expect("tokens")).expect("well-formed").skip.to_string();
        assert_eq!(ok("skip = PAD_SLOT_ID"), "PAD_SLOT_ID");
        assert_eq!(ok("skip = -1,"), "-1");
        assert_eq!(ok("skip = kv::PAD_SLOT_ID"), "kv::PAD_SLOT_ID");
        for (src, message, under) in [
            ("", "expected `skip = SENTINEL`", ""),
            ("skp = -1", "expected `skip = SENTINEL`", "skp"),
            ("skip = f(1)", "must be a const path", "f(1)"),
            ("skip = -1, writes(kv)", "takes `skip = SENTINEL`", "writes"),
        ] {
            let errors = parse_index_attr(src.parse().expect("tokens")).expect_err(src);
            assert!(errors[0].message.contains(message), "{src}: {}", errors[0].message);
            let range = errors[0].span.byte_range();
            assert_eq!(src.get(range).unwrap_or(""), under, "{src}");
        }
    }
}
