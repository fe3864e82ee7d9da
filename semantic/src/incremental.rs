//! Re-checking the top-level items an edit touches, instead of the whole file (the editor path of
//! [`crate::engine::Session::edit`]).
//!
//! A keystroke in a 5,000-line file changes one function; parsing and analysing the whole file
//! again is most of the cost of a check (the parse alone is more than half of it). Every rule the
//! checker runs on a file looks at one function body at a time, with three things of the whole
//! file: its `use` imports, the field types of its structs (the receiver of `self.kv.write(..)`),
//! and the bodies of the helpers and the methods of the types it uses (followed for effects and
//! summarised for padding); and the workspace index. A suppression comment covers the next line,
//! inside the same item. So the findings of an item can change only when the item itself changed,
//! or an item it shares a helper or a type with did, or an import or a struct did.
//!
//! The session keeps, per file, the [`Chunk`]s of its last successful parse: the byte range of each
//! top-level item (from the end of the item before it, so the comments and attributes before an
//! item are its own) and what it defines. An edit is located in them; only the text of the chunks
//! it touches is parsed again, alone, at its offset (an edit that adds, removes or splits items is
//! seen there). The items whose findings may change are those chunks, the items that name what an
//! edited `use` item or struct changed (or whose findings spell it: a fix names the sentinel as
//! the file can), and every item linked to them by a name (a function one defines and the other
//! mentions, a type one implements and the other implements or builds), closed over these links.
//! They are checked in a *masked* copy of the file, where every other item is blanked to spaces
//! (newlines kept) but the `use` items, the items that define structs, and the constants and
//! statics (names the module defines); the masked copy has the
//! byte offsets of the real text, so its findings are the real findings. The other items' old
//! findings are kept, moved with the text (with the `(line N)` their messages name).
//!
//! An edit that changes a declaration the index holds (a contract, an effect, an index field, a
//! struct a contract names, a constant, an import of a declaring file; an edit inside the body
//! of a contracted function changes none) is checked so too, against the index of the new text:
//! the session indexes the file again from a parse of its declaring items (the others blanked,
//! offsets kept: [`declarations_only`]; `Session::edit_declarations`), and the items
//! that name what the edited items declare are among those linked to them, with those that
//! depend on it a longer way ([`Reindexed`]): a constant of the file written with an edited one,
//! a function of another file that names one (a helper that pads with the constant, a forwarder
//! to the kernel whose contract changed, as deep as summaries follow helpers). The index's
//! findings outside the items checked again must be those of the old text.
//!
//! What this reasoning does not cover returns `None`, and the session runs the whole-file check:
//! text that does not parse, an edited `macro_rules!`, a finding of an unaffected item pointing
//! into an affected one. The `equivalence` tests hold this against a fresh check after random
//! sequences of edits.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;

use proc_macro2::Span;
use quote::ToTokens;
use reuse_rules::Level;
use syn::visit::Visit;

use crate::engine::FileJob;
use crate::finding::{Finding, Label};
use crate::index::Index;
use crate::source::{FileRef, SourceFile};

/// One top-level item of a parsed file, as the incremental path needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// From the end of the item before (or the start of the file) to the end of this item: the
    /// comments, attributes and doc comments before an item are its own. The text after the last
    /// item is a chunk of its own, with no item.
    pub range: Range<usize>,
    /// A `use` declaration: imports decide how every other item's calls resolve.
    pub is_use: bool,
    /// Defines a struct or a type alias (itself, or in an inline module): the file's field types
    /// and aliases resolve the receivers of every item's calls ([`crate::resolve::FieldTypes`]).
    pub defines_type: bool,
    /// A `const` or `static`: a name the module defines, which every item can name without a
    /// path (a fix spells a sentinel so).
    pub is_value: bool,
    /// In an inline module: the text a masked copy keeps of it when it is blanked, the module
    /// headers and braces and its constants and statics (nested ones too), which the items
    /// checked name by path (`warm::DUMMY`).
    pub values: Vec<Range<usize>>,
    /// Defines a `macro_rules!` macro (itself, or in an inline module): the solver
    /// expands its calls in every item ([`crate::macros`]).
    pub defines_macro: bool,
    /// The functions and methods it defines, nested ones included: the helpers the rules follow
    /// by name ([`crate::analysis::FileFns`]).
    pub fns: Vec<String>,
    /// The types it implements, the traits it declares and those it implements: a field of `self`
    /// holds what the type's methods and struct literals leave in it, and a type runs the
    /// defaults of a trait it implements.
    pub types: Vec<String>,
    /// The constants and statics it defines, nested ones included: the items that name one
    /// depend on its value.
    pub consts: Vec<String>,
    /// For a `use` item, a struct or a type alias, what it tells the other items, as (name,
    /// meaning) pairs: `(name, path)` per imported name (`*` for a glob), `(struct, its field
    /// names)` and `(field, struct and type)` per field, `(alias, the type)`. An edit changes the
    /// names whose pairs differ.
    pub binds: Vec<(String, String)>,
    /// The insides of the bodies of its functions and methods (between the braces): an edit
    /// inside one leaves the item's contract and signature as they were.
    pub bodies: Vec<Range<usize>>,
}

impl Chunk {
    fn shifted(&self, delta: isize) -> Chunk {
        Chunk { range: shift(&self.range, delta), ..self.clone() }
    }

    /// The structs and type aliases it declares, read from its [`Chunk::binds`] (a struct's own
    /// pair is its fields' shape, an alias's the type it stands for: see `item_binds`).
    fn declared_types(&self) -> impl Iterator<Item = &str> {
        self.binds.iter().filter(|(_, meaning)| meaning.starts_with("Discriminant(") || meaning.starts_with("= ")).map(|(name, _)| name.as_str())
    }

    /// Context every masked copy keeps.
    fn is_context(&self) -> bool {
        self.is_use || self.defines_type || self.is_value || self.defines_macro
    }
}

/// The chunks of a file whose items are `items` (parsed from the text at `start..end`, where
/// `at(span)` is the byte range in the file of a span). `None` when an item's end cannot
/// be told.
pub fn chunks(items: &[syn::Item], at: &dyn Fn(Span) -> Range<usize>, start: usize, end: usize) -> Option<Vec<Chunk>> {
    let mut out = Vec::with_capacity(items.len() + 1);
    let mut from = start;
    for item in items {
        let to = at(item_end(item)?).end;
        if to < from || to > end {
            return None;
        }
        let mut names = Names::default();
        names.visit_item(item);
        let mut binds = Vec::new();
        item_binds(item, &mut binds);
        let bodies = item_bodies(item).into_iter().map(|b| at(b.span.open()).end..at(b.span.close()).end - 1).collect();
        let mut values = Vec::new();
        if let syn::Item::Mod(_) = item {
            value_skeleton(item, at, &mut values);
        }
        let is_value = matches!(item, syn::Item::Const(_) | syn::Item::Static(_));
        out.push(Chunk { range: from..to, is_use: matches!(item, syn::Item::Use(_)), defines_type: defines_type(item), is_value, values, defines_macro: defines_macro(item), fns: names.fns, types: names.types, consts: names.consts, binds, bodies });
        from = to;
    }
    if from < end || out.is_empty() {
        out.push(Chunk { range: from..end, is_use: false, defines_type: false, is_value: false, values: Vec::new(), defines_macro: false, fns: Vec::new(), types: Vec::new(), consts: Vec::new(), binds: Vec::new(), bodies: Vec::new() });
    }
    Some(out)
}

/// The span of the last token of an item.
pub(crate) fn item_end(item: &syn::Item) -> Option<Span> {
    use syn::Item;
    let brace = |b: &syn::token::Brace| Some(b.span.close());
    match item {
        Item::Fn(f) => brace(&f.block.brace_token),
        Item::Impl(i) => brace(&i.brace_token),
        Item::Trait(t) => brace(&t.brace_token),
        Item::Enum(e) => brace(&e.brace_token),
        Item::Use(u) => Some(u.semi_token.span),
        Item::Const(c) => Some(c.semi_token.span),
        Item::Static(s) => Some(s.semi_token.span),
        Item::Type(t) => Some(t.semi_token.span),
        Item::Mod(m) => match (&m.content, &m.semi) {
            (Some((b, _)), _) => brace(b),
            (None, Some(semi)) => Some(semi.span),
            (None, None) => None,
        },
        Item::Struct(s) => match (&s.semi_token, &s.fields) {
            (Some(semi), _) => Some(semi.span),
            (None, syn::Fields::Named(n)) => brace(&n.brace_token),
            _ => last_token(item),
        },
        // Macros, unions, extern blocks, `extern crate`, trait aliases, verbatim tokens: rare at the
        // top of a file; their last token.
        _ => last_token(item),
    }
}

fn last_token(item: &syn::Item) -> Option<Span> {
    match item.to_token_stream().into_iter().last()? {
        proc_macro2::TokenTree::Group(g) => Some(g.span_close()),
        t => Some(t.span()),
    }
}

/// Whether an item defines a struct or a type alias where [`crate::resolve::FieldTypes`] reads
/// them: at the top of the file or in inline modules.
fn defines_type(item: &syn::Item) -> bool {
    match item {
        syn::Item::Struct(_) | syn::Item::Type(_) => true,
        syn::Item::Mod(m) => m.content.as_ref().is_some_and(|(_, items)| items.iter().any(defines_type)),
        _ => false,
    }
}

/// The parts of an item that declare constants and statics, with the inline modules around them
/// (see [`Chunk::values`]). Whether there are any.
fn value_skeleton(item: &syn::Item, at: &dyn Fn(Span) -> Range<usize>, out: &mut Vec<Range<usize>>) -> bool {
    use syn::spanned::Spanned;
    let from = |vis: &syn::Visibility, token: Span| match vis {
        syn::Visibility::Inherited => at(token).start,
        vis => at(vis.span()).start,
    };
    match item {
        syn::Item::Mod(m) => {
            let Some((brace, items)) = &m.content else { return false };
            let mut inner = Vec::new();
            let mut any = false;
            for item in items {
                any |= value_skeleton(item, at, &mut inner);
            }
            if any {
                out.push(from(&m.vis, m.mod_token.span)..at(brace.span.open()).end);
                out.extend(inner);
                out.push(at(brace.span.close()));
            }
            any
        }
        syn::Item::Const(c) => {
            out.push(from(&c.vis, c.const_token.span)..at(c.semi_token.span).end);
            true
        }
        syn::Item::Static(s) => {
            out.push(from(&s.vis, s.static_token.span)..at(s.semi_token.span).end);
            true
        }
        _ => false,
    }
}

/// Whether an item defines a `macro_rules!` macro that other items can call.
fn defines_macro(item: &syn::Item) -> bool {
    match item {
        syn::Item::Macro(m) => m.mac.path.is_ident("macro_rules"),
        syn::Item::Mod(m) => m.content.as_ref().is_some_and(|(_, items)| items.iter().any(defines_macro)),
        _ => false,
    }
}

/// The braces of the bodies of an item's functions and methods (not of nested ones).
fn item_bodies(item: &syn::Item) -> Vec<&syn::token::Brace> {
    match item {
        syn::Item::Fn(f) => vec![&f.block.brace_token],
        syn::Item::Impl(i) => i.items.iter().filter_map(|it| if let syn::ImplItem::Fn(f) = it { Some(&f.block.brace_token) } else { None }).collect(),
        syn::Item::Trait(t) => t.items.iter().filter_map(|it| if let syn::TraitItem::Fn(f) = it { f.default.as_ref().map(|b| &b.brace_token) } else { None }).collect(),
        _ => Vec::new(),
    }
}

/// What a `use` item or the structs and type aliases of an item tell the other items (see
/// [`Chunk::binds`]).
fn item_binds(item: &syn::Item, out: &mut Vec<(String, String)>) {
    fn tree(t: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, String)>) {
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                tree(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) if n.ident == "self" => out.push((prefix.last().cloned().unwrap_or_default(), prefix.join("::"))),
            syn::UseTree::Name(n) => out.push((n.ident.to_string(), format!("{}::{}", prefix.join("::"), n.ident))),
            syn::UseTree::Rename(r) => out.push((r.rename.to_string(), format!("{}::{}", prefix.join("::"), r.ident))),
            syn::UseTree::Glob(_) => out.push(("*".into(), prefix.join("::"))),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| tree(t, prefix, out)),
        }
    }
    match item {
        syn::Item::Use(u) => tree(&u.tree, &mut vec![format!("{}", u.leading_colon.is_some())], out),
        syn::Item::Struct(st) => {
            let name = st.ident.to_string();
            let fields: Vec<String> = st.fields.iter().enumerate().map(|(i, f)| f.ident.as_ref().map_or(i.to_string(), |n| n.to_string())).collect();
            // (With the fields a derived `Default` zeroes: deleting the derive changes them.)
            let zeroed = crate::resolve::zeroed_by_derived_default(st);
            out.push((name.clone(), format!("{:?} {} {zeroed:?}", std::mem::discriminant(&st.fields), fields.join(","))));
            for (field, f) in fields.iter().zip(&st.fields) {
                out.push((field.clone(), format!("{name}.{field}: {}", f.ty.to_token_stream())));
            }
        }
        // `type DecodeGraph = kv::graph::Graph;`: what the name stands for.
        syn::Item::Type(t) => out.push((t.ident.to_string(), format!("= {}", t.ty.to_token_stream()))),
        // An inline module's types, and its imports (`pub(crate) use kv::write as rac;` that
        // `inner::rac(..)` calls), nested modules' too.
        syn::Item::Mod(m) => m.content.iter().flat_map(|(_, items)| items).filter(|i| defines_type(i) || matches!(i, syn::Item::Use(_) | syn::Item::Mod(_))).for_each(|i| item_binds(i, out)),
        _ => {}
    }
}

/// The names whose meaning changed between the `use` items and structs of `old` and `new`;
/// `None` when a glob import changed (any name may have).
fn changed_binds(old: &[Chunk], new: &[Chunk]) -> Option<BTreeSet<String>> {
    let pairs = |cs: &[Chunk]| -> BTreeSet<(String, String)> { cs.iter().flat_map(|c| c.binds.iter().cloned()).collect() };
    let (old, new) = (pairs(old), pairs(new));
    let changed: BTreeSet<String> = old.symmetric_difference(&new).map(|(name, _)| name.clone()).collect();
    (!changed.contains("*")).then_some(changed)
}

/// The functions, types and constants an item defines, nested ones included.
#[derive(Default)]
struct Names {
    fns: Vec<String>,
    types: Vec<String>,
    consts: Vec<String>,
}

impl<'a> Visit<'a> for Names {
    fn visit_item_const(&mut self, c: &'a syn::ItemConst) {
        self.consts.push(c.ident.to_string());
        syn::visit::visit_item_const(self, c);
    }
    fn visit_item_static(&mut self, s: &'a syn::ItemStatic) {
        self.consts.push(s.ident.to_string());
        syn::visit::visit_item_static(self, s);
    }
    fn visit_signature(&mut self, s: &'a syn::Signature) {
        self.fns.push(s.ident.to_string());
    }
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        if let syn::Type::Path(p) = &*i.self_ty {
            self.types.extend(p.path.segments.last().map(|s| s.ident.to_string()));
        }
        // `impl StepHooks for DefaultHooks {}` tells the items that call the trait's methods
        // that the type runs the trait's defaults, whether or not it defines any.
        if let Some((_, path, _)) = &i.trait_ {
            self.types.extend(path.segments.last().map(|s| s.ident.to_string()));
        }
        syn::visit::visit_item_impl(self, i);
    }
    fn visit_item_trait(&mut self, t: &'a syn::ItemTrait) {
        self.types.push(t.ident.to_string());
        syn::visit::visit_item_trait(self, t);
    }
}

/// What the session kept of the last check of a file.
pub struct Previous<'a> {
    pub file: &'a FileRef,
    pub findings: &'a [Finding],
    pub chunks: &'a [Chunk],
    /// The index's findings in this file (malformed contracts, unknown names), among `findings`.
    pub index_findings: &'a [Finding],
}

/// The findings of an edited file, and its chunks.
pub struct Rechecked {
    pub findings: Vec<Finding>,
    pub chunks: Vec<Chunk>,
    /// How many items were checked again (the others kept their findings).
    pub items: usize,
    /// What other files may see differently now: the functions, types and constants the items
    /// checked again define (in the old text too), and the names an edit of declarations changed.
    pub changed: BTreeSet<String>,
}

/// An edit that may change declarations (a contract, an effect, a constant, an import of a
/// declaring file), checked against the index of the new text.
pub struct Reindexed<'x> {
    /// The index's findings in this file, for the new text.
    pub findings: &'x [Finding],
    /// The names other files define (functions, methods, constants, statics) whose meaning may
    /// depend on one of the given names: a helper of another file that pads with a constant of
    /// this one, or hands a parameter on to a kernel whose contract was edited, summarises
    /// differently now, and so do the items of this file that call it.
    pub elsewhere: &'x dyn Fn(&BTreeSet<String>) -> BTreeSet<String>,
}

/// The findings of `new` (an edited copy of `prev.file`) from the items the edit can change;
/// `None` when the whole file must be checked. `reindexed`: the edit may change declarations,
/// and `index` is the index of `new`: the items that name what the edited items declare (or
/// what depends on it: a constant defined from an edited one, a function of another file that
/// names one) are checked again, as the items linked to them are, and the index's findings
/// outside them must be those of the old text.
pub fn recheck(prev: &Previous, new: &FileRef, job: &FileJob, index: &Index, items: &crate::items::WorkspaceItems, reindexed: Option<Reindexed<'_>>) -> Option<Rechecked> {
    let old = prev.file;
    if job.external || new.text.starts_with('\u{feff}') || prev.chunks.is_empty() {
        return None;
    }
    if prev.findings.iter().any(|f| f.rule.name == reuse_rules::catalogue::PARSE_ERROR.name) {
        return None;
    }
    let (old_edit, _) = edited(&old.text, &new.text);
    let delta = new.text.len() as isize - old.text.len() as isize;
    let last = prev.chunks.len() - 1;
    // The chunks the edit touches: one, or a run of them (an edit at two places, or at a boundary).
    let k1 = prev.chunks.iter().position(|c| c.range.start <= old_edit.start && old_edit.start <= c.range.end)?;
    let mut k2 = prev.chunks.iter().rposition(|c| c.range.start <= old_edit.end && old_edit.end <= c.range.end)?;
    if k2 < k1 {
        return None;
    }
    let run = loop {
        let old_k = prev.chunks[k1].range.start..prev.chunks[k2].range.end;
        let new_end = usize::try_from(old_k.end as isize + delta).ok().filter(|&e| e >= old_k.start && e <= new.text.len())?;
        let parsed = parse_run(new, old_k.start..new_end, k1 == 0, k2 == last)?;
        match parsed {
            // Text left after the last item of the run: comments that now lead the next item (a
            // suppression among them would cover its first line); take that item in too.
            Run::Open if k2 < last => k2 += 1,
            Run::Open => return None,
            Run::Items(chunks) => break chunks,
        }
    };
    let old_k = prev.chunks[k1].range.start..prev.chunks[k2].range.end;
    let run_len = run.len();
    let mut chunks: Vec<Chunk> = prev.chunks[..k1].to_vec();
    chunks.extend(run);
    chunks.extend(prev.chunks[k2 + 1..].iter().map(|c| c.shifted(delta)));
    let run_new = k1..k1 + run_len;

    // The edit must change nothing the index holds (contracts, effects, constants): then the
    // index stays valid, and its ranges in this file only move. So the edited items declare
    // nothing, or the edit is inside one function body that declares nothing, old or new (the
    // body of a contracted function: its contract and signature are as they were).
    let old_run = &prev.chunks[k1..=k2];
    let (old_text, new_text) = (&old.text[old_k.clone()], &new.text[chunks[run_new.start].range.start..chunks[run_new.end - 1].range.end]);
    if reindexed.is_none() && (crate::engine::may_declare(old_text) || crate::engine::may_declare(new_text)) {
        let body = old_run[0].bodies.iter().find(|b| b.start <= old_edit.start && old_edit.end <= b.end)?;
        let new_body = body.start..usize::try_from(body.end as isize + delta).ok()?;
        let same_item = k1 == k2 && run_len == 1 && chunks[k1].bodies.contains(&new_body);
        if !same_item || crate::engine::may_declare(&old.text[body.clone()]) || crate::engine::may_declare(new.text.get(new_body)?) {
            return None;
        }
    }
    // A macro expands in any item that calls it: an edited one re-checks the file.
    if old_run.iter().chain(&chunks[run_new.clone()]).any(|c| c.defines_macro) {
        return None;
    }
    // A contract names fields of the file's structs (`self.vars.slots`), checked when the file is
    // indexed: a struct edited in a declaring file re-indexes it.
    if reindexed.is_none() && old_run.iter().chain(&chunks[run_new.clone()]).any(|c| c.defines_type) && (crate::engine::declares(&old.text) || crate::engine::declares(&new.text)) {
        return None;
    }
    let text_of = |i: usize| &new.text[chunks[i].range.clone()];
    // An edited `use` item or struct changes how the items that name what it changed resolve
    // their calls (an imported name, a field's type); a changed glob import, any item.
    let mut affected: BTreeSet<usize> = run_new.clone().collect();
    // A struct kept as context whose field names a changed name (`graph: Captured` after `use
    // .. as Captured;` is deleted): the items that use the struct resolve differently.
    let mut context_types: BTreeSet<&str> = BTreeSet::new();
    match changed_binds(old_run, &chunks[run_new.clone()]) {
        Some(changed) => {
            affected.extend((0..chunks.len()).filter(|&i| !chunks[i].is_context() && changed.iter().any(|n| mentions(text_of(i), n))));
            context_types.extend((0..chunks.len()).filter(|&i| chunks[i].is_context() && changed.iter().any(|n| mentions(text_of(i), n))).flat_map(|i| chunks[i].declared_types()));
            // A finding names what the file can spell (a fix writes the sentinel by its imported
            // name, else by its path): the items whose findings name a changed name.
            let new_of = |j: usize| if j < k1 { Some(j) } else if j > k2 { Some(j - (k2 + 1 - k1) + run_len) } else { None };
            for f in prev.findings.iter().filter(|f| same_file(&f.primary, old)) {
                let at = f.primary.range.start;
                let Some(j) = prev.chunks.iter().position(|c| c.range.start <= at && at < c.range.end) else { continue };
                if new_of(j).is_some() && changed.iter().any(|n| finding_mentions(f, n)) {
                    affected.extend(new_of(j));
                }
            }
        }
        None => affected.extend((0..chunks.len()).filter(|&i| !chunks[i].is_context())),
    }
    // What a declaration edit changes reaches the items that name it by a longer way too.
    let declared = match &reindexed {
        Some(r) => depends_on_declared(&old_run.iter().chain(&chunks[run_new.clone()]).collect::<Vec<_>>(), &chunks, &text_of, r.elsewhere),
        None => BTreeSet::new(),
    };
    let named = NameSet::of(declared.iter().map(String::as_str));
    affected.extend((0..chunks.len()).filter(|&i| !chunks[i].is_context() && named.named_in(text_of(i))));

    // The items whose findings may change: those, and every item linked to one of them by a
    // helper or a type, closed over these links. The names of the run's old text count too: an
    // item that called a helper the edit removed resolves differently now.
    let mut names: BTreeSet<&str> = old_run.iter().chain(&chunks[run_new.clone()]).flat_map(|c| c.fns.iter().map(String::as_str)).collect();
    names.extend(declared.iter().map(String::as_str));
    let mut types: BTreeSet<&str> = old_run.iter().chain(&chunks[run_new.clone()]).flat_map(|c| c.types.iter().map(String::as_str)).collect();
    types.extend(context_types);
    let mut texts: Vec<&str> = vec![old_text, new_text];
    texts.extend(affected.iter().filter(|i| !run_new.contains(i)).map(|&i| text_of(i)));
    close_over_links(&chunks, &text_of, &mut affected, names, types, texts);
    // What other files may see differently now: what the items checked again define, and
    // what the edit declared or removed.
    let defined = |c: &Chunk| c.fns.iter().chain(&c.types).chain(&c.consts).cloned().collect::<Vec<_>>();
    let mut changed: BTreeSet<String> = old_run.iter().flat_map(defined).collect();
    changed.extend(affected.iter().flat_map(|&i| defined(&chunks[i])));
    changed.extend(declared.iter().cloned());

    let line_delta = new_text.matches('\n').count() as isize - old_text.matches('\n').count() as isize;
    let shape = Shape { old_k, old_run: k1..k2 + 1, run_new, old_edit_end: old_edit.end, delta, line_delta, reindexed: reindexed.map(|r| r.findings) };
    let findings = check_affected(prev, new, job, index, items, &chunks, &affected, &shape)?;
    Some(Rechecked { findings, items: affected.len(), chunks, changed })
}

/// Extends `affected` with every item linked to one of them by a helper or a type, closed over
/// these links: an item that names a function or a type of `names`/`types` (or of an item taken),
/// or that defines one that `texts` (or an item taken) names or builds.
fn close_over_links<'t>(chunks: &'t [Chunk], text_of: &dyn Fn(usize) -> &'t str, affected: &mut BTreeSet<usize>, mut names: BTreeSet<&'t str>, mut types: BTreeSet<&'t str>, mut texts: Vec<&'t str>) {
    names.extend(affected.iter().flat_map(|&i| chunks[i].fns.iter().map(String::as_str)));
    types.extend(affected.iter().flat_map(|&i| chunks[i].types.iter().map(String::as_str)));
    // A name the file's `use` items give a function of it (`use self::kernels::write as put;`:
    // the items call `put`).
    let renames: Vec<(&str, &str)> = chunks.iter().filter(|c| c.is_use).flat_map(|c| &c.binds).filter_map(|(name, path)| Some((path.rsplit("::").next()?, name.as_str()))).filter(|(was, name)| was != name).collect();
    // Each round asks the items not yet taken only about what the last round added: an item
    // that matched nothing before can only be linked by something new.
    while !(names.is_empty() && types.is_empty() && texts.is_empty()) {
        let renamed: Vec<&str> = renames.iter().filter(|(was, _)| names.contains(was)).map(|(_, name)| *name).collect();
        names.extend(renamed);
        let named = NameSet::of(names.iter().copied());
        let linked: Vec<usize> = (0..chunks.len())
            .filter(|i| !affected.contains(i) && !chunks[*i].is_context())
            .filter(|&i| {
                let (c, t) = (&chunks[i], text_of(i));
                named.named_in(t)
                    || c.fns.iter().any(|n| texts.iter().any(|a| mentions(a, n)))
                    || c.types.iter().any(|ty| types.contains(ty.as_str()) || texts.iter().any(|a| builds(a, ty)))
                    || types.iter().any(|ty| builds(t, ty))
            })
            .collect();
        affected.extend(linked.iter().copied());
        names = linked.iter().flat_map(|&i| chunks[i].fns.iter().map(String::as_str)).collect();
        types = linked.iter().flat_map(|&i| chunks[i].types.iter().map(String::as_str)).collect();
        texts = linked.iter().map(|&i| text_of(i)).collect();
    }
}

/// The findings of a file whose text did not change, after other files changed what `names` name
/// (see [`Rechecked::changed`], with what other files define that depends on them:
/// [`named_elsewhere`]): the items that name one, those whose findings point into a file of
/// `files` (the files changed: their positions may have moved), and the items linked to them are
/// checked again against `index`, whose findings in this file are `index_findings`. `None`: check
/// the whole file.
pub fn refresh(prev: &Previous, job: &FileJob, index: &Index, items: &crate::items::WorkspaceItems, names: &BTreeSet<String>, files: &[&std::path::Path], index_findings: &[Finding]) -> Option<Rechecked> {
    let file = prev.file;
    if job.external || prev.chunks.is_empty() || prev.findings.iter().any(|f| f.rule.name == reuse_rules::catalogue::PARSE_ERROR.name) {
        return None;
    }
    let chunks = prev.chunks.to_vec();
    let text_of = |i: usize| &file.text[chunks[i].range.clone()];
    let named = NameSet::of(names.iter().map(String::as_str));
    let mut affected: BTreeSet<usize> = (0..chunks.len()).filter(|&i| !chunks[i].is_context() && named.named_in(text_of(i))).collect();
    let elsewhere = |l: &Label| files.contains(&l.file.path.as_path());
    for f in prev.findings.iter().filter(|f| same_file(&f.primary, file) && (elsewhere(&f.primary) || f.secondary.iter().any(elsewhere))) {
        affected.extend(chunks.iter().position(|c| c.range.start <= f.primary.range.start && f.primary.range.start < c.range.end));
    }
    let texts: Vec<&str> = affected.iter().map(|&i| text_of(i)).collect();
    close_over_links(&chunks, &text_of, &mut affected, names.iter().map(String::as_str).collect(), BTreeSet::new(), texts);
    let shape = Shape { old_k: 0..0, old_run: 0..0, run_new: 0..0, old_edit_end: usize::MAX, delta: 0, line_delta: 0, reindexed: Some(index_findings) };
    let findings = if affected.is_empty() && same_findings(prev.index_findings, index_findings) {
        prev.findings.to_vec()
    } else {
        check_affected(prev, file, job, index, items, &chunks, &affected, &shape)?
    };
    // The text did not change: other files see nothing new of it.
    Some(Rechecked { findings, items: affected.len(), chunks, changed: BTreeSet::new() })
}

/// Whether two lists of findings are the same to a user.
fn same_findings(a: &[Finding], b: &[Finding]) -> bool {
    let key = |f: &Finding| (f.rule.name, f.message.clone(), f.primary.range.clone());
    a.len() == b.len() && a.iter().map(key).eq(b.iter().map(key))
}

/// Where an edit was, for [`check_affected`]: the old range of the chunks it touched and their
/// indices in the new chunks, where the old text changed and by how much, the lines it added.
struct Shape<'x> {
    old_k: Range<usize>,
    /// The chunks the edit touched, in the old chunks and in the new.
    old_run: Range<usize>,
    run_new: Range<usize>,
    old_edit_end: usize,
    delta: isize,
    line_delta: isize,
    /// The index's findings in the file for the new text, when the edit changed declarations.
    reindexed: Option<&'x [Finding]>,
}

/// Checks the `affected` items of `new` (its `chunks`) in a masked copy of it and keeps the old
/// findings of the others, moved by the edit `shape` describes; `None`: check the whole file.
#[allow(clippy::too_many_arguments)]
fn check_affected(prev: &Previous, new: &FileRef, job: &FileJob, index: &Index, items: &crate::items::WorkspaceItems, chunks: &[Chunk], affected: &BTreeSet<usize>, shape: &Shape) -> Option<Vec<Finding>> {
    let (old, delta, run_new, old_k) = (prev.file, shape.delta, &shape.run_new, &shape.old_k);
    // The old index of a new chunk outside the run.
    let old_of = |i: usize| if i < run_new.start { i } else { i - run_new.len() + shape.old_run.len() };
    // Old findings of the items not checked again are kept; one that points into an affected
    // item would go stale.
    let old_ranges: Vec<Range<usize>> = affected.iter().map(|&i| if run_new.contains(&i) { old_k.clone() } else { prev.chunks[old_of(i)].range.clone() }).collect();
    let in_affected = |at: usize| old_ranges.iter().any(|r| r.contains(&at));
    let touches = |l: &Label| same_file(l, old) && old_ranges.iter().any(|r| l.range.start < r.end && l.range.end > r.start);
    let kept: Vec<&Finding> = prev.findings.iter().filter(|f| !(same_file(&f.primary, old) && in_affected(f.primary.range.start))).collect();
    if kept.iter().any(|f| touches(&f.primary) || f.secondary.iter().any(touches)) {
        return None;
    }

    let masked = mask(&new.text, chunks, affected)?;
    // `use reuse::..` anywhere in a file lets it name the attributes bare (`#[contract(..)]`).
    if masked.contains("use reuse::") != new.text.contains("use reuse::") {
        return None;
    }
    let masked = Arc::new(SourceFile::new(new.path.clone(), new.rel_path.clone(), masked));
    // The index's findings go through the suppressions with the analysis', as in a whole check.
    let moved_old: Vec<Finding> = prev
        .index_findings
        .iter()
        .map(|f| {
            let mut f = f.clone();
            relabel(&mut f, &|l| same_file(l, old), &masked, shape.old_edit_end, delta);
            f
        })
        .collect();
    let new_ranges: Vec<Range<usize>> = affected.iter().map(|&i| chunks[i].range.clone()).collect();
    let index_findings = match shape.reindexed {
        None => moved_old,
        Some(r) => {
            let found: Vec<Finding> = r
                .iter()
                .map(|f| {
                    let mut f = f.clone();
                    relabel(&mut f, &|l| same_file(l, new), &masked, 0, 0);
                    f
                })
                .collect();
            // Outside the items checked again the old findings are kept: the index must find
            // there what it found in the old text.
            let outside = |fs: &[Finding]| {
                let mut v: Vec<(&str, String, usize, usize)> = fs.iter().filter(|f| !new_ranges.iter().any(|r| r.contains(&f.primary.range.start))).map(|f| (f.rule.name, f.message.clone(), f.primary.range.start, f.primary.range.end)).collect();
                v.sort();
                v
            };
            if outside(&found) != outside(&moved_old) {
                return None;
            }
            found
        }
    };
    let fresh = check_masked(&masked, job, index, items, index_findings)?;

    let at_end = |at: usize| affected.contains(&(chunks.len() - 1)) && at == new.text.len();
    let mut out: Vec<Finding> = Vec::new();
    for mut f in fresh {
        if !(new_ranges.iter().any(|r| r.contains(&f.primary.range.start)) || at_end(f.primary.range.start)) {
            continue;
        }
        relabel(&mut f, &|l| Arc::ptr_eq(&l.file, &masked), new, 0, 0);
        // A label the index gave (at a contract of this file) is where the old text had it: it
        // moves if it is after the edit, which may be inside the run (an edited body of an
        // `impl` whose contract comes later).
        relabel(&mut f, &|l| !Arc::ptr_eq(&l.file, new) && same_file(l, old), new, shape.old_edit_end, delta);
        out.push(f);
    }
    // Messages that name a line (`... (line 12)`) of an item after the edit move with it.
    for f in kept {
        let mut f = f.clone();
        if same_file(&f.primary, old) && f.primary.range.start >= old_k.end {
            shift_line_numbers(&mut f, shape.line_delta);
        }
        relabel(&mut f, &|l| same_file(l, old), new, shape.old_edit_end, delta);
        out.push(f);
    }
    crate::finding::in_output_order(&mut out);
    Some(out)
}

/// The names whose meaning a declaration edit may change, besides the functions the edited items
/// define (`edited`: the old and the new chunks of the run): the constants they define and the
/// names their `use` items bind, the constants of the file written with one of those (to a
/// fixed point), and what other files define that depends on any of these or on the edited
/// functions (`elsewhere`).
fn depends_on_declared<'t>(edited: &[&Chunk], chunks: &[Chunk], text_of: &dyn Fn(usize) -> &'t str, elsewhere: &dyn Fn(&BTreeSet<String>) -> BTreeSet<String>) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = edited.iter().flat_map(|c| c.consts.iter().cloned()).collect();
    names.extend(edited.iter().filter(|c| c.is_use).flat_map(|c| c.binds.iter().map(|(n, _)| n.clone())).filter(|n| n != "*"));
    loop {
        let more: Vec<String> = (0..chunks.len())
            .filter(|&i| chunks[i].consts.iter().any(|k| !names.contains(k)) && names.iter().any(|n| mentions(text_of(i), n)))
            .flat_map(|i| chunks[i].consts.iter().cloned())
            .filter(|k| !names.contains(k))
            .collect();
        if more.is_empty() {
            break;
        }
        names.extend(more);
    }
    let mut asked = names.clone();
    asked.extend(edited.iter().flat_map(|c| c.fns.iter().cloned()));
    names.extend(elsewhere(&asked));
    names
}

/// The text of `new` with the items that can declare nothing the index holds blanked (offsets
/// kept), for indexing an edited file without parsing all of it: the chunks of its last parse
/// (`old` was their text) that the edit does not touch, hold no contract, effect, constant or
/// static and are no context (`use` items, structs, macros) nor a module, are blanked. `None`:
/// nothing to blank, or text the chunks cannot tell (a byte-order mark).
pub fn declarations_only(old: &str, new: &str, chunks: &[Chunk]) -> Option<String> {
    if new.starts_with('\u{feff}') || chunks.is_empty() {
        return None;
    }
    let (edit, _) = edited(old, new);
    let delta = new.len() as isize - old.len() as isize;
    let mut bytes = new.as_bytes().to_vec();
    let mut blanked = false;
    for c in chunks {
        let touched = c.range.start <= edit.end && edit.start <= c.range.end;
        let text = old.get(c.range.clone())?;
        if touched || c.is_context() || !c.values.is_empty() || crate::engine::may_declare(text) || text.contains("mod ") {
            continue;
        }
        let range = if c.range.start >= edit.end { shift(&c.range, delta) } else { c.range.clone() };
        for b in bytes.get_mut(range)? {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        blanked = true;
    }
    blanked.then(|| String::from_utf8(bytes).ok()).flatten()
}

/// What other files (`texts`) define that may depend on one of `names`: the functions, methods,
/// constants and statics of each file that names one, then of each file that names one of those,
/// as deep as a summary follows helpers ([`crate::dataflow::MAX_SUMMARY_DEPTH`]). Read from the
/// texts without parsing them: a name in a comment or a string counts (more items are checked
/// again, never fewer).
pub fn named_elsewhere(texts: &[&str], names: &BTreeSet<String>) -> BTreeSet<String> {
    named_elsewhere_in(texts, names).into_keys().collect()
}

/// [`named_elsewhere`], with the files (indices into `texts`) that define each name found.
pub fn named_elsewhere_in(texts: &[&str], names: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<usize>> {
    let mut found: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut frontier: Vec<String> = names.iter().cloned().collect();
    let mut read = vec![false; texts.len()];
    for _ in 0..=crate::dataflow::MAX_SUMMARY_DEPTH {
        if frontier.is_empty() {
            break;
        }
        let frontier_names = NameSet::of(frontier.iter().map(String::as_str));
        let mut next = BTreeSet::new();
        for (i, (text, read)) in texts.iter().zip(read.iter_mut()).enumerate().filter(|(_, (_, read))| !**read) {
            if frontier_names.named_in(text) {
                *read = true;
                for n in defined_names(text).into_iter().filter(|n| !names.contains(n)) {
                    if !found.contains_key(&n) {
                        next.insert(n.clone());
                    }
                    found.entry(n).or_default().insert(i);
                }
            }
        }
        frontier = next.into_iter().collect();
    }
    found
}

/// Every name a text writes after `fn`, `const` or `static` (`static mut`): the functions,
/// methods, constants and statics it defines, and a few words more.
fn defined_names(text: &str) -> Vec<String> {
    let ident = |c: u8| crate::engine::is_ident_byte(c) || c >= 0x80;
    let mut out = Vec::new();
    for keyword in ["fn", "const", "static"] {
        for (i, _) in text.match_indices(keyword) {
            if !crate::engine::whole_word(text.as_bytes(), i, i + keyword.len()) {
                continue;
            }
            let mut rest = text[i + keyword.len()..].trim_start();
            if let Some(after) = rest.strip_prefix("mut").filter(|r| r.starts_with(char::is_whitespace)) {
                rest = after.trim_start();
            }
            let len = rest.bytes().take_while(|&c| ident(c)).count();
            if len > 0 {
                out.push(rest[..len].to_string());
            }
        }
    }
    out
}

/// What the edited text of a run of chunks parses to, alone.
enum Run {
    Items(Vec<Chunk>),
    /// It parses, but text is left after its last item that is not the end of the file.
    Open,
}

/// Parses `file.text[range]` alone, as a sequence of items at its offset. `None` when it does
/// not parse, or holds what only the start of a file may (inner attributes, a shebang).
fn parse_run(file: &SourceFile, range: Range<usize>, at_start: bool, at_end: bool) -> Option<Run> {
    let text = &file.text[range.clone()];
    if crate::source::too_deep(text).is_some() {
        return None;
    }
    let parsed = crate::source::parse_text(text);
    let result = parsed.ok().and_then(|ast| {
        if !at_start && (!ast.attrs.is_empty() || ast.shebang.is_some()) {
            return None;
        }
        let base = range.start;
        let chunks = chunks(&ast.items, &|s: Span| {
            let r = crate::source::byte_range(s);
            base + r.start..base + r.end
        }, range.start, range.end)?;
        // A chunk after the last item (comments, blank lines) must be the end of the file.
        let open = chunks.len() > ast.items.len();
        Some(if open && !at_end { Run::Open } else { Run::Items(chunks) })
    });
    crate::source::invalidate_spans();
    result
}

/// The engine's per-file check (analysis, suppressions, configured levels) on the masked text,
/// with the index's findings `found` in it.
/// `None` when it does not parse, or a rule fails (the whole-file check then reports it).
fn check_masked(masked: &FileRef, job: &FileJob, index: &Index, items: &crate::items::WorkspaceItems, mut found: Vec<Finding>) -> Option<Vec<Finding>> {
    let findings = match masked.parse() {
        Ok(ast) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            found.extend(crate::analysis::analyze_file(masked, &ast, &job.crate_name, &job.module, index, items));
            crate::suppress::apply_suppressions(masked, Some(&ast), found)
        }))
        .ok(),
        Err(_) => None,
    };
    crate::source::invalidate_spans();
    let mut findings = findings?;
    for f in &mut findings {
        f.level = job.config.level(f.rule);
    }
    findings.retain(|f| f.level != Level::Allow);
    Some(findings)
}

fn same_file(l: &Label, file: &FileRef) -> bool {
    Arc::ptr_eq(&l.file, file) || l.file.path == file.path
}

/// Points the labels that `is_here` selects at `file`, moving those at or after `from` by `delta`.
fn relabel(f: &mut Finding, is_here: &dyn Fn(&Label) -> bool, file: &FileRef, from: usize, delta: isize) {
    let moved = |r: &Range<usize>| if r.start >= from { shift(r, delta) } else { r.clone() };
    let primary_here = is_here(&f.primary);
    for l in std::iter::once(&mut f.primary).chain(f.secondary.iter_mut()) {
        if is_here(l) {
            l.range = moved(&l.range);
            l.file = file.clone();
        }
    }
    // A fix edits the file of the primary label.
    if let Some(fix) = f.fix.as_mut().filter(|_| primary_here) {
        fix.range = moved(&fix.range);
    }
}

/// Adds `delta` to every `(line N)` in the texts of a finding. The rules name lines of the
/// finding's own function this way (`use_after_donate`: where the value was donated), so for a
/// finding in an item after the edit, the line moved exactly as far as the item did.
fn shift_line_numbers(f: &mut Finding, delta: isize) {
    if delta == 0 {
        return;
    }
    let texts = std::iter::once(&mut f.message).chain(f.help.iter_mut()).chain(f.notes.iter_mut());
    let labels = std::iter::once(&mut f.primary.message).chain(f.secondary.iter_mut().map(|l| &mut l.message));
    for text in texts.chain(labels) {
        if text.contains("(line ") {
            *text = shift_line_refs(text, delta);
        }
    }
}

fn shift_line_refs(text: &str, delta: isize) -> String {
    const OPEN: &str = "(line ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..at + OPEN.len()]);
        match (after[..digits].parse::<isize>(), after[digits..].starts_with(')')) {
            (Ok(n), true) => out.push_str(&(n + delta).max(1).to_string()),
            _ => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// Whether a text has a struct literal of `ty` (`Ty {`, `Ty{`).
fn builds(text: &str, ty: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices(ty).any(|(i, _)| {
        let end = i + ty.len();
        (i == 0 || !crate::engine::is_ident_byte(b[i - 1])) && text[end..].trim_start().starts_with('{')
    })
}

/// Whether `name` occurs as a word in `text` (in code, a comment or a string: a mention too many
/// only checks one more item).
/// Names, to ask whether a text names one of them (as a whole word, as [`mentions`] asks of one):
/// one automaton for all, each text read once.
enum NameSet {
    Empty,
    Automaton(aho_corasick::AhoCorasick),
    /// Too many names for an automaton: every text is taken to name one (more items are checked
    /// again, never fewer).
    Every,
}

impl NameSet {
    fn of<'n>(names: impl IntoIterator<Item = &'n str>) -> NameSet {
        let names: Vec<&str> = names.into_iter().filter(|n| !n.is_empty()).collect();
        if names.is_empty() {
            return NameSet::Empty;
        }
        aho_corasick::AhoCorasick::new(&names).map_or(NameSet::Every, NameSet::Automaton)
    }

    fn named_in(&self, text: &str) -> bool {
        match self {
            NameSet::Empty => false,
            NameSet::Automaton(a) => a.find_overlapping_iter(text).any(|m| crate::engine::whole_word(text.as_bytes(), m.start(), m.end())),
            NameSet::Every => true,
        }
    }
}

fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| crate::engine::whole_word(text.as_bytes(), i, i + name.len()))
}

/// Whether any text of a finding (message, labels, help, notes, fix) names `name`.
fn finding_mentions(f: &Finding, name: &str) -> bool {
    let labels = std::iter::once(&f.primary).chain(&f.secondary).map(|l| l.message.as_str());
    let texts = std::iter::once(f.message.as_str()).chain(labels).chain(f.help.as_deref()).chain(f.notes.iter().map(String::as_str));
    texts.chain(f.fix.as_ref().map(|x| x.replacement.as_str())).any(|t| mentions(t, name))
}


fn shift(r: &Range<usize>, delta: isize) -> Range<usize> {
    (r.start as isize + delta) as usize..(r.end as isize + delta) as usize
}

/// The changed byte range of the old and of the new text (common prefix and suffix removed).
pub fn edited(old: &str, new: &str) -> (Range<usize>, Range<usize>) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    let max_s = a.len().min(b.len()) - p;
    let mut s = a.iter().rev().zip(b.iter().rev()).take(max_s).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(a.len() - s) || !new.is_char_boundary(b.len() - s) {
        s -= 1;
    }
    (p..a.len() - s, p..b.len() - s)
}

/// The masked text: the `keep` chunks and the context chunks (`use` items, structs) as they are,
/// every other chunk blanked to spaces (newlines kept, so lines and offsets stay) but for the
/// constants and statics of its inline modules ([`Chunk::values`]).
fn mask(text: &str, chunks: &[Chunk], keep: &BTreeSet<usize>) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for (i, c) in chunks.iter().enumerate() {
        if keep.contains(&i) || c.is_context() {
            continue;
        }
        let start = c.range.start;
        for (k, b) in bytes.get_mut(c.range.clone())?.iter_mut().enumerate() {
            if *b != b'\n' && !c.values.iter().any(|v| v.contains(&(start + k))) {
                *b = b' ';
            }
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::engine::Session;
    use crate::workspace::Target;

    pub(crate) fn session(dir: &Path) -> Session {
        Session::open(&Target { path: Some(dir.to_path_buf()), ..Default::default() }).unwrap()
    }

    /// Everything a user sees of a finding, as one comparable string.
    pub(crate) fn key(f: &Finding) -> String {
        let labels: Vec<String> = std::iter::once(&f.primary).chain(&f.secondary).map(|l| format!("{}:{:?}:{}", l.file.rel_path, l.range, l.message)).collect();
        format!("{} {:?} {} | {} | {:?} {:?} {:?}", f.rule.name, f.level, f.message, labels.join(" ; "), f.fix.as_ref().map(|x| (&x.range, &x.replacement)), f.help, f.notes)
    }

    pub(crate) fn keys(findings: &[Finding]) -> Vec<String> {
        findings.iter().map(key).collect()
    }

    /// A fresh directory with `files` (relative path, text).
    pub(crate) fn workspace(name: &str, files: &[(&str, &str)]) -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("reuse-check-incremental-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (rel, text) in files {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::canonicalize(&dir).unwrap()
    }

    fn chunks_of_text(text: &str) -> Vec<Chunk> {
        let file: FileRef = Arc::new(SourceFile::new("x.rs".into(), "x.rs".into(), text.to_string()));
        let ast = file.parse().expect("parses");
        let out = chunks(&ast.items, &|s| file.range(s), 0, text.len()).expect("every item has an end");
        crate::source::invalidate_spans();
        out
    }

    /// Item boundaries come from the parse: braces in strings, chars, raw strings and comments,
    /// lifetimes, a `use` group and a struct literal in a `const` split nothing; comments and
    /// attributes belong to the item after them; the text after the last item is a chunk.
    #[test]
    fn chunks_are_the_parsed_items_with_what_precedes_them() {
        let text = "use a::{b};\n// c }\nfn f() { let s = \"}\"; let c = '}'; let r = r#\"}\"#; }\n\nstruct S<'a>(&'a str);\nconst K: S<'static> = S { 0: \"}\" };\n/* } */ #[cfg(x)]\nimpl S<'_> { fn g(&self) { fn inner() {} } }\nmod m { pub struct T { x: u8 } }\n// end\n";
        let chunks = chunks_of_text(text);
        let parts: Vec<&str> = chunks.iter().map(|c| &text[c.range.clone()]).collect();
        assert_eq!(parts.len(), 7, "{parts:#?}");
        assert_eq!(parts[0], "use a::{b};");
        assert!(parts[1].starts_with("\n// c }\nfn f()") && parts[1].ends_with("r#\"}\"#; }"));
        assert_eq!(parts[2].trim(), "struct S<'a>(&'a str);");
        assert_eq!(parts[3].trim(), "const K: S<'static> = S { 0: \"}\" };");
        assert!(parts[4].trim_start().starts_with("/* } */ #[cfg(x)]\nimpl") && parts[4].ends_with("} } }"));
        assert_eq!(parts[6], "\n// end\n");
        assert!(chunks[0].is_use && !chunks[1].is_use);
        assert!(chunks[2].defines_type && chunks[5].defines_type && !chunks[4].defines_type, "a struct in an inline module counts");
        assert_eq!(chunks[4].fns, ["g", "inner"]);
        assert_eq!(chunks[4].types, ["S"]);
        assert_eq!(chunks[1].fns, ["f"]);
    }

    /// A caller file that declares nothing, with suppressions, non-ASCII text and several findings.
    const USER: &str = r#"//! Callers. é
use crate::{reshape_and_cache, Row, PAD_SLOT_ID};

pub fn a(key: &[Row], cache: &mut [Row], n: usize) {
    let slots = vec![0; n]; // 😀
    reshape_and_cache(key, cache, &slots);
}

pub fn b(key: &[Row], cache: &mut [Row], n: usize) {
    // reuse-check: allow(pad_to_null_block) the cache is scratch here
    let slots = vec![0; n];
    reshape_and_cache(key, cache, &slots);
}

/// Correct.
pub fn c(key: &[Row], cache: &mut [Row], n: usize) {
    let slots = vec![PAD_SLOT_ID; n];
    reshape_and_cache(key, cache, &slots);
}

pub struct Runner { slots: Vec<i64>, cache: Vec<Row> }

impl Runner {
    pub fn new(n: usize) -> Runner {
        Runner { slots: vec![0; n], cache: Vec::new() }
    }

    pub fn dummy_run(&mut self, key: &[Row]) {
        let label = "漢字";
        reshape_and_cache(key, &mut self.cache, &self.slots);
        let _ = label;
    }
}

pub fn d(key: &[Row], cache: &mut [Row], n: usize) {
    // reuse-check: allow(pad_to_null_block) nothing to suppress
    let slots = vec![PAD_SLOT_ID; n];
    reshape_and_cache(key, cache, &slots);
}
"#;

    fn paged_kv_with(name: &str, user: &str) -> PathBuf {
        let lib = include_str!("../../fixtures/paged-kv/src/lib.rs").replace("pub mod buggy;\npub mod correct;\n", "pub mod user;\n");
        workspace(name, &[("src/lib.rs", &lib), ("src/user.rs", user)])
    }

    /// Edits from the text `from`, each checked by `live` (then edited back) and by a fresh
    /// session: the findings must be the same. Returns how many took the item path.
    fn edit_and_back(dir: &Path, from: &str, texts: impl IntoIterator<Item = String>) -> usize {
        let path = dir.join("src/user.rs");
        let (mut live, mut reference) = (session(dir), session(dir));
        let start = live.update(&path, from.to_string());
        let mut used = 0;
        for text in texts {
            let expected = keys(&reference.update(&path, text.clone()));
            let edit = live.edit(&path, text.clone());
            used += usize::from(edit.items.is_some());
            assert_eq!(keys(&edit.findings), expected, "edit to\n{text}");
            let back = live.edit(&path, from.to_string());
            assert_eq!(keys(&back.findings), keys(&start), "edited back from\n{text}");
        }
        used
    }

    /// Every edit that keeps the file parseable: the item path equals a full check, and so does
    /// the edit back.
    #[test]
    fn incremental_results_equal_a_full_check() {
        let dir = paged_kv_with("edits", USER);
        let mut texts: Vec<String> = Vec::new();
        let at = |a: usize, b: usize, ins: &str| format!("{}{}{}", &USER[..a], ins, &USER[b..]);
        // A space, a comment with non-ASCII text, a fix, a new finding, a new line, a deletion, at
        // many places.
        for (i, _) in USER.match_indices('\n') {
            texts.push(at(i, i, " "));
            texts.push(at(i, i, " /* é😀 */"));
        }
        let zero = USER.find("vec![0; n]; // 😀").unwrap() + 5;
        texts.push(at(zero, zero + 1, "PAD_SLOT_ID"));
        let pad = USER.rfind("vec![PAD_SLOT_ID; n]").unwrap() + 5;
        texts.push(at(pad, pad + "PAD_SLOT_ID".len(), "0"));
        let reason = USER.find("the cache is scratch here").unwrap();
        texts.push(at(reason, reason + "the cache is scratch here".len(), ""));
        let line = USER.find("        let _ = label;").unwrap();
        texts.push(at(line, line, "        let _second = \"é\";\n"));
        // Edits at two places at once (a multi-cursor edit): the run of items between them.
        let lines: Vec<usize> = USER.match_indices('\n').map(|(i, _)| i).collect();
        for (n, &i) in lines.iter().enumerate().step_by(3) {
            let Some(&j) = lines.get(n + 7) else { break };
            texts.push(format!("{} {} {}", &USER[..i], &USER[i..j], &USER[j..]));
        }
        let n = texts.len();
        let used = edit_and_back(&dir, USER, texts);
        assert!(used > n * 3 / 4, "the item path was taken {used} times of {n}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Edits that change the items of the file take the item path too: a function typed in, one
    /// deleted, one split off another, a suppression written above one; and their findings are
    /// those of a fresh check.
    #[test]
    fn edits_that_add_remove_or_split_items_take_the_item_path() {
        let dir = paged_kv_with("structure", USER);
        let new_fn = "\npub fn e(key: &[Row], cache: &mut [Row], n: usize) {\n    let slots = vec![0; n];\n    reshape_and_cache(key, cache, &slots);\n}\n";
        let c_start = USER.find("/// Correct.").unwrap();
        let c_end = USER.find("pub struct Runner").unwrap();
        let a_end = USER.find("\n\npub fn b").unwrap();
        let texts = vec![
            // Typed in between two functions, with its finding.
            format!("{}{new_fn}{}", &USER[..c_start], &USER[c_start..]),
            // At the end of the file.
            format!("{USER}{new_fn}"),
            // A whole function deleted.
            format!("{}{}", &USER[..c_start], &USER[c_end..]),
            // A function split in two: the closing brace and a new header typed in its middle.
            USER.replace("    let slots = vec![0; n]; // 😀\n", "    let slots = vec![0; n]; // 😀\n}\n\npub fn a2(key: &[Row], cache: &mut [Row], slots: Vec<i64>) {\n"),
            // A suppression written above a finding, in the gap between two items.
            format!("{}\n// reuse-check: allow(pad_to_null_block) scratch\n{}", &USER[..a_end + 1], &USER[a_end + 1..]),
        ];
        let n = texts.len();
        assert_eq!(edit_and_back(&dir, USER, texts), n, "every one of these takes the item path");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A helper (no contract) that pads with 0 makes its callers' calls findings: editing the
    /// helper re-checks its callers, and only them; a caller of the caller, too. Editing an
    /// import takes the whole-file check.
    #[test]
    fn editing_a_helper_rechecks_the_items_that_use_it() {
        let user = "use crate::{reshape_and_cache, Row, PAD_SLOT_ID};\n\nfn pad(n: usize) -> Vec<i64> {\n    vec![PAD_SLOT_ID; n]\n}\n\npub fn caller(key: &[Row], cache: &mut [Row], n: usize) {\n    let slots = pad(n);\n    reshape_and_cache(key, cache, &slots);\n}\n\npub fn unrelated(key: &[Row], cache: &mut [Row], n: usize) {\n    let slots = vec![0; n];\n    reshape_and_cache(key, cache, &slots);\n}\n\npub fn outer(key: &[Row], cache: &mut [Row], n: usize) {\n    caller(key, cache, n);\n}\n";
        let dir = paged_kv_with("helper", user);
        let path = dir.join("src/user.rs");
        let mut live = session(&dir);
        let start = live.update(&path, user.to_string());
        assert_eq!(start.iter().filter(|f| f.rule.name == "pad_to_null_block").count(), 1, "{:#?}", keys(&start));
        let zero = user.replace("vec![PAD_SLOT_ID; n]", "vec![0; n]");
        let edit = live.edit(&path, zero.clone());
        let fresh = session(&dir).update(&path, zero);
        assert_eq!(keys(&edit.findings), keys(&fresh));
        assert_eq!(fresh.iter().filter(|f| f.rule.name == "pad_to_null_block").count(), 2, "the caller's call is found: {:#?}", keys(&fresh));
        assert_eq!(edit.items, Some(3), "the helper, its caller and the caller's caller; not `unrelated`");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An edited import or struct re-checks the items that name what changed: a name imported
    /// (or no longer), a field's type, a field added; a glob import, every item. Each equals a
    /// fresh check, and so does the edit back.
    #[test]
    fn editing_an_import_or_a_struct_rechecks_the_items_that_name_what_changed() {
        let dir = paged_kv_with("context", USER);
        let path = dir.join("src/user.rs");
        let import = "use crate::{reshape_and_cache, Row, PAD_SLOT_ID};";
        let cases: Vec<(String, Option<usize>)> = vec![
            // The same names, imported by two items: nothing changed but that item.
            (USER.replace(import, "use crate::{reshape_and_cache, Row};\nuse crate::PAD_SLOT_ID;"), Some(2)),
            // A name no item uses.
            (USER.replace(import, "use crate::{paged_attention, reshape_and_cache, Row, PAD_SLOT_ID};"), Some(1)),
            // The sentinel no longer imported: the items that name it (c, d), and those whose
            // findings spell it in their fix or help (a, the runner).
            (USER.replace(import, "use crate::{reshape_and_cache, Row};"), Some(5)),
            // A glob: every item (the struct only as context).
            (USER.replace(import, "use crate::*;"), Some(7)),
            // A field's type: the items that name the field (by name: the runner's impl, and the
            // four functions with a parameter `cache`).
            (USER.replace("cache: Vec<Row> }", "cache: Vec<[f32; 2]> }"), Some(6)),
            // A field added: the items that name the struct.
            (USER.replace("cache: Vec<Row> }", "cache: Vec<Row>, spare: u8 }"), Some(2)),
        ];
        for (text, items) in cases {
            let mut live = session(&dir);
            let start = live.update(&path, USER.to_string());
            let edit = live.edit(&path, text.clone());
            assert_eq!(keys(&edit.findings), keys(&session(&dir).update(&path, text.clone())), "edit to\n{text}");
            assert_eq!(edit.items, items, "edit to\n{text}");
            let back = live.edit(&path, USER.to_string());
            assert_eq!(keys(&back.findings), keys(&start), "back from\n{text}");
            assert!(back.items.is_some());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Text that does not parse takes the whole-file check (a `parse_error`); the edits that follow
    /// are taken from the last text that parsed, so the one that repairs it (or another that
    /// does not parse yet) compares with that, and the repair takes the item path.
    #[test]
    fn an_edit_through_a_parse_error_and_back() {
        let dir = paged_kv_with("broken", USER);
        let path = dir.join("src/user.rs");
        let mut live = session(&dir);
        live.update(&path, USER.to_string());
        let open = USER.replace("let label = \"漢字\";", "let label = (\"漢字\";");
        let edit = live.edit(&path, open.clone());
        assert_eq!(edit.items, None);
        assert!(edit.findings.iter().any(|f| f.rule.name == "parse_error"), "{:#?}", keys(&edit.findings));
        let still = open.replace("(\"漢字\";", "(\"漢字\", 1;");
        assert_eq!(keys(&live.edit(&path, still.clone()).findings), keys(&session(&dir).update(&path, still)));
        for repaired in [USER.replace("let label = \"漢字\";", "let label = (\"漢字\", 1);"), USER.to_string()] {
            let edit = live.edit(&path, repaired.clone());
            assert!(edit.items.is_some(), "the repair takes the item path:\n{repaired}");
            assert_eq!(keys(&edit.findings), keys(&session(&dir).update(&path, repaired)));
        }
        // Straight back to the text that parsed: its findings, and the session's copy is it again.
        live.edit(&path, open);
        let back = live.edit(&path, USER.to_string());
        assert_eq!(back.items, Some(0));
        assert_eq!(live.file(&path).unwrap().text, USER);
        assert_eq!(keys(&back.findings), keys(&live.check_file(&path)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file that declares a contract after its callers: edits elsewhere take the item path, and
    /// the session's index moves with the text, so that a full check of the session, and its
    /// secondary labels into this file, equal a check from scratch.
    #[test]
    fn a_declaring_file_is_rechecked_item_by_item_and_its_index_moves() {
        let declaring = format!(
            "{USER}\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn local_write(cache: &mut [Row], slots: &[i64]) {{}}\n\npub fn e(cache: &mut [Row], n: usize) {{\n    let slots = vec![0; n];\n    local_write(cache, &slots);\n}}\n"
        );
        let dir = paged_kv_with("declaring", &declaring);
        let path = dir.join("src/user.rs");
        let mut reference = session(&dir);
        let mut texts: Vec<String> = declaring.match_indices('\n').map(|(i, _)| format!("{} /* é😀 */{}", &declaring[..i], &declaring[i..])).collect();
        let zero = declaring.find("vec![0; n]; // 😀").unwrap() + 5;
        texts.push(format!("{}PAD_SLOT_ID{}", &declaring[..zero], &declaring[zero + 1..]));
        let mut used = 0;
        for text in texts {
            let mut live = session(&dir);
            live.update(&path, declaring.clone());
            let expected = keys(&reference.update(&path, text.clone()));
            let edit = live.edit(&path, text.clone());
            assert_eq!(keys(&edit.findings), expected, "edit to\n{text}");
            used += usize::from(edit.items.is_some());
            assert_eq!(keys(&live.check_file(&path)), expected, "the session's index moved with the edit to\n{text}");
        }
        assert!(used > 10, "the item path was taken {used} times");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Issue 11: the item path must give what a fresh check of the final text gives, after any
/// sequence of edits, including findings that depend on another item (a field's type) and
/// messages that name a line.
#[cfg(test)]
mod equivalence {
    use proptest::prelude::*;

    use super::tests::{keys, session, workspace};

    const LIB: &str = include_str!("../testdata/editor-lib.rs.txt");
    /// A caller file that declares nothing: a finding through a field's type (`self.kv`), one
    /// whose message names a line, a suppression, and items in between.
    const USER: &str = include_str!("../testdata/editor-user.rs.txt");

    #[derive(Clone, Debug)]
    enum Edit {
        BlankLineBefore(usize),
        DeleteLineIfBlank(usize),
        SpacesAtStart(usize, usize),
        SpacesAtEnd(usize, usize),
        DuplicateLine(usize),
        DeleteLine(usize),
        /// A function that pads with 0 typed in before a line (inside another item, it nests).
        InsertFunction(usize),
        /// The `k`th `PAD_SLOT_ID` becomes `0`, or the `k`th `vec![0` becomes `vec![PAD_SLOT_ID`.
        TogglePad(usize),
        /// An import or a struct edited, or edited back (see [`SWAPS`]).
        Swap(usize),
    }

    /// Edits of the items every other item resolves through.
    const SWAPS: &[(&str, &str)] = &[
        ("read, relu_inplace, Buf,", "relu_inplace, Buf,"),
        ("Buf, PagedKv, PAD_SLOT_ID}", "Buf, PagedKv}"),
        ("use crate::{read,", "use crate::*;\nuse crate::{read,"),
        ("spare: PagedKv,", "spare: Vec<f32>,"),
        ("    kv: PagedKv,\n", "    kv: PagedKv,\n    extra: u8,\n"),
        ("pub struct Runner {", "pub struct Runner2 {"),
    ];

    fn edit_strategy() -> impl Strategy<Value = Edit> {
        prop_oneof![
            4 => any::<usize>().prop_map(Edit::BlankLineBefore),
            2 => any::<usize>().prop_map(Edit::DeleteLineIfBlank),
            2 => (any::<usize>(), 1..4usize).prop_map(|(l, n)| Edit::SpacesAtStart(l, n)),
            2 => (any::<usize>(), 1..4usize).prop_map(|(l, n)| Edit::SpacesAtEnd(l, n)),
            1 => any::<usize>().prop_map(Edit::DuplicateLine),
            1 => any::<usize>().prop_map(Edit::DeleteLine),
            1 => any::<usize>().prop_map(Edit::InsertFunction),
            2 => any::<usize>().prop_map(Edit::TogglePad),
            2 => any::<usize>().prop_map(Edit::Swap),
        ]
    }

    fn apply(text: &str, edit: &Edit) -> String {
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let n = lines.len();
        match *edit {
            Edit::BlankLineBefore(l) => lines.insert(l % n, String::new()),
            Edit::DeleteLineIfBlank(l) => {
                if lines[l % n].trim().is_empty() && n > 1 {
                    lines.remove(l % n);
                }
            }
            Edit::SpacesAtStart(l, k) => lines[l % n].insert_str(0, &" ".repeat(k)),
            Edit::SpacesAtEnd(l, k) => lines[l % n].push_str(&" ".repeat(k)),
            Edit::DuplicateLine(l) => {
                let line = lines[l % n].clone();
                lines.insert(l % n, line);
            }
            Edit::DeleteLine(l) => {
                if n > 1 {
                    lines.remove(l % n);
                }
            }
            Edit::InsertFunction(l) => lines.insert(l % n, format!("pub fn typed_{l}(r: &mut Runner, n: usize) {{\n    let s = vec![0; n];\n    r.kv.write(&s);\n}}")),
            Edit::TogglePad(k) => {
                let text = lines.join("\n");
                let spots: Vec<(usize, &str, &str)> =
                    text.match_indices("PAD_SLOT_ID; n]").map(|(i, _)| (i, "PAD_SLOT_ID", "0")).chain(text.match_indices("vec![0; n]").map(|(i, _)| (i + 5, "0", "PAD_SLOT_ID"))).collect();
                let Some(&(at, from, to)) = spots.get(k % spots.len().max(1)) else { return text };
                return format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
            }
            Edit::Swap(k) => {
                let text = lines.join("\n");
                let (a, b) = SWAPS[k % SWAPS.len()];
                return if text.contains(a) { text.replacen(a, b, 1) } else { text.replacen(b, a, 1) };
            }
        }
        lines.join("\n")
    }

    fn files() -> [(&'static str, &'static str); 2] {
        [("src/lib.rs", LIB), ("src/user.rs", USER)]
    }

    /// The reported case: the finding through `self.kv` is there on open and after a blank line
    /// inserted in the method; a `(line N)` after the edit moves with it.
    #[test]
    fn a_blank_line_in_a_method_keeps_a_finding_that_needs_a_field_type() {
        let dir = workspace("field", &files());
        let path = dir.join("src/user.rs");
        let mut live = session(&dir);
        let start = live.update(&path, USER.to_string());
        let rules: Vec<&str> = start.iter().map(|f| f.rule.name).collect();
        assert_eq!(rules, ["pad_to_null_block", "use_after_donate", "use_after_donate"], "{:#?}", keys(&start));
        let at = USER.find("        self.kv.write(&slots);").unwrap();
        let text = format!("{}\n{}", &USER[..at], &USER[at..]);
        let got = live.edit(&path, text.clone());
        assert_eq!(got.items, Some(1), "the item path");
        assert_eq!(keys(&got.findings), keys(&session(&dir).update(&path, text)));
        assert!(got.findings.iter().any(|f| f.rule.name == "pad_to_null_block"));
        assert!(got.findings.iter().any(|f| f.message.contains("(line 22)")), "{:#?}", keys(&got.findings));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `text` as `src/plans.rs` next to the other two files, checked, then edited: the findings
    /// before, what the edit gave, and a fresh check of the edited text.
    fn plans_edited(name: &str, text: &str, edited: &str) -> (Vec<crate::finding::Finding>, crate::engine::Edit, Vec<crate::finding::Finding>) {
        let dir = workspace(name, &[("src/lib.rs", LIB), ("src/user.rs", USER), ("src/plans.rs", text)]);
        let path = dir.join("src/plans.rs");
        let mut live = session(&dir);
        let start = live.update(&path, text.to_string());
        let got = live.edit(&path, edited.to_string());
        let want = session(&dir).update(&path, edited.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        (start, got, want)
    }

    /// A helper's body counts for the effects of a function with `preserves(..)` in another item:
    /// editing the helper re-checks that function too.
    #[test]
    fn editing_a_helper_that_a_preserving_function_follows_rechecks_that_function() {
        let text = "use std::collections::HashMap;\n\n#[reuse::effect]\npub fn log_step() {}\n\npub struct Plans {\n    plans: HashMap<u64, u64>,\n}\n\nimpl Plans {\n    #[reuse::contract(preserves(log_step))]\n    pub fn get(&mut self, k: u64) -> u64 {\n        self.effects();\n        *self.plans.entry(k).or_insert(k)\n    }\n}\n\nimpl Plans {\n    fn effects(&mut self) {\n        log_step();\n    }\n}\n";
        let (start, got, want) = plans_edited("preserving", text, &text.replace("        log_step();\n    }\n}\n", "    }\n}\n"));
        assert!(start.iter().all(|f| f.rule.name != "hit_skips_effect"), "{:#?}", keys(&start));
        assert!(want.iter().any(|f| f.rule.name == "hit_skips_effect"), "{:#?}", keys(&want));
        assert_eq!(keys(&got.findings), keys(&want));
        assert_eq!(got.items, Some(3), "the helper, the function that follows it, and the effect the helper calls");
    }

    /// A function linked to the edited helper keeps its contract's own errors (findings of the
    /// index, not of the analysis), and a suppression of one is still used.
    #[test]
    fn a_linked_item_keeps_the_index_findings_of_its_contract() {
        let text = "#[reuse::effect]\npub fn log_step() {}\n\n#[reuse::contract(preserves(log_step), writes(nowhere[slots], skip = -1))]\npub fn get(k: u64) -> u64 {\n    effects();\n    k\n}\n\n// reuse-check: allow(unknown_name) kept on purpose\n#[reuse::contract(writes(elsewhere[slots], skip = -1))]\npub fn put(k: u64) -> u64 {\n    effects();\n    k\n}\n\nfn effects() {\n    log_step();\n}\n";
        let (start, got, want) = plans_edited("index-findings", text, &text.replace("    log_step();\n}", "    log_step();\n    log_step();\n}"));
        assert!(start.iter().any(|f| f.rule.name == "unknown_name"), "{:#?}", keys(&start));
        assert_eq!(keys(&got.findings), keys(&want));
        assert!(got.items.is_some_and(|n| n >= 3), "{:?}", got.items);
    }

    /// An edit inside the body of a contracted function re-checks it (its own contract's rules
    /// see the new body) with the index only moved; an edit of its contract, or one that writes
    /// a constant into the body, re-indexes the file and re-checks the items that name the
    /// function.
    #[test]
    fn an_edit_inside_the_body_of_a_contracted_function_takes_the_item_path() {
        let text = "use std::collections::HashMap;\n\n#[reuse::effect]\npub fn log_step() {}\n\npub struct Plans {\n    plans: HashMap<u64, u64>,\n}\n\nimpl Plans {\n    #[reuse::contract(preserves(log_step))]\n    pub fn get(&mut self, k: u64) -> u64 {\n        log_step();\n        *self.plans.entry(k).or_insert(k)\n    }\n}\n\npub fn after() -> u64 {\n    1\n}\n";
        let dir = workspace("contracted-body", &[("src/lib.rs", LIB), ("src/user.rs", USER), ("src/plans.rs", text)]);
        let path = dir.join("src/plans.rs");
        let cases = [
            // The effect dropped from the body: `hit_skips_effect`.
            (text.replace("        log_step();\n        *self", "        *self"), true),
            // A blank line: the findings after it move.
            (text.replace("        log_step();\n", "        log_step();\n\n"), true),
            (text.replace("        log_step();\n", "        const K: u64 = 1;\n        log_step();\n"), true),
            (text.replace("preserves(log_step)", "preserves()"), true),
        ];
        let dropped = session(&dir).update(&path, cases[0].0.clone());
        assert!(dropped.iter().any(|f| f.rule.name == "hit_skips_effect"), "{:#?}", keys(&dropped));
        for (edited, item_path) in cases {
            let mut live = session(&dir);
            live.update(&path, text.to_string());
            let got = live.edit(&path, edited.clone());
            let want = keys(&session(&dir).update(&path, edited.clone()));
            assert_eq!(keys(&got.findings), want, "edit to\n{edited}");
            assert_eq!(got.items.is_some(), item_path, "edit to\n{edited}");
            assert_eq!(keys(&live.check_file(&path)), want, "the index moved with the edit to\n{edited}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A kernel's contract edited in a file that also calls it: the file is indexed again and the
    /// callers re-checked by the item path, with the findings of a fresh check, here and in a
    /// file that calls the kernel; a bracket typed in that file keeps its declarations, so other
    /// files keep their findings and the closing bracket takes the item path.
    #[test]
    fn a_contract_edited_in_its_file_takes_the_item_path() {
        let text = "pub const PAD_SLOT_ID: i64 = -1;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_local(cache: &mut [f32], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n\npub fn caller(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    write_local(cache, &slots);\n}\n\npub fn unrelated(n: usize) -> usize {\n    n + 1\n}\n";
        let other = "use crate::write_local;\n\npub fn elsewhere(cache: &mut [f32], n: usize) {\n    write_local(cache, &vec![0; n]);\n}\n";
        let dir = workspace("contract-edited", &[("src/lib.rs", "pub mod kv;\npub mod other;\npub use kv::write_local;\n"), ("src/kv.rs", text), ("src/other.rs", other)]);
        let (path, other_path) = (dir.join("src/kv.rs"), dir.join("src/other.rs"));
        let cases = [
            // The contract without its sentinel: no finding at the caller.
            text.replace("writes(cache[slots], skip = PAD_SLOT_ID)", "writes(cache[slots])"),
            // The sentinel written by its value: the same findings.
            text.replace("skip = PAD_SLOT_ID", "skip = -1"),
            // A malformed contract: `contract_syntax` at its token.
            text.replace("skip = PAD_SLOT_ID", "skip = "),
            // The contract removed.
            text.replace("#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\n", ""),
        ];
        for edited in cases {
            let mut live = session(&dir);
            live.update(&path, text.to_string());
            live.update(&other_path, other.to_string());
            let got = live.edit(&path, edited.clone());
            let mut fresh = session(&dir);
            let want = keys(&fresh.update(&path, edited.clone()));
            assert_eq!(keys(&got.findings), want, "edit to\n{edited}");
            assert!(got.items.is_some_and(|n| n < 3), "the item path, without `unrelated`: {:?}\n{edited}", got.items);
            assert!(got.index_changed);
            assert_eq!(keys(&live.check_file(&other_path)), keys(&fresh.update(&other_path, other.to_string())), "the other file after\n{edited}");
        }
        // A bracket typed, then closed.
        let mut live = session(&dir);
        live.update(&path, text.to_string());
        let before = keys(&live.update(&other_path, other.to_string()));
        let open = text.replace("n + 1", "(n + 1");
        let broken = live.edit(&path, open);
        assert!(broken.items.is_none() && !broken.index_changed && broken.findings.iter().all(|f| f.rule.name == "parse_error"));
        assert_eq!(keys(&live.check_file(&other_path)), before, "the declarations of the last text that parsed");
        assert!(live.edit(&path, text.to_string()).items.is_some(), "closed: the item path");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A constant or an import edited in a file that declares a contract re-indexes it and
    /// re-checks the items that depend on what changed: those that name the constant, a
    /// constant written with it, a function whose contract names it (also by a name an import
    /// gives it), or a helper of another file that names it, with the findings of a fresh
    /// check, here and in the other file; an item that depends on none is not checked again.
    #[test]
    fn a_constant_or_an_import_edited_in_a_declaring_file_takes_the_item_path() {
        let text = "use self::write_local as put;\nuse crate::other::pad;\n\npub const PAD_SLOT_ID: i64 = -1;\npub const NULL_SLOT: i64 = -1;\npub const DUMMY_SLOT: i64 = NULL_SLOT;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_local(cache: &mut [f32], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n\npub fn zero_caller(cache: &mut [f32], n: usize) {\n    write_local(cache, &vec![0; n]);\n}\n\npub fn renamed_caller(cache: &mut [f32], n: usize) {\n    put(cache, &vec![0; n]);\n}\n\npub fn dummy_caller(cache: &mut [f32], n: usize) {\n    let slots = vec![DUMMY_SLOT; n];\n    write_local(cache, &slots);\n}\n\npub fn foreign_caller(cache: &mut [f32], n: usize) {\n    let slots = crate::other::null_padded(n);\n    crate::other::forward(cache, &slots);\n}\n\npub fn imported_caller(cache: &mut [f32], n: usize) {\n    write_local(cache, &pad(n));\n}\n\npub fn unrelated(n: usize) -> usize {\n    n + 1\n}\n";
        let other = "use crate::kv::write_local;\n\npub fn null_padded(n: usize) -> Vec<i64> {\n    vec![crate::kv::NULL_SLOT; n]\n}\n\npub fn pad(n: usize) -> Vec<i64> {\n    vec![-1; n]\n}\n\npub fn pad_zero(n: usize) -> Vec<i64> {\n    vec![0; n]\n}\n\npub fn elsewhere(cache: &mut [f32], n: usize) {\n    write_local(cache, &vec![0; n]);\n}\n\npub fn forward(cache: &mut [f32], slots: &[i64]) {\n    write_local(cache, slots);\n}\n";
        let dir = workspace("constant-edited", &[("src/lib.rs", "pub mod kv;\npub mod other;\n"), ("src/kv.rs", text), ("src/other.rs", other)]);
        let (path, other_path) = (dir.join("src/kv.rs"), dir.join("src/other.rs"));
        let cases = [
            // The sentinel is 0: padding with 0 is padding with it (no finding at the zero and
            // renamed callers).
            (text.replace("pub const PAD_SLOT_ID: i64 = -1;", "pub const PAD_SLOT_ID: i64 = 0;"), ["zero_caller", "renamed_caller"].as_slice()),
            // A constant that another one is written with, and a helper of the other file uses.
            (text.replace("pub const NULL_SLOT: i64 = -1;", "pub const NULL_SLOT: i64 = 0;"), ["dummy_caller", "foreign_caller"].as_slice()),
            // An import: the helper of that name pads with 0 now.
            (text.replace("use crate::other::pad;", "use crate::other::pad_zero as pad;"), ["imported_caller"].as_slice()),
            // A constant added.
            (text.replace("pub const NULL_SLOT", "pub const EXTRA: i64 = 3;\npub const NULL_SLOT"), [].as_slice()),
        ];
        // The findings in the body of function `f` of text `t`.
        let found_in = |fs: &[crate::finding::Finding], t: &str, f: &str| {
            let start = t.find(&format!("fn {f}(")).unwrap();
            let body = start..start + t[start..].find("\n}\n").unwrap();
            fs.iter().filter(|x| x.primary.file.rel_path == "src/kv.rs" && body.contains(&x.primary.range.start)).count()
        };
        for (edited, changed) in cases {
            let mut live = session(&dir);
            let before = live.update(&path, text.to_string());
            live.update(&other_path, other.to_string());
            let got = live.edit(&path, edited.clone());
            let mut fresh = session(&dir);
            let want = fresh.update(&path, edited.clone());
            assert_eq!(keys(&got.findings), keys(&want), "edit to\n{edited}");
            assert!(got.items.is_some_and(|n| n <= 8), "the item path, without `unrelated`: {:?}\n{edited}", got.items);
            assert!(got.index_changed);
            let refreshed = live.edit(&other_path, other.to_string());
            assert_eq!(keys(&refreshed.findings), keys(&fresh.update(&other_path, other.to_string())), "the other file after\n{edited}");
            assert!(refreshed.items.is_some(), "the other file, its text unchanged, takes the item path after\n{edited}");
            // Each case changes the findings of the callers it names (the test checks something).
            for f in changed {
                assert_ne!(found_in(&before, text, f), found_in(&want, &edited, f), "{f} after\n{edited}\n{:#?}\n{:#?}", keys(&before), keys(&want));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A helper of a file that declares nothing pads with 0 after an edit: another open file that
    /// calls it finds that at its next check although its own text did not change (it kept its
    /// old findings before), from the items that name the helper only; and back.
    #[test]
    fn an_edited_helper_of_another_file_changes_the_findings_of_its_callers() {
        let lib = "pub mod helpers;\npub mod user;\n\npub const PAD_SLOT_ID: i64 = -1;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_kv(cache: &mut [f32], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n";
        let helpers = "use crate::PAD_SLOT_ID;\n\npub fn pad(real: &[i64], n: usize) -> Vec<i64> {\n    let mut v = real.to_vec();\n    v.resize(n, PAD_SLOT_ID);\n    v\n}\n\npub fn unrelated(n: usize) -> usize {\n    n + 1\n}\n";
        let user = "use crate::write_kv;\nuse crate::helpers::pad;\n\npub fn padded(cache: &mut [f32], real: &[i64], n: usize) {\n    write_kv(cache, &pad(real, n));\n}\n\npub fn zero(cache: &mut [f32], n: usize) {\n    write_kv(cache, &vec![0; n]);\n}\n\npub fn counted(n: usize) -> usize {\n    crate::helpers::unrelated(n)\n}\n";
        let dir = workspace("helper-elsewhere", &[("src/lib.rs", lib), ("src/helpers.rs", helpers), ("src/user.rs", user)]);
        let (helpers_path, user_path) = (dir.join("src/helpers.rs"), dir.join("src/user.rs"));
        let mut live = session(&dir);
        live.update(&helpers_path, helpers.to_string());
        let before = live.update(&user_path, user.to_string());
        let zeroed = helpers.replace("v.resize(n, PAD_SLOT_ID);", "v.resize(n, 0);");
        for (text, findings) in [(zeroed.as_str(), before.len() + 1), (helpers, before.len())] {
            assert!(live.edit(&helpers_path, text.to_string()).items.is_some(), "a body edit takes the item path");
            let got = live.edit(&user_path, user.to_string());
            let mut fresh = session(&dir);
            fresh.update(&helpers_path, text.to_string());
            let want = fresh.update(&user_path, user.to_string());
            assert_eq!(keys(&got.findings), keys(&want), "the caller after the helper became\n{text}");
            assert_eq!(got.findings.len(), findings, "{:#?}", keys(&got.findings));
            // `padded` names the helper, `counted` another function of its file (other files are
            // read by the names they define, whole: `named_elsewhere`); not `zero`.
            assert_eq!(got.items, Some(2), "only the items that name what the edit changed");
            // Nothing changed since: answered at once.
            assert_eq!(live.edit(&user_path, user.to_string()).items, Some(0));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A `macro_rules!` of another file (`#[macro_use] mod macros;`) pads with 0 after an edit:
    /// another open file that calls it finds that at its next check, as a fresh check does; and
    /// back.
    #[test]
    fn an_edited_macro_of_another_file_changes_the_findings_of_its_callers() {
        let lib = "#[macro_use]\nmod macros;\npub mod user;\n\npub const PAD_SLOT_ID: i64 = -1;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write_kv(cache: &mut [f32], slots: &[i64]) {\n    let _ = (cache, slots);\n}\n";
        let macros = "macro_rules! padded {\n    ($real:expr, $n:expr) => {{\n        let mut v: Vec<i64> = $real.to_vec();\n        v.resize($n, crate::PAD_SLOT_ID);\n        v\n    }};\n}\n";
        let user = "pub fn padded_rows(cache: &mut [f32], real: &[i64], n: usize) {\n    let slots = padded!(real, n);\n    crate::write_kv(cache, &slots);\n}\n\npub fn counted(n: usize) -> usize {\n    n + 1\n}\n";
        let dir = workspace("macro-elsewhere", &[("src/lib.rs", lib), ("src/macros.rs", macros), ("src/user.rs", user)]);
        let (macros_path, user_path) = (dir.join("src/macros.rs"), dir.join("src/user.rs"));
        let mut live = session(&dir);
        live.update(&macros_path, macros.to_string());
        let before = live.update(&user_path, user.to_string());
        assert!(before.is_empty(), "{:#?}", keys(&before));
        let zeroed = macros.replace("crate::PAD_SLOT_ID", "0");
        for (text, findings) in [(zeroed.as_str(), 1), (macros, 0)] {
            live.edit(&macros_path, text.to_string());
            let got = live.edit(&user_path, user.to_string());
            let mut fresh = session(&dir);
            fresh.update(&macros_path, text.to_string());
            let want = fresh.update(&user_path, user.to_string());
            assert_eq!(keys(&got.findings), keys(&want), "the caller after the macro became\n{text}");
            assert_eq!(got.findings.len(), findings, "{:#?}", keys(&got.findings));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An edit in one method's body moves the contract of a method after it in the same `impl`:
    /// the label a finding takes from that contract moves too (found by the random fixture edits).
    #[test]
    fn a_contract_after_the_edit_in_the_same_impl_moves_with_it() {
        let text = "const PAD_SLOT_ID: i64 = -1;\n\npub struct Runner {\n    kv: Vec<f32>,\n    slots: Vec<i64>,\n}\n\nimpl Runner {\n    pub fn new(bs: usize) -> Runner {\n        Runner { kv: vec![0.0; 8], slots: vec![PAD_SLOT_ID; bs] }\n    }\n\n    #[reuse::contract(writes(self.kv[self.slots], skip = PAD_SLOT_ID))]\n    pub fn replay(&mut self) {}\n\n    fn update(&mut self, bs: usize) {\n        for i in 0..bs {\n            self.slots[i] = 0;\n        }\n    }\n\n    pub fn step(&mut self, bs: usize) {\n        self.update(bs);\n        self.replay();\n    }\n}\n";
        let dir = workspace("impl-contract-moves", &[("src/lib.rs", text)]);
        let path = dir.join("src/lib.rs");
        let edited = text.replace("vec![0.0; 8]", "vec![PAD_SLOT_ID as f32; 8]");
        let mut live = session(&dir);
        let before = live.update(&path, text.to_string());
        assert!(before.iter().any(|f| f.rule.name == "pad_to_null_block"), "{:#?}", keys(&before));
        let got = live.edit(&path, edited.clone());
        assert!(got.items.is_some(), "an edit inside a body takes the item path");
        assert_eq!(keys(&got.findings), keys(&session(&dir).update(&path, edited)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// What the server does: each edit goes to `Session::edit` (the item path when it can,
        /// else the whole file), on the text and findings of the step before. Every step must
        /// equal a fresh check.
        #[test]
        fn any_sequence_of_edits_gives_the_findings_of_a_fresh_check(edits in proptest::collection::vec(edit_strategy(), 1..12)) {
            let dir = workspace("prop", &files());
            let path = dir.join("src/user.rs");
            let (mut live, mut fresh) = (session(&dir), session(&dir));
            live.update(&path, USER.to_string());
            let mut text = USER.to_string();
            for edit in &edits {
                text = apply(&text, edit);
                let got = keys(&live.edit(&path, text.clone()).findings);
                let want = keys(&fresh.update(&path, text.clone()));
                prop_assert_eq!(got, want, "after {:?}\n{}", edit, text);
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Every fixture file (the rule fixtures, the example crates, the engine-shaped workspace) under
/// a fixed series of random line edits through [`crate::engine::Session::edit`]: each step equals
/// a fresh check of its text. (It found a contract's label left at its old position, a sentinel
/// fix spelled by its path when the constant was blanked, and a struct edit in a declaring file
/// that must re-index it.)
#[cfg(test)]
mod fixtures {
    use super::tests::{keys, session, workspace};

    /// xorshift: the same edits on every run.
    fn xorshift(seed: u64) -> impl FnMut() -> usize {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as usize
        }
    }

    /// The ways a random edit changes a line.
    #[derive(Clone, Copy)]
    enum LineEdit {
        BlankBefore,
        Duplicate,
        Delete,
        SentinelToZero,
        ZeroToSentinel,
        Typed,
        NegatedSkip,
    }

    /// `text` with one line edited at random, by one of `kinds` (deleting the only line is the last
    /// kind instead), and the line's index.
    fn edit_a_line(text: &str, next: &mut impl FnMut() -> usize, kinds: &[LineEdit]) -> (String, usize) {
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let at = next() % lines.len();
        let kind = match kinds[next() % kinds.len()] {
            LineEdit::Delete if lines.len() <= 1 => kinds[kinds.len() - 1],
            kind => kind,
        };
        match kind {
            LineEdit::BlankBefore => lines.insert(at, String::new()),
            LineEdit::Duplicate => lines.insert(at, lines[at].clone()),
            LineEdit::Delete => _ = lines.remove(at),
            LineEdit::SentinelToZero => lines[at] = lines[at].replacen("PAD_SLOT_ID", "0", 1),
            LineEdit::ZeroToSentinel => lines[at] = lines[at].replacen('0', "PAD_SLOT_ID", 1),
            LineEdit::Typed => lines[at].push_str(" // typed"),
            LineEdit::NegatedSkip => lines[at] = lines[at].replacen("skip = ", "skip = -", 1),
        }
        (lines.join("\n"), at)
    }

    /// An edited method that calls a trait's method on a type whose `impl` of the trait is empty
    /// (it runs the trait's default) is checked with that `impl` in view.
    #[test]
    fn an_empty_trait_impl_is_checked_with_the_items_that_call_the_trait() {
        let text = "use std::collections::HashMap;\n#[reuse::effect]\nfn log_step() {}\npub trait Hooks {\n    fn on_step(&mut self) {\n        log_step();\n    }\n}\npub struct Quiet;\nimpl Hooks for Quiet {}\npub struct Cache {\n    plans: HashMap<u64, u32>,\n    hooks: Quiet,\n}\nimpl Cache {\n    #[reuse::contract(reuses(self.plans, key(g)), preserves(log_step))]\n    pub fn run(&mut self, g: u64) -> u32 {\n        let p = self.plans.get(&g).copied().unwrap_or(0);\n        self.hooks.on_step();\n        p\n    }\n}\n";
        let dir = workspace("empty-impl", &[("src/lib.rs", text)]);
        let path = std::fs::canonicalize(dir.join("src/lib.rs")).unwrap();
        let (mut live, mut fresh) = (session(&dir), session(&dir));
        live.update(&path, text.to_string());
        let edited = text.replace("        p\n", "        p // typed\n");
        let got = live.edit(&path, edited.clone());
        assert!(got.items.is_some(), "the item path");
        assert_eq!(keys(&got.findings), keys(&fresh.update(&path, edited)));
        assert!(got.findings.is_empty(), "{:?}", keys(&got.findings));
    }

    /// A declaring file given a text that does not parse, then the same text again (an edit that
    /// changes nothing): the parse error alone both times, not the findings of its declarations
    /// as the last text that parsed had them (found by the random edits of the fixtures).
    #[test]
    fn a_declaring_file_that_does_not_parse_reports_the_parse_error_alone() {
        let text = "#[reuse::contract(aliases(return = n))]\nfn a(n: u32, data: &mut [f32]) -> &mut [f32] {\n    data\n}\n";
        let dir = workspace("broken-decl", &[("src/lib.rs", text)]);
        let path = std::fs::canonicalize(dir.join("src/lib.rs")).unwrap();
        let mut live = session(&dir);
        assert_eq!(live.update(&path, text.to_string()).len(), 1, "the alias's finding");
        let broken = text.replace("fn a(n: u32, data: &mut [f32]) -> &mut [f32] {\n", "");
        for _ in 0..2 {
            let got = live.edit(&path, broken.clone());
            let rules: Vec<&str> = got.findings.iter().map(|f| f.rule.name).collect();
            assert_eq!(rules, ["parse_error"], "{:?}", keys(&got.findings));
        }
    }

    /// A type alias tells the items that name it what their receivers are: deleting it (or
    /// pointing it elsewhere) re-checks them (found by the random edits of `engine-shapes`).
    #[test]
    fn editing_a_type_alias_rechecks_the_items_that_name_it() {
        let text = "pub const PAD: i64 = -1;\npub struct Graph;\nimpl Graph {\n    #[reuse::contract(writes(cache[slots], skip = PAD))]\n    pub fn replay(&mut self, cache: &mut [f32], slots: &[i64]) {}\n}\npub struct Other;\nimpl Other {\n    pub fn replay(&mut self, cache: &mut [f32], slots: &[i64]) {}\n}\npub type Decode = Graph;\n\npub fn run(g: &mut Decode, cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    g.replay(cache, &slots);\n}\n";
        let dir = workspace("type-alias", &[("src/lib.rs", text)]);
        let path = std::fs::canonicalize(dir.join("src/lib.rs")).unwrap();
        for edited in [text.replace("pub type Decode = Graph;\n", ""), text.replace("= Graph;", "= Other;")] {
            let (mut live, mut fresh) = (session(&dir), session(&dir));
            assert_eq!(live.update(&path, text.to_string()).len(), 1, "the alias's finding");
            let got = live.edit(&path, edited.clone());
            assert!(got.items.is_some(), "the item path");
            assert_eq!(keys(&got.findings), keys(&fresh.update(&path, edited.clone())), "{edited}");
            assert!(got.findings.is_empty(), "{:?}", keys(&got.findings));
        }
    }

    /// An import inside an inline module tells the items that call through it what they call:
    /// deleting it re-checks them (found by the random edits of `engine-shapes`).
    #[test]
    fn editing_an_import_of_an_inline_module_rechecks_the_items_that_name_it() {
        let kernel = "pub const PAD: i64 = -1;\n#[reuse::contract(writes(cache[slots], skip = PAD))]\npub fn k(cache: &mut [f32], slots: &[i64]) {}\n";
        let text = "pub mod inner {\n    pub(in crate) use crate::ops::k as rac;\n}\n\npub fn run(cache: &mut [f32], n: usize) {\n    let slots = vec![0; n];\n    crate::caller::inner::rac(cache, &slots);\n}\n";
        let dir = workspace("inline-import", &[("src/lib.rs", "pub mod ops;\npub mod caller;\n"), ("src/ops.rs", kernel), ("src/caller.rs", text)]);
        let path = std::fs::canonicalize(dir.join("src/caller.rs")).unwrap();
        let edited = text.replace("    pub(in crate) use crate::ops::k as rac;\n", "");
        let (mut live, mut fresh) = (session(&dir), session(&dir));
        assert_eq!(live.update(&path, text.to_string()).len(), 1, "the call through the import");
        let got = live.edit(&path, edited.clone());
        assert!(got.items.is_some(), "the item path");
        assert_eq!(keys(&got.findings), keys(&fresh.update(&path, edited.clone())), "{edited}");
        assert!(got.findings.is_empty(), "{:?}", keys(&got.findings));
    }

    /// An import that only a struct's field names: deleting it changes how the methods of the
    /// struct resolve calls on the field, though their text does not name it (found by the
    /// random edits of `engine-shapes`).
    #[test]
    fn deleting_an_import_a_field_names_rechecks_the_struct_s_methods() {
        let kernel = "pub const PAD: i64 = -1;\npub struct Graph;\nimpl Graph {\n    #[reuse::contract(writes(cache[slots], skip = PAD))]\n    pub fn replay(&mut self, cache: &mut [f32], slots: &[i64]) {}\n}\n";
        let text = "use crate::ops::Graph as Captured;\n\npub fn noop() {}\n\npub struct Step {\n    pub graph: Captured,\n}\n\nimpl Step {\n    pub fn run(&mut self, cache: &mut [f32], n: usize) {\n        let slots = vec![0; n];\n        self.graph.replay(cache, &slots);\n    }\n}\n";
        let dir = workspace("field-import", &[("src/lib.rs", "pub mod ops;\npub mod caller;\n"), ("src/ops.rs", kernel), ("src/caller.rs", text)]);
        let path = std::fs::canonicalize(dir.join("src/caller.rs")).unwrap();
        let edited = text.replace("use crate::ops::Graph as Captured;\n", "");
        let (mut live, mut fresh) = (session(&dir), session(&dir));
        assert_eq!(live.update(&path, text.to_string()).len(), 1, "the replay of the field");
        let got = live.edit(&path, edited.clone());
        assert!(got.items.is_some(), "the item path");
        assert_eq!(keys(&got.findings), keys(&fresh.update(&path, edited.clone())), "{edited}");
        assert!(got.findings.is_empty(), "{:?}", keys(&got.findings));
    }

    /// Every fixture file, with the folder it is checked in: a workspace as a workspace, the
    /// other folders as plain trees.
    fn fixture_files() -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let dirs = ["rules", "paged-kv/src", "plan-cache/src", "donation/src", "graph-replay/src", "engine-shapes/engine/src", "engine-shapes/kv/src"];
        let mut files: Vec<std::path::PathBuf> = dirs
            .iter()
            .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap().map(|e| e.unwrap().path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|file| {
                let dir = if file.components().any(|c| c.as_os_str() == "engine-shapes") { root.join("engine-shapes") } else { file.parent().unwrap().to_path_buf() };
                (std::fs::canonicalize(dir).unwrap(), std::fs::canonicalize(file).unwrap())
            })
            .collect()
    }

    /// A file checked whole on two threads (here every file, however small), each claiming the
    /// next item it can or every other item, has the findings of a check on one thread; and again
    /// after an edit that moves every item.
    #[test]
    fn every_fixture_checked_on_two_threads_has_the_findings_of_one_thread() {
        let (mut files, mut split_files, mut found) = (0, 0, 0);
        let mut sessions: Option<(std::path::PathBuf, [crate::engine::Session; 3])> = None;
        for (dir, path) in fixture_files() {
            let text = std::fs::read_to_string(&path).unwrap();
            if sessions.as_ref().is_none_or(|(d, _)| *d != dir) {
                // Items taken as each thread is ready, every other item, and one thread.
                let (mut shared, mut alternate, mut whole) = (session(&dir), session(&dir), session(&dir));
                shared.split_whole_checks_from(Some(0));
                alternate.split_whole_checks_from(Some(0));
                alternate.alternate_shares();
                whole.split_whole_checks_from(None);
                sessions = Some((dir.clone(), [shared, alternate, whole]));
            }
            let (_, [shared, alternate, whole]) = sessions.as_mut().unwrap();
            for text in [text.clone(), format!("{}{text}", "\n".repeat(text.len() / 2))] {
                let expected = keys(&whole.update(&path, text.clone()));
                assert_eq!(keys(&shared.update(&path, text.clone())), expected, "{}", path.display());
                assert_eq!(keys(&alternate.update(&path, text)), expected, "{} (every other item)", path.display());
                found += expected.len();
            }
            // Back to the text on disk: the next files of the folder are checked with it.
            for s in [shared, alternate, whole] {
                s.update(&path, text.clone());
            }
            files += 1;
            split_files += usize::from(text.lines().filter(|l| l.starts_with("pub fn ") || l.starts_with("fn ")).count() > 1);
        }
        assert!(files > 100 && split_files > 50 && found > 1000, "{files} files, {split_files} with two functions or more, {found} findings");
    }

    #[test]
    fn random_edits_of_every_fixture_give_the_findings_of_a_fresh_check() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let kinds = [LineEdit::BlankBefore, LineEdit::Duplicate, LineEdit::Delete, LineEdit::SentinelToZero, LineEdit::ZeroToSentinel, LineEdit::Typed];
        let (mut steps, mut item_path) = (0, 0);
        for (dir, path) in fixture_files() {
            let mut text = std::fs::read_to_string(&path).unwrap();
            let (mut live, mut fresh) = (session(&dir), session(&dir));
            live.update(&path, text.clone());
            for _ in 0..20 {
                let at;
                (text, at) = edit_a_line(&text, &mut next, &kinds);
                let got = live.edit(&path, text.clone());
                assert_eq!(keys(&got.findings), keys(&fresh.update(&path, text.clone())), "{} after an edit of line {}:\n{text}", path.display(), at + 1);
                steps += 1;
                item_path += usize::from(got.items.is_some());
            }
        }
        assert!(item_path * 4 > steps, "the item path was taken {item_path} times of {steps}");
    }

    /// Random line edits of the kernel crate of the engine-shaped workspace (contracts, effects,
    /// index fields and constants among the lines): after each, every file of the other crates,
    /// checked again as the language server does (its text unchanged, the index changed), has
    /// the findings of a whole check of it against the new index.
    #[test]
    fn random_edits_of_kernel_files_give_their_callers_the_findings_of_a_fresh_check() {
        let root = std::fs::canonicalize(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/engine-shapes")).unwrap();
        let rs_in = |d: &str| -> Vec<std::path::PathBuf> {
            let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(root.join(d)).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "rs")).collect();
            v.sort();
            v
        };
        let kernels = rs_in("kv/src");
        let callers: Vec<(std::path::PathBuf, String)> = rs_in("engine/src").into_iter().chain(rs_in("sched/src")).map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        }).collect();
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let kinds = [LineEdit::BlankBefore, LineEdit::Duplicate, LineEdit::Delete, LineEdit::SentinelToZero, LineEdit::NegatedSkip];
        let (mut live, mut oracle) = (session(&root), session(&root));
        for (p, text) in &callers {
            live.update(p, text.clone());
        }
        let (mut edits, mut item_path, mut refreshed, mut refreshed_by_items) = (0, 0, 0, 0);
        for kernel in &kernels {
            let mut text = std::fs::read_to_string(kernel).unwrap();
            live.update(kernel, text.clone());
            oracle.update(kernel, text.clone());
            for _ in 0..6 {
                let at;
                (text, at) = edit_a_line(&text, &mut next, &kinds);
                let got = live.edit(kernel, text.clone());
                assert_eq!(keys(&got.findings), keys(&oracle.update(kernel, text.clone())), "{} after an edit of line {}:\n{text}", kernel.display(), at + 1);
                edits += 1;
                item_path += usize::from(got.items.is_some());
                // While the kernel file does not parse, the editor keeps what its last text that
                // parsed declared and the callers' findings found with it: not a fresh check's.
                if syn::parse_file(&text).is_err() {
                    continue;
                }
                crate::source::invalidate_spans();
                for (p, ctext) in &callers {
                    let got = live.edit(p, ctext.clone());
                    assert_eq!(keys(&got.findings), keys(&oracle.update(p, ctext.clone())), "{} after an edit of {} line {}:\n{text}", p.display(), kernel.display(), at + 1);
                    // A caller that declares something itself (a contract, an effect, a
                    // constant) is checked whole by design: its declarations may have moved.
                    if !crate::engine::may_declare(ctext) {
                        refreshed += 1;
                        refreshed_by_items += usize::from(got.items.is_some());
                    }
                }
            }
            // Each kernel's edits are judged on an otherwise untouched workspace: a kernel left
            // not parsing would keep its last declarations in the editor, and not in a fresh
            // check, for every later comparison.
            let original = std::fs::read_to_string(kernel).unwrap();
            live.edit(kernel, original.clone());
            oracle.update(kernel, original);
        }
        // Edits of declaring files take the item path too (it was not taken before the index
        // was rebuilt for them, and a caller's check with an unchanged text re-indexed it).
        assert!(item_path * 2 > edits, "the item path was taken {item_path} times of {edits}");
        // The callers, whose texts did not change, are brought up to date from what each edit
        // changed (`Session::refresh`), not checked whole.
        assert!(refreshed_by_items * 10 > refreshed * 9, "the callers that declare nothing took the item path {refreshed_by_items} times of {refreshed}");
    }

    /// The editor and the command line agree on every file of the engine-shaped workspace,
    /// among them the runner whose padding reaches a kernel only through helpers of other files
    /// and crates (`serve.rs`, found by the check's forwarder rounds): opening a file, and typing
    /// in it, give the findings of a check of the whole workspace.
    #[test]
    fn the_editor_finds_what_the_command_line_finds_in_engine_shapes() {
        let root = std::fs::canonicalize(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/engine-shapes")).unwrap();
        let cli = session(&root).check_all();
        let mut live = session(&root);
        let mut files: Vec<std::path::PathBuf> = ["engine/src", "sched/src", "kv/src"].iter().flat_map(|d| std::fs::read_dir(root.join(d)).unwrap().map(|e| e.unwrap().path())).filter(|p| p.extension().is_some_and(|x| x == "rs")).collect();
        files.sort();
        for path in files {
            let rel = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let expected: Vec<String> = keys(&cli.findings.iter().filter(|f| f.primary.file.rel_path == rel).cloned().collect::<Vec<_>>());
            let text = std::fs::read_to_string(&path).unwrap();
            let opened = keys(&live.update(&path, text.clone()));
            let missing: Vec<&String> = expected.iter().filter(|k| !opened.contains(k)).collect();
            let extra: Vec<&String> = opened.iter().filter(|k| !expected.contains(k)).collect();
            assert!(missing.is_empty() && extra.is_empty(), "{rel} opened: missing {missing:#?}, extra {extra:#?}");
            let typed = text.replacen("\n\n", "\n\n\n", 1);
            let shifted = live.edit(&path, typed.clone()).findings;
            assert_eq!(keys(&shifted), keys(&live.update(&path, typed)), "{rel} after a blank line");
            assert_eq!(shifted.len(), expected.len(), "{rel} after a blank line");
            // Back to the text on disk: the files opened later have labels in this one
            // (`sched` builds `kv`'s index struct) and are compared with the command line's.
            live.update(&path, text);
        }
    }
}
