//! `macro_rules!` macros of the checked file, expanded where they are called, so that the
//! solver walks what a call of one runs (`trace!("hit")` that calls `log_step(..)` and
//! `check_errors()`, a `bail_if!(..)` that returns).
//!
//! The matcher is rustc's, simplified: the arms are tried in order and the first that matches is
//! expanded; fragments are parsed by `syn` (`expr`, `ident`, `ty`, `path`, `pat`, `stmt`, `block`,
//! `literal`, `lifetime`, `tt`, `item`, `vis`, `meta`), repetitions `$(..) sep? op` match
//! greedily without backtracking, and nothing is hygienic (a local the macro binds is a local of
//! the caller's body, which only matters to code that would not compile otherwise). A call that no
//! arm matches, a transcriber that does not parse as statements, and an expansion past
//! [`MAX_EXPANSION_DEPTH`] are not expanded: the solver then lowers the call as any other macro.
//! The tokens of the transcriber keep their spans in the definition, those of the fragments their
//! spans at the call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use crate::dataflow::LoweredMacro;

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};

/// How deep expansions may nest (a macro whose expansion calls a macro).
pub const MAX_EXPANSION_DEPTH: usize = 8;

/// One `macro_rules!` definition.
#[derive(Debug)]
pub struct MacroRules {
    arms: Vec<(Vec<Part>, Vec<Part>)>,
}

/// The `macro_rules!` definitions of a file (any module, any body), by name. A name defined twice
/// (two modules, or a redefinition) names none of them: which one a call reaches is textual scope,
/// not followed here.
#[derive(Debug, Default)]
pub struct FileMacros {
    by_name: HashMap<String, Option<MacroRules>>,
    /// The byte ranges of the definitions.
    ranges: Vec<std::ops::Range<usize>>,
    /// Each invocation of the file lowered, and each call of a definition expanded, once: every
    /// rule's solver walks a body several times, and parsing a macro's tokens again on each
    /// visit was a tenth of the editor's whole-file check. By [`invocation_key`].
    lowered: RefCell<HashMap<u64, Rc<LoweredMacro>>>,
    expanded: RefCell<HashMap<u64, Option<Rc<syn::Expr>>>>,
    /// Each statement macro (`tokio::join!(..);`) as the expression it stands for, built once.
    statements: RefCell<HashMap<u64, Rc<syn::Expr>>>,
    /// The names the file calls as macros (and its definitions call), whatever defines them.
    invoked: std::collections::HashSet<String>,
    /// Those called by a path into the crate too (`crate::launch!`, `$crate::kmacros::launch!`),
    /// with the path as written.
    invoked_by_path: HashMap<String, Vec<String>>,
    /// The definitions of other files of the crate that the file's calls reach
    /// ([`Self::resolve_foreign`]), by name; their tokens take the span of each call's name.
    foreign: HashMap<String, MacroRules>,
    /// The names of the calls of those, where their expansions' tokens point: a fix there
    /// would rewrite the call's name.
    foreign_calls: RefCell<Vec<std::ops::Range<usize>>>,
}

/// The macros of the standard library, never looked for in other files.
const STD_MACROS: &[&str] = &[
    "assert", "assert_eq", "assert_ne", "cfg", "column", "compile_error", "concat", "dbg", "debug_assert", "debug_assert_eq", "debug_assert_ne", "env", "eprint", "eprintln", "file", "format", "format_args", "include", "include_bytes", "include_str", "line", "matches", "module_path", "option_env", "panic", "print", "println", "stringify", "thread_local", "todo", "unimplemented", "unreachable", "vec", "write", "writeln",
];

impl FileMacros {
    /// Adds `item` (if it is a `macro_rules!`), found at `range` of the file.
    pub fn define(&mut self, item: &syn::ItemMacro, range: std::ops::Range<usize>) {
        let (true, Some(name)) = (item.mac.path.is_ident("macro_rules"), &item.ident) else { return };
        let rules = MacroRules::parse(item.mac.tokens.clone());
        self.by_name.entry(name.to_string()).and_modify(|r| *r = None).or_insert(rules);
        self.ranges.push(range);
        called_in(item.mac.tokens.clone(), &mut self.invoked);
    }

    /// Notes a call of a macro (`name!(..)`, `crate::name!(..)`) written in the file.
    pub fn invoked(&mut self, mac: &syn::Macro) {
        if let Some(name) = name_called(mac) {
            self.invoked.insert(name.to_string());
            if mac.path.segments.len() > 1 {
                self.invoked_by_path.insert(name.to_string(), mac.path.segments.iter().map(|s| s.ident.to_string()).collect());
            }
        }
        // `launch!(cache, &zeros!(n))`: the macros its tokens call.
        called_in(mac.tokens.clone(), &mut self.invoked);
    }

    /// Takes from `lookup` (other files of the crate: [`crate::items::WorkspaceItems::crate_macro`])
    /// the definitions of the macros the file calls but does not define, and of those their
    /// definitions call in turn; `lookup` is told the path into the crate the file calls the
    /// name by, as written (`crate::kmacros::launch`), if it does.
    pub fn resolve_foreign(&mut self, lookup: impl Fn(&str, Option<&[String]>) -> Option<String>) {
        let mut asked: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut todo: Vec<String> = self.invoked.iter().cloned().collect();
        while let Some(name) = todo.pop() {
            if self.by_name.contains_key(&name) || STD_MACROS.contains(&name.as_str()) || !asked.insert(name.clone()) {
                continue;
            }
            let Some(rules) = lookup(&name, self.invoked_by_path.get(&name).map(Vec::as_slice)).and_then(|text| text.parse::<TokenStream>().ok()) else { continue };
            let mut called = std::collections::HashSet::new();
            called_in(rules.clone(), &mut called);
            todo.extend(called);
            if let Some(rules) = MacroRules::parse(rules) {
                self.foreign.insert(name, rules);
            }
        }
    }

    /// Whether `range` lies in a definition (a fix there would change every call of the macro),
    /// or in the name of a call of another file's (where its expansion's tokens point).
    pub fn defines(&self, range: &std::ops::Range<usize>) -> bool {
        self.ranges.iter().chain(self.foreign_calls.borrow().iter()).any(|d| d.start <= range.start && range.end <= d.end)
    }

    /// Whether a range starts or ends in the name of a call of another file's macro: it holds
    /// tokens of that macro's expansion, which stand there.
    pub fn in_foreign_call(&self, range: &std::ops::Range<usize>) -> bool {
        self.foreign_calls.borrow().iter().any(|d| d.contains(&range.start) || (d.start < range.end && range.end <= d.end))
    }

    /// `mac` as [`crate::dataflow::lower_macro`] lowers it, lowered once per invocation.
    pub fn lowered(&self, mac: &syn::Macro) -> Rc<LoweredMacro> {
        let key = invocation_key(mac);
        if let Some(known) = self.lowered.borrow().get(&key) {
            return known.clone();
        }
        let lowered = Rc::new(crate::dataflow::lower_macro(mac));
        self.lowered.borrow_mut().insert(key, lowered.clone());
        lowered
    }

    /// A statement macro as the expression it stands for, built once per invocation (the
    /// solver hands it to every analysis on every visit).
    pub fn statement(&self, mac: &syn::Macro) -> Rc<syn::Expr> {
        let key = invocation_key(mac);
        self.statements.borrow_mut().entry(key).or_insert_with(|| Rc::new(statement_expr(mac))).clone()
    }

    /// The expansion of a call of one of the file's definitions, as a block whose braces span the
    /// call's delimiters (`None`: it names none, or no arm expands it), expanded once per call.
    pub fn expansion(&self, mac: &syn::Macro) -> Option<Rc<syn::Expr>> {
        let local = self.of(mac);
        let foreign = if local.is_none() { self.foreign.get(name_called(mac)?.to_string().as_str()) } else { None };
        if local.is_none() && foreign.is_none() {
            return None;
        }
        let key = invocation_key(mac);
        if let Some(known) = self.expanded.borrow().get(&key) {
            return known.clone();
        }
        let stmts = match (local, foreign) {
            (Some(rules), _) => rules.expand(&mac.tokens),
            (None, Some(rules)) => {
                // Its tokens have no place in this file: they take the call's name's.
                let at = mac.path.segments.last()?.ident.span();
                self.foreign_calls.borrow_mut().push(crate::source::byte_range(at));
                rules.respanned(at).expand(&mac.tokens)
            }
            (None, None) => None,
        };
        let expanded = stmts.map(|stmts| {
            let block = syn::Block { brace_token: syn::token::Brace { span: *mac.delimiter.span() }, stmts };
            Rc::new(syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block }))
        });
        self.expanded.borrow_mut().insert(key, expanded.clone());
        expanded
    }

    /// The file's definition a call names: `name!(..)`, or `crate::name!(..)` of an exported one.
    pub fn of(&self, mac: &syn::Macro) -> Option<&MacroRules> {
        self.by_name.get(&name_called(mac)?.to_string())?.as_ref()
    }
}

/// The name of the macro a call names, if it may be a `macro_rules!` of the crate: `name!(..)`,
/// or a path into the crate, `crate::name!(..)`, `self::name!(..)`, `crate::kmacros::name!(..)`
/// (`$crate::name!` in an expansion reads so too).
fn name_called(mac: &syn::Macro) -> Option<&Ident> {
    let segs = &mac.path.segments;
    match segs.len() {
        1 => Some(&segs[0].ident),
        _ if ["crate", "self", "super"].iter().any(|a| segs[0].ident == a) => segs.last().map(|s| &s.ident),
        _ => None,
    }
}

/// Adds the names that tokens call as macros (`name !`, `crate :: name !`, after `&mut`,
/// `return`, `in` as anywhere) to `out`; a path from another crate (`tracing :: info !`) names
/// none.
fn called_in(tokens: TokenStream, out: &mut std::collections::HashSet<String>) {
    // The path being read: its first segment and its last, and the colons since the last.
    let (mut first, mut last, mut colons): (Option<String>, Option<String>, usize) = (None, None, 0);
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                called_in(g.stream(), out);
                (first, last, colons) = (None, None, 0);
            }
            TokenTree::Ident(i) => {
                let name = i.to_string();
                if last.is_none() || colons != 2 {
                    first = Some(name.clone());
                }
                (last, colons) = (Some(name), 0);
            }
            TokenTree::Punct(p) if p.as_char() == ':' => colons += 1,
            TokenTree::Punct(p) if p.as_char() == '$' => {}
            TokenTree::Punct(p) if p.as_char() == '!' => {
                if let (Some(first), Some(name)) = (first.take(), last.take()) {
                    if first == name || ["crate", "self", "super"].contains(&first.as_str()) {
                        out.insert(name);
                    }
                }
                colons = 0;
            }
            _ => (first, last, colons) = (None, None, 0),
        }
    }
}

/// An invocation by the positions and the text of its tokens: the same text of the same parse
/// (each parse has positions of its own). Inside an expansion the transcriber's tokens keep the
/// definition's positions and the fragments the call's, so two expansions of one definition with
/// different fragments differ here too; the tokens of another file's definition all stand at
/// the call's name, and differ by their text.
fn invocation_key(mac: &syn::Macro) -> u64 {
    fn tokens(ts: TokenStream, h: &mut impl Hasher) {
        for tt in ts {
            let range = crate::source::byte_range(tt.span());
            range.hash(h);
            match tt {
                TokenTree::Group(g) => {
                    (g.delimiter() as u8).hash(h);
                    tokens(g.stream(), h);
                }
                // Tokens of another file's definition share the position of the call's name:
                // their text tells them apart.
                TokenTree::Ident(i) => i.hash(h),
                TokenTree::Punct(p) => p.as_char().hash(h),
                TokenTree::Literal(l) => l.to_string().hash(h),
            }
        }
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for seg in &mac.path.segments {
        crate::source::byte_range(seg.ident.span()).hash(&mut h);
        seg.ident.to_string().hash(&mut h);
    }
    crate::source::byte_range(mac.delimiter.span().join()).hash(&mut h);
    tokens(mac.tokens.clone(), &mut h);
    h.finish()
}

/// A matcher or a transcriber, as a tree: `$name:kind` in a matcher (`$name` in a
/// transcriber), `$( .. ) sep? op`, a delimited group, any other token.
#[derive(Debug)]
enum Part {
    Var(Ident, Option<String>),
    Repeat(Vec<Part>, Option<TokenTree>),
    Group(Delimiter, Span, Vec<Part>),
    Token(TokenTree),
}

/// What a fragment or a repetition of fragments matched.
#[derive(Clone, Debug)]
enum Binding {
    One(TokenStream),
    Seq(Vec<HashMap<String, Binding>>),
}

impl MacroRules {
    /// The arms of a definition's body, `(matcher) => { transcriber };` each. `None` if one is
    /// not of that form.
    fn parse(body: TokenStream) -> Option<MacroRules> {
        let tokens: Vec<TokenTree> = body.into_iter().collect();
        let mut arms = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let (TokenTree::Group(m), Some(TokenTree::Punct(eq)), Some(TokenTree::Punct(gt)), Some(TokenTree::Group(t))) = (&tokens[i], tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3)) else { return None };
            if eq.as_char() != '=' || gt.as_char() != '>' {
                return None;
            }
            arms.push((parts(m.stream(), true)?, parts(t.stream(), false)?));
            i += 4;
            if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
                i += 1;
            }
        }
        Some(MacroRules { arms })
    }

    /// The definition with every token at `span` (a definition of another file, whose
    /// positions mean nothing in the file of the call).
    fn respanned(&self, span: Span) -> MacroRules {
        fn token(t: &TokenTree, span: Span) -> TokenTree {
            let mut t = match t {
                TokenTree::Group(g) => TokenTree::Group(Group::new(g.delimiter(), g.stream().into_iter().map(|t| token(&t, span)).collect())),
                other => other.clone(),
            };
            t.set_span(span);
            t
        }
        fn parts(ps: &[Part], span: Span) -> Vec<Part> {
            ps.iter()
                .map(|p| match p {
                    Part::Var(name, kind) => {
                        let mut name = name.clone();
                        name.set_span(span);
                        Part::Var(name, kind.clone())
                    }
                    Part::Repeat(inner, sep) => Part::Repeat(parts(inner, span), sep.as_ref().map(|t| token(t, span))),
                    Part::Group(d, _, inner) => Part::Group(*d, span, parts(inner, span)),
                    Part::Token(t) => Part::Token(token(t, span)),
                })
                .collect()
        }
        MacroRules { arms: self.arms.iter().map(|(m, t)| (parts(m, span), parts(t, span))).collect() }
    }

    /// The statements a call with `input` expands to, from the first arm that matches it.
    pub fn expand(&self, input: &TokenStream) -> Option<Vec<syn::Stmt>> {
        let (bindings, transcriber) = self.arms.iter().find_map(|(m, t)| Some(((|s: ParseStream| match_all(m, s)).parse2(input.clone()).ok()?, t)))?;
        let mut out = TokenStream::new();
        transcribe(transcriber, &bindings, &mut out)?;
        syn::Block::parse_within.parse2(out).ok()
    }
}

/// The parts of a matcher (`kinds`: each `$name` is followed by `:kind`) or a transcriber.
fn parts(ts: TokenStream, kinds: bool) -> Option<Vec<Part>> {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match (&tokens[i], tokens.get(i + 1)) {
            (TokenTree::Punct(d), Some(TokenTree::Ident(name))) if d.as_char() == '$' && !kinds && name == "crate" => {
                out.push(Part::Token(TokenTree::Ident(name.clone())));
                i += 2;
            }
            (TokenTree::Punct(d), Some(TokenTree::Ident(name))) if d.as_char() == '$' => {
                let kind = match (kinds, tokens.get(i + 2), tokens.get(i + 3)) {
                    (false, ..) => None,
                    (true, Some(TokenTree::Punct(colon)), Some(TokenTree::Ident(kind))) if colon.as_char() == ':' => Some(kind.to_string()),
                    (true, ..) => return None,
                };
                i += if kind.is_some() { 4 } else { 2 };
                out.push(Part::Var(name.clone(), kind));
            }
            (TokenTree::Punct(d), Some(TokenTree::Group(g))) if d.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis => {
                let (sep, len) = repetition_tail(&tokens[i + 2..])?;
                out.push(Part::Repeat(parts(g.stream(), kinds)?, sep));
                i += 2 + len;
            }
            (TokenTree::Group(g), _) => {
                out.push(Part::Group(g.delimiter(), g.span(), parts(g.stream(), kinds)?));
                i += 1;
            }
            (t, _) => {
                out.push(Part::Token(t.clone()));
                i += 1;
            }
        }
    }
    Some(out)
}

/// After `$( .. )`: an optional separator and the operator (`*`, `+`, `?`), and how many tokens
/// they took.
fn repetition_tail(rest: &[TokenTree]) -> Option<(Option<TokenTree>, usize)> {
    let is_op = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), '*' | '+' | '?'));
    match rest {
        [op, ..] if is_op(op) => Some((None, 1)),
        [sep, op, ..] if is_op(op) => Some((Some(sep.clone()), 2)),
        _ => None,
    }
}

fn match_all(matchers: &[Part], input: ParseStream) -> syn::Result<HashMap<String, Binding>> {
    let mut bound = HashMap::new();
    match_seq(matchers, input, &mut bound)?;
    if input.is_empty() {
        Ok(bound)
    } else {
        Err(input.error("unexpected tokens"))
    }
}

fn match_seq(matchers: &[Part], input: ParseStream, bound: &mut HashMap<String, Binding>) -> syn::Result<()> {
    for m in matchers {
        match m {
            Part::Var(name, kind) => {
                bound.insert(name.to_string(), Binding::One(fragment(kind.as_deref().unwrap_or_default(), input)?));
            }
            Part::Token(t) => {
                let want = t.to_string();
                input.step(|c| match c.token_tree() {
                    Some((got, rest)) if got.to_string() == want => Ok(((), rest)),
                    _ => Err(c.error(format!("expected `{want}`"))),
                })?;
            }
            Part::Group(delim, _, inner) => {
                let stream = input.step(|c| match c.token_tree() {
                    Some((TokenTree::Group(g), rest)) if g.delimiter() == *delim => Ok((g.stream(), rest)),
                    _ => Err(c.error("expected a group")),
                })?;
                let inner_bound = (|s: ParseStream| match_all(inner, s)).parse2(stream)?;
                bound.extend(inner_bound);
            }
            Part::Repeat(inner, sep) => {
                let mut rounds = Vec::new();
                loop {
                    let fork = input.fork();
                    let mut round = HashMap::new();
                    if !rounds.is_empty() {
                        if let Some(sep) = sep {
                            let want = sep.to_string();
                            if fork.step(|c| match c.token_tree() {
                                Some((got, rest)) if got.to_string() == want => Ok(((), rest)),
                                _ => Err(c.error("no separator")),
                            }).is_err()
                            {
                                break;
                            }
                        }
                    }
                    if fork.is_empty() || match_seq(inner, &fork, &mut round).is_err() {
                        break;
                    }
                    syn::parse::discouraged::Speculative::advance_to(input, &fork);
                    rounds.push(round);
                }
                for name in vars_in(inner) {
                    bound.insert(name, Binding::Seq(rounds.clone()));
                }
            }
        }
    }
    Ok(())
}

/// One fragment of `kind`, as tokens. An expression that is not a single operand is put in
/// parentheses, as rustc keeps it one operand of the expression it is pasted into.
fn fragment(kind: &str, input: ParseStream) -> syn::Result<TokenStream> {
    use quote::ToTokens;
    Ok(match kind {
        "expr" => {
            let e: syn::Expr = input.parse()?;
            let operand = matches!(e, syn::Expr::Path(_) | syn::Expr::Lit(_) | syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Macro(_) | syn::Expr::Field(_) | syn::Expr::Index(_) | syn::Expr::Paren(_) | syn::Expr::Tuple(_) | syn::Expr::Array(_) | syn::Expr::Block(_) | syn::Expr::Struct(_) | syn::Expr::Reference(_) | syn::Expr::Try(_));
            if operand {
                e.into_token_stream()
            } else {
                let mut g = Group::new(Delimiter::Parenthesis, e.to_token_stream());
                g.set_span(syn::spanned::Spanned::span(&e));
                TokenTree::Group(g).into()
            }
        }
        "ident" => input.call(Ident::parse_any)?.into_token_stream(),
        "ty" => input.parse::<syn::Type>()?.into_token_stream(),
        "path" => input.parse::<syn::Path>()?.into_token_stream(),
        "pat" => syn::Pat::parse_multi_with_leading_vert(input)?.into_token_stream(),
        "pat_param" => syn::Pat::parse_single(input)?.into_token_stream(),
        "stmt" => input.parse::<syn::Stmt>()?.into_token_stream(),
        "block" => input.parse::<syn::Block>()?.into_token_stream(),
        "literal" => input.parse::<syn::Lit>()?.into_token_stream(),
        "lifetime" => input.parse::<syn::Lifetime>()?.into_token_stream(),
        "tt" => input.parse::<TokenTree>()?.into(),
        "item" => input.parse::<syn::Item>()?.into_token_stream(),
        "vis" => input.parse::<syn::Visibility>()?.into_token_stream(),
        "meta" => input.parse::<syn::Meta>()?.into_token_stream(),
        other => return Err(input.error(format!("unknown fragment `{other}`"))),
    })
}

fn transcribe(parts: &[Part], bound: &HashMap<String, Binding>, out: &mut TokenStream) -> Option<()> {
    for part in parts {
        match part {
            Part::Token(t) => out.extend([t.clone()]),
            Part::Var(name, _) => match bound.get(&name.to_string()) {
                Some(Binding::One(ts)) => out.extend(ts.clone()),
                // A repeated fragment used outside its repetition, or a `$` of another meaning.
                _ => return None,
            },
            Part::Group(delim, span, inner) => {
                let mut inside = TokenStream::new();
                transcribe(inner, bound, &mut inside)?;
                let mut g = Group::new(*delim, inside);
                g.set_span(*span);
                out.extend([TokenTree::Group(g)]);
            }
            Part::Repeat(inner, sep) => {
                // The rounds are those of the repeated fragments it names (all the same count).
                let rounds = vars_in(inner).iter().find_map(|v| match bound.get(v) {
                    Some(Binding::Seq(r)) => Some(r.clone()),
                    _ => None,
                })?;
                for (i, round) in rounds.iter().enumerate() {
                    if i > 0 {
                        out.extend(sep.clone());
                    }
                    let mut scope = bound.clone();
                    scope.extend(round.iter().map(|(k, v)| (k.clone(), v.clone())));
                    transcribe(inner, &scope, out)?;
                }
            }
        }
    }
    Some(())
}

/// The names of the fragments in parts, nested ones too.
fn vars_in(parts: &[Part]) -> Vec<String> {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Part::Var(name, _) => out.push(name.to_string()),
            Part::Repeat(inner, _) | Part::Group(_, _, inner) => out.extend(vars_in(inner)),
            Part::Token(_) => {}
        }
    }
    out
}

/// A statement macro (`name!(..);`) as an expression.
pub fn statement_expr(mac: &syn::Macro) -> syn::Expr {
    syn::Expr::Macro(syn::ExprMacro { attrs: Vec::new(), mac: mac.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn expand(def: &str, call: &str) -> Option<String> {
        let item: syn::ItemMacro = syn::parse_str(def).expect("a macro_rules item");
        let mut file = FileMacros::default();
        file.define(&item, 0..0);
        let mac: syn::Macro = syn::parse_str(call).expect("a macro call");
        let stmts = file.of(&mac)?.expand(&mac.tokens)?;
        Some(stmts.iter().map(|s| s.to_token_stream().to_string()).collect::<Vec<_>>().join(" "))
    }

    #[test]
    fn the_macros_tokens_call_are_read_after_keywords_and_through_crate_paths() {
        let tokens: TokenStream = "f(&mut zeros!(n)); return m!(); in_k!(); tracing::info!(\"x\"); crate::a::pad!(1); $crate::b!(); x.y(); Foo { s: padded!(r) }".parse().unwrap();
        let mut called = std::collections::HashSet::new();
        called_in(tokens, &mut called);
        let mut called: Vec<String> = called.into_iter().collect();
        called.sort();
        assert_eq!(called, ["b", "in_k", "m", "pad", "padded", "zeros"]);
    }

    #[test]
    fn the_first_matching_arm_is_expanded_with_its_fragments() {
        let def = "macro_rules! trace { () => { check_errors(); }; ($s:expr) => { log_step($s); check_errors(); }; }";
        assert_eq!(expand(def, "trace!()").as_deref(), Some("check_errors () ;"));
        assert_eq!(expand(def, "trace!(\"hit\")").as_deref(), Some("log_step (\"hit\") ; check_errors () ;"));
        // An operator expression stays one operand.
        assert_eq!(expand("macro_rules! twice { ($e:expr) => { f($e * 2) }; }", "twice!(a + b)").as_deref(), Some("f ((a + b) * 2)"));
    }

    #[test]
    fn repetitions_match_and_transcribe_each_round() {
        let def = "macro_rules! all { ($($f:ident),* $(,)?) => { $( $f(); )* }; }";
        assert_eq!(expand(def, "all!(a, b, c,)").as_deref(), Some("a () ; b () ; c () ;"));
        let fmt = "macro_rules! trace { ($($arg:tt)*) => { log_step(&format!($($arg)*)); }; }";
        assert_eq!(expand(fmt, "trace!(\"{} {}\", x, y)").as_deref(), Some("log_step (& format ! (\"{} {}\" , x , y)) ;"));
    }

    #[test]
    fn what_is_not_understood_is_not_expanded() {
        let def = "macro_rules! one { ($e:expr) => { f($e); }; }";
        assert_eq!(expand(def, "one!(a, b)"), None, "no arm matches");
        assert_eq!(expand(def, "other!(a)"), None, "not a macro of the file");
        let twice = "macro_rules! m { () => {}; }";
        let mut file = FileMacros::default();
        file.define(&syn::parse_str(twice).unwrap(), 0..0);
        file.define(&syn::parse_str(twice).unwrap(), 0..0);
        assert!(file.of(&syn::parse_str("m!()").unwrap()).is_none(), "defined twice: which one is textual scope");
        assert_eq!(expand("macro_rules! bad { ($e:expr) => { $e => }; }", "bad!(x)"), None, "a transcriber that is no Rust");
    }
}
