//! The contract index: every contracted function, every `#[reuse::effect]` and the integer
//! constants of the workspace, built from the few files that declare them (found by a byte-level
//! prefilter, so most files are never parsed in this phase).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use reuse_rules::contract::{Contract, MapSpan};
use reuse_rules::external::{walk_fns, FnItem};
use reuse_rules::validate::{validate, Params};
use reuse_rules::{catalogue, ContractError};
use syn::{Attribute, Expr, Item, Lit, UnOp};

use crate::finding::{Finding, Label};
use crate::source::FileRef;

/// Contract spans resolved to byte ranges of the file that holds the contract.
pub type FileContract = Contract<Range<usize>>;

/// A function with a contract, from the workspace or from a contracts file.
#[derive(Clone, Debug)]
pub struct ContractedFn {
    /// `crate::module::Type::name` as segments, crate name first.
    pub path: Vec<String>,
    pub self_type: Option<String>,
    pub name: String,
    pub contract: FileContract,
    pub file: FileRef,
    /// The attribute, for hovers and secondary labels.
    pub attr_range: Range<usize>,
    /// Named parameters in order, receiver excluded.
    pub params: Vec<String>,
    pub has_receiver: bool,
    /// Declared in a contracts file rather than on the definition.
    pub external: bool,
    /// Declared on a trait method: `self_type` is the trait, and every implementor shares it.
    pub in_trait: bool,
    /// Its `except(..)` paths, resolved where the contract is written.
    pub excepts: Vec<ExceptRef>,
    /// The constants it names (sentinels, region bounds) that the workspace must define.
    pub const_refs: Vec<ConstRef>,
    /// Its field paths through structs of other files.
    pub foreign_fields: Vec<ForeignFields>,
    /// The `writes` indexes (as written: `blocks`, `meta.slots`) whose type is a collection of
    /// indexes (a slice, an array, a `Vec`), not one index: from the signature, and for a field
    /// path from the struct when the contract's file declares it.
    pub buffer_indexes: Vec<String>,
    /// The inputs it takes by reference (`&mut self`, `a: &mut Tensor`): an alias of one is an
    /// in-place op on storage the caller's name still owns (`t.scale_(2.0); t.sum()` reads the
    /// output), not a donation.
    pub borrowed: Vec<String>,
}

/// A path of `except(..)`: its tokens (first to last segment), and the definition paths it may
/// name (the module's item, an import, a crate path, a glob's item), before re-exports.
#[derive(Clone, Debug)]
pub struct ExceptRef {
    pub range: Range<usize>,
    pub text: String,
    pub candidates: Vec<Vec<String>>,
}

/// A constant a contract names, where the workspace is the only place it can come from (not
/// imported from elsewhere, no glob import that could bring it): its tokens and its name.
#[derive(Clone, Debug)]
pub struct ConstRef {
    pub range: Range<usize>,
    pub text: String,
    pub name: String,
    /// Whether the name alone must be some constant of the files read (a path into a crate
    /// outside the check cannot be asked of them).
    pub name_checked: bool,
    /// The definition paths a path with a module part may name (before re-exports): the module
    /// part is checked against the workspace's items once every file is indexed.
    pub paths: Vec<Vec<String>>,
}

/// A field path of a contract whose struct the contract's file does not declare (`meta.slots`
/// with `StepMeta` in another file), checked against the workspace's items once every file is
/// indexed ([`Index::unresolved_paths`]).
#[derive(Clone, Debug)]
pub struct ForeignFields {
    /// The type of the path's part before `fields`, as written (`StepMeta`, `crate::meta::StepMeta`).
    pub owner: Vec<String>,
    pub scope: Arc<TypeScope>,
    /// The place as written, and its fields from the first one the file cannot check, with their tokens.
    pub place: String,
    pub fields: Vec<(String, Range<usize>)>,
}

/// Where a type is written: its module, that module's imports and the `impl` type (for `Self`).
#[derive(Debug)]
pub struct TypeScope {
    pub crate_name: String,
    pub module: Vec<String>,
    pub self_type: Option<String>,
    pub imports: crate::resolve::Imports,
}

impl ContractedFn {
    pub fn display_path(&self) -> String {
        self.path.join("::")
    }

    /// The argument index of a parameter at a call site (method calls: receiver excluded).
    pub fn param_position(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p == name)
    }

    /// Whether a `writes` index of this contract is a collection of indexes (see `buffer_indexes`).
    pub fn index_is_buffer(&self, index: &reuse_rules::contract::Place<Range<usize>>) -> bool {
        self.buffer_indexes.contains(&index.to_string())
    }

    /// The byte range of a clause, keyword to closing parenthesis.
    pub fn clause_range(&self, clause: &reuse_rules::contract::Clause<Range<usize>>) -> Range<usize> {
        clause.keyword.span.start..clause.end.end
    }

    /// Whether the function defined at `here` is a sanctioned writer of `clause` (one of its
    /// `except(..)` paths names it, through re-exports too). The clause's paths are matched by
    /// their text, not their position: `clause` may be of a copy of this contract in an edited
    /// text, where the editor checks items before the index moves with the edit.
    pub fn sanctions(&self, clause: &reuse_rules::contract::Clause<Range<usize>>, here: &[String], index: &Index) -> bool {
        let written: Vec<String> = clause.except().iter().map(ToString::to_string).collect();
        self.excepts
            .iter()
            .filter(|e| written.contains(&e.text))
            .any(|e| e.candidates.iter().any(|c| index.aliases(c).iter().any(|a| a == here)))
    }
}

/// Where an effect function is declared.
#[derive(Clone, Debug)]
pub struct EffectFn {
    pub path: Vec<String>,
    pub file: FileRef,
    pub range: Range<usize>,
    /// The fields of `self` its body writes, with the fields inside them written (`bufs.logits`;
    /// `None`: unknown, or no body); for `stale_result`.
    pub writes_self: Option<Vec<String>>,
}

/// Constants' values by name and the crates asked for ([`Index::const_value_in`]).
type ConstMemo = HashMap<(String, Vec<String>), Option<i128>>;

#[derive(Debug, Default)]
pub struct Index {
    pub fns: Vec<ContractedFn>,
    by_name: HashMap<String, Vec<usize>>,
    pub effects: HashMap<String, Vec<EffectFn>>,
    /// Integer constants by name, with the crate that defines them; several definitions with
    /// different values make a name unknown, unless one crate asked for has its own.
    consts: HashMap<String, Vec<(Option<String>, ConstExpr)>>,
    /// The values [`Index::const_value_in`] worked out, by name and the crates asked for: a name
    /// many crates define (a bitflags `ALL`) is evaluated once per question, not once per path
    /// that reaches it (every constant that names it, at every depth). Emptied when a file is
    /// indexed.
    const_memo: std::sync::Mutex<ConstMemo>,
    /// `use` items by the module they are in (`pub use` re-exports, and the private imports of
    /// a file's top level): what a path through them names.
    reexports: HashMap<Vec<String>, Vec<Reexport>>,
    /// The functions, constants and statics a module defines at its top level, by name, for the
    /// modules that glob-import (an item shadows a glob import of its name).
    defined: HashMap<Vec<String>, std::collections::HashSet<String>>,
    /// The names `use` items give to something of another name (`as`, `self`).
    renames: std::collections::HashSet<String>,
    /// Contracts-file contracts some call resolved to during the analysis (by path).
    called: std::sync::Mutex<std::collections::HashSet<Vec<String>>>,
    /// Definition paths of the functions marked `#[reuse::sanctioned]`.
    sanctioned: std::collections::HashSet<Vec<String>>,
    /// Struct fields declared `#[reuse::index(skip = S)]`.
    pub index_fields: Vec<IndexField>,
    /// The name of every `const` and `static` of the files read, whatever its value.
    const_names: std::collections::HashSet<String>,
    /// Effect names in `preserves` that are misspellings: no function of the check has the
    /// name, and one has a name two edits away ([`Index::misspelled_effects`]).
    misspelled_effects: std::collections::HashSet<String>,
    /// Per crate, the names its code gives renamed dependencies (`kern` for `kern = { package =
    /// "kernels" }`), with their crate names: `kern::f` written in that crate is `kernels::f`.
    pub crate_renames: HashMap<String, HashMap<String, String>>,
}

/// A `use` item: `name` (or `*` for a glob) in `module` stands for `target`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reexport {
    pub module: Vec<String>,
    pub name: String,
    /// The written path with `crate`/`self`/`super` expanded. A path that starts with another
    /// name is either a crate or an item of `module` (Rust 2018): both are tried.
    pub target: Vec<String>,
    pub relative: bool,
    /// A private import (`use` without `pub`): it names something only in `module` and the
    /// modules inside it (`use super::*` in a child, `crate::name` anywhere for the crate root).
    pub private: bool,
    /// An `extern crate` item: at the crate root, its name is in every module's extern prelude.
    pub extern_crate: bool,
}

/// The paths one path may name through re-exports, at most (chains through crates are short;
/// cycles such as `pub use a::*` / `pub use b::*` must end).
const MAX_ALIASES: usize = 64;

/// How many constants deep a constant's value is followed (`A = B + 1`, `B = C * 2`, ..).
const MAX_CONST_DEPTH: usize = 8;

impl Index {
    pub fn add(&mut self, decl: FileDecls) {
        for f in decl.fns {
            self.by_name.entry(f.name.clone()).or_default().push(self.fns.len());
            self.fns.push(f);
        }
        for (name, e) in decl.effects {
            self.effects.entry(name).or_default().push(e);
        }
        self.const_memo.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
        for (name, v) in decl.consts {
            self.consts.entry(name).or_default().push((decl.krate.clone(), v));
        }
        for r in decl.reexports {
            if r.name != "*" && r.target.last() != Some(&r.name) {
                self.renames.insert(r.name.clone());
                // `use kv::NULL_BLOCK as NULL;`: a constant of that name is the one it renames
                // (a rename of anything else names no constant, and so has no value).
                if r.name.chars().all(|c| !c.is_lowercase()) {
                    self.consts.entry(r.name.clone()).or_default().push((decl.krate.clone(), ConstExpr::Alias(r.target.clone())));
                }
            }
            // `extern crate kernels as k;` at the crate root: `k` is in the extern prelude of
            // every module of the crate, as a dependency renamed in the manifest is.
            if let (true, [krate], [real]) = (r.extern_crate, r.module.as_slice(), r.target.as_slice()) {
                if *real != r.name {
                    self.crate_renames.entry(krate.clone()).or_default().insert(r.name.clone(), real.clone());
                }
            }
            self.reexports.entry(r.module.clone()).or_default().push(r);
        }
        for (module, names) in decl.items {
            self.defined.entry(module).or_default().extend(names);
        }
        self.sanctioned.extend(decl.sanctioned);
        self.const_names.extend(decl.const_names);
        self.index_fields.extend(decl.index_fields);
    }

    /// `unknown_name` findings of the names a contract can be checked for only against the whole
    /// workspace: an `except(..)` path that names no function marked `#[reuse::sanctioned]`, and a
    /// constant defined nowhere. By the file of the contract.
    pub fn unresolved_names(&self) -> Vec<(String, Finding)> {
        let mut out = Vec::new();
        for f in &self.fns {
            for c in f.const_refs.iter().filter(|c| c.name_checked && !self.const_names.contains(&c.name)) {
                out.push((f.file.rel_path.clone(), unknown_const(&f.file, c, &format!("the contract of `{}`", f.name))));
            }
            for e in &f.excepts {
                let marked = e.candidates.iter().any(|c| self.aliases(c).iter().any(|a| self.sanctioned.contains(a)));
                if !marked {
                    let finding = Finding::new(
                        &catalogue::UNKNOWN_NAME,
                        format!("`{}` names no function marked `#[reuse::sanctioned]`: a sanctioned writer of `{}` must be one", e.text, f.name),
                        Label::new(&f.file, e.range.clone(), "no sanctioned writer here"),
                    )
                    .with_help("name the function by its path from here (`health_check`, `diag::health_check`, `Pool::health_check`) and mark it `#[reuse::sanctioned]`: the runtime sees a sanctioned writer run only through the mark");
                    out.push((f.file.rel_path.clone(), finding));
                }
            }
        }
        for i in &self.index_fields {
            for c in i.const_refs.iter().filter(|c| c.name_checked && !self.const_names.contains(&c.name)) {
                out.push((i.file.rel_path.clone(), unknown_const(&i.file, c, &format!("the index field `{}.{}`", i.type_name, i.field))));
            }
        }
        out
    }

    /// `unknown_name` findings that need the workspace's items, not only its declarations: a
    /// constant's path whose module part names no module, or a module without that constant
    /// (`crate::nope::PAD_SLOT_ID`); a field path through a struct of another file that has no
    /// such field. Only what the items tell for sure: a path they cannot see into is left alone.
    pub fn unresolved_paths(&self, items: &crate::items::WorkspaceItems) -> Vec<(String, Finding)> {
        let mut out = Vec::new();
        let refs = self.fns.iter().map(|f| (&f.file, &f.const_refs, format!("the contract of `{}`", f.name)));
        let fields = self.index_fields.iter().map(|i| (&i.file, &i.const_refs, format!("the index field `{}.{}`", i.type_name, i.field)));
        for (file, consts, user) in refs.chain(fields) {
            for c in consts.iter().filter(|c| !c.paths.is_empty() && (!c.name_checked || self.const_names.contains(&c.name))) {
                if let Some(f) = self.const_path_error(items, file, c, &user) {
                    out.push((file.rel_path.clone(), f));
                }
            }
        }
        for f in &self.fns {
            for p in &f.foreign_fields {
                if let Some(finding) = self.foreign_field_error(items, &f.file, p) {
                    out.push((f.file.rel_path.clone(), finding));
                }
            }
        }
        out
    }

    /// `unknown_name` at each effect of a `preserves` that is a misspelling or a macro: no file of
    /// the check defines a function of that name, and an effect or a function of the contract's
    /// file has a name at most two edits away (`log_stpe` for `log_step`), or the file invokes a
    /// macro of that name (`preserves(info)` beside `tracing::info!`). A name far from every known
    /// one may be a method of another crate's type and is left alone. The rules then leave the
    /// effect out (it would be reported as skipped on every path).
    pub fn misspelled_effects(&mut self, items: &crate::items::WorkspaceItems) -> Vec<(String, Finding)> {
        let mut out = Vec::new();
        for f in &self.fns {
            let Some((_, effects)) = f.contract.preserves() else { continue };
            for e in effects {
                let name = e.name();
                if self.effects.contains_key(name) || items.defines_fn_named(name) {
                    continue;
                }
                let (first, last) = (&e.path[0].span, &e.path[e.path.len() - 1].span);
                let finding = if invokes_macro(&f.file.text, name) {
                    // `preserves(info)` beside `tracing::info!(..)`: neither the checker nor the
                    // runtime sees a macro run, so the effect could never be held.
                    Finding::new(
                        &catalogue::UNKNOWN_NAME,
                        format!("`{e}` is a macro here (`{name}!`), not a function: an effect is a call the checker and the runtime can see, so `preserves` would hold every path to an effect that never runs"),
                        Label::new(&f.file, first.start..last.end, "a macro, not a function"),
                    )
                    .with_help(format!("wrap the event in a function marked `#[reuse::effect]` (`#[reuse::effect] fn {name}_step(..) {{ {name}!(..) }}`) and name that function here"))
                } else {
                    let known = self.effects.keys().map(String::as_str).chain(crate::items::fn_names(&f.file.text));
                    let Some(meant) = catalogue::misspelling_of(name, known) else { continue };
                    Finding::new(
                        &catalogue::UNKNOWN_NAME,
                        format!("`{e}` names no function of the workspace (did you mean `{meant}`?): `preserves` would hold every path to an effect that never runs"),
                        Label::new(&f.file, first.start..last.end, "no such function"),
                    )
                    .with_help("name the effect as it is defined (a function or method, usually marked `#[reuse::effect]`)")
                };
                out.push((f.file.rel_path.clone(), finding));
                self.misspelled_effects.insert(name.to_string());
            }
        }
        out
    }

    /// Whether `preserves` names this effect by a misspelling or a macro (see
    /// [`Index::misspelled_effects`]).
    pub fn is_misspelled_effect(&self, name: &str) -> bool {
        self.misspelled_effects.contains(name)
    }

    fn const_path_error(&self, items: &crate::items::WorkspaceItems, file: &FileRef, c: &ConstRef, user: &str) -> Option<Finding> {
        use crate::items::ConstLookup;
        let mut first = None;
        for path in c.paths.iter().flat_map(|p| self.aliases(p)) {
            match items.const_at(self, &path) {
                ConstLookup::Defined | ConstLookup::Unknown => return None,
                lookup => _ = first.get_or_insert((path, lookup)),
            }
        }
        let (path, lookup) = first?;
        let (module, name) = (path[..path.len() - 1].join("::"), &path[path.len() - 1]);
        let (message, label) = match lookup {
            ConstLookup::NoModule(at) => (format!("`{}`: `{}` has no module `{}`, so {user} would check nothing with it", c.text, path[..at].join("::"), path[at]), "no such module"),
            _ => (format!("`{}`: module `{module}` defines no `const` or `static` `{name}`, so {user} would check nothing with it", c.text), "not found"),
        };
        Some(Finding::new(&catalogue::UNKNOWN_NAME, message, Label::new(file, c.range.clone(), label)).with_help("write the path of the constant's module (or of a `use` of it); the macro reports the same error when the crate is compiled"))
    }

    fn foreign_field_error(&self, items: &crate::items::WorkspaceItems, file: &FileRef, p: &ForeignFields) -> Option<Finding> {
        let no_fields = crate::resolve::FieldTypes::default();
        let resolver = crate::resolve::Resolver {
            index: self,
            items,
            crate_name: &p.scope.crate_name,
            module: p.scope.module.clone(),
            imports: std::borrow::Cow::Borrowed(&p.scope.imports),
            fields: &no_fields,
            current: None,
        };
        let mut owners = resolver.type_paths(&p.owner, p.scope.self_type.as_deref());
        for (field, range) in &p.fields {
            // The first definition the items know of: a name they cannot find is unknown.
            let (owner, known) = owners.iter().find_map(|o| Some((o, items.fields_of(self, o)?)))?;
            if !known.contains(field) {
                let ty = owner.last().cloned().unwrap_or_default();
                return Some(no_such_field(&ty, field, &known, &p.place, Label::new(file, range.clone(), "no such field")));
            }
            owners = items.field(self, owner, field)?.paths?;
        }
        None
    }

    /// Whether a call written with this name can be to a contracted function: it is the name of
    /// one, or an import or re-export renames something to it (`use ops::write as cache_kv;`).
    pub fn may_name_contracted(&self, name: &str) -> bool {
        self.by_name.contains_key(name) || self.renames.contains(name)
    }

    /// [`Index::may_name_contracted`] for effects.
    pub fn may_name_effect(&self, name: &str) -> bool {
        self.effects.contains_key(name) || self.renames.contains(name)
    }

    pub fn candidates(&self, name: &str) -> impl Iterator<Item = &ContractedFn> {
        self.by_name.get(name).into_iter().flatten().map(|&i| &self.fns[i])
    }

    /// Every path that `path` may name through `pub use` re-exports (renames and globs included),
    /// `path` itself first. Unknown stays unknown: a path no re-export matches names only itself.
    pub fn aliases(&self, path: &[String]) -> Vec<Vec<String>> {
        self.aliases_from(path, None)
    }

    /// [`Index::aliases`] for a path written in module `from` (crate name first): the private
    /// imports of `from` and of the modules around it name things there too, as in Rust (a
    /// child's `use super::*` sees what its parent imported; `crate::f` may be the crate root's
    /// import). A glob import stands for a name only where the module neither defines an item of
    /// that name nor imports it by name: those shadow the glob.
    pub fn aliases_from(&self, path: &[String], from: Option<&[String]>) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = vec![path.to_vec()];
        if let Some(renamed) = from.and_then(|f| self.crate_renamed(f.first()?, path)) {
            out.push(renamed);
        }
        let mut next = 0;
        while next < out.len() && out.len() < MAX_ALIASES {
            let p = out[next].clone();
            next += 1;
            for split in 1..p.len() {
                let (module, name, rest) = (&p[..split], &p[split], &p[split + 1..]);
                let visible = |r: &&Reexport| !r.private || from.is_some_and(|f| f.starts_with(&r.module));
                let uses: Vec<&Reexport> = self.reexports.get(module).into_iter().flatten().filter(visible).collect();
                let shadowed = || {
                    self.defined.get(module).is_some_and(|d| d.contains(name))
                        || self.reexports.get(module).into_iter().flatten().any(|r| r.name == *name)
                };
                for r in &uses {
                    // A glob stands for the items of its target, the last segment of a path or a
                    // type whose associated item follows (`prelude::StepGuard::new`): not for a
                    // module on the way (`kv::ops::write` is not `kv::layers::ops::write`).
                    let item = rest.is_empty() || (rest.len() == 1 && name.starts_with(|c: char| c.is_ascii_uppercase()));
                    let head: Vec<String> = if r.name == "*" && item && !shadowed() {
                        r.target.iter().chain([name]).cloned().collect()
                    } else if r.name == *name && r.name != "*" {
                        r.target.clone()
                    } else {
                        continue;
                    };
                    let local = r.relative.then(|| r.module.iter().chain(&head).cloned().collect::<Vec<String>>());
                    // A re-export through a renamed dependency (`pub use kern::write;`) names it
                    // as the re-exporting crate does.
                    let renamed = r.module.first().and_then(|krate| self.crate_renamed(krate, &head));
                    for mut full in std::iter::once(head.clone()).chain(local).chain(renamed) {
                        full.extend(rest.iter().cloned());
                        if !out.contains(&full) {
                            out.push(full);
                        }
                    }
                }
            }
        }
        out
    }

    /// `path` with its first segment read as a dependency `krate` renames (`kern::f` → `kernels::f`).
    fn crate_renamed(&self, krate: &str, path: &[String]) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        let real = self.crate_renames.get(krate)?.get(first)?;
        Some(std::iter::once(real.clone()).chain(rest.iter().cloned()).collect())
    }

    /// Records that a call resolved to `f` (only contracts-file contracts are tracked: an
    /// attribute is on code that exists, a contracts file may name code nobody calls).
    pub fn mark_called(&self, f: &ContractedFn) {
        if f.external {
            if let Ok(mut called) = self.called.lock() {
                called.insert(f.path.clone());
            }
        }
    }

    /// The contracts-file contracts no call resolved to (meaningful after the analysis).
    pub fn uncalled_external(&self) -> Vec<&ContractedFn> {
        let called = self.called.lock().map(|c| c.clone()).unwrap_or_default();
        self.fns.iter().filter(|f| f.external && !called.contains(&f.path)).collect()
    }

    /// Whether a `use` item gives something another name `name` (`use ops::write as name;`).
    pub fn is_renamed(&self, name: &str) -> bool {
        self.renames.contains(name)
    }

    /// `(new name, crate)` of every re-export that renames one of `names`, or a name one of
    /// them was renamed to (`pub use crate::a::w1 as w2;` after `pub use crate::f as w1;`),
    /// closed transitively: a file that calls only `w2` never writes `f` nor `w1`.
    pub fn renamed_reexports(&self, names: &[String]) -> Vec<(String, String)> {
        let mut known: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        let mut out: std::collections::BTreeSet<(String, String)> = std::collections::BTreeSet::new();
        loop {
            let found: Vec<&Reexport> = self
                .reexports
                .values()
                .flatten()
                .filter(|r| r.name != "*" && r.target.last().is_some_and(|t| *t != r.name && known.contains(t.as_str())))
                .filter(|r| r.module.first().is_some_and(|k| !out.contains(&(r.name.clone(), k.clone()))))
                .collect();
            if found.is_empty() {
                return out.into_iter().collect();
            }
            for r in found {
                known.insert(&r.name);
                if let Some(krate) = r.module.first() {
                    out.insert((r.name.clone(), krate.clone()));
                }
            }
        }
    }

    /// The contracts-file contract for a function defined at `path`.
    pub fn external_for(&self, path: &[String]) -> Option<&ContractedFn> {
        self.candidates(path.last()?).find(|c| c.external && c.path == path)
    }

    pub fn is_effect(&self, name: &str) -> bool {
        self.effects.contains_key(name)
    }

    /// The value of a constant, when every definition of that name agrees.
    pub fn const_value(&self, name: &str) -> Option<i128> {
        self.const_value_in(name, &[])
    }

    /// Whether several constants of the workspace have this name (which one a name means is
    /// then its path's to say).
    pub fn defines_const_more_than_once(&self, name: &str) -> bool {
        self.consts.get(name).is_some_and(|v| v.len() > 1)
    }

    /// The value of a constant as code of `crates` sees it (first the first crate's own
    /// definitions): a sibling or dependency that defines another `BLOCK_SIZE` does not make the
    /// name unknown where the crate has its own.
    pub fn const_value_in(&self, name: &str, crates: &[&str]) -> Option<i128> {
        self.const_value_at_depth(name, crates, 0)
    }

    fn const_memo(&self) -> std::sync::MutexGuard<'_, ConstMemo> {
        self.const_memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// [`Index::const_value_in`], a constant defined by others at most [`MAX_CONST_DEPTH`] deep
    /// (`const A: i64 = B + 1;` names B; a cycle ends unknown). A constant's own names are read
    /// as its crate sees them.
    fn const_value_at_depth(&self, name: &str, crates: &[&str], depth: usize) -> Option<i128> {
        let values = self.consts.get(name)?;
        // The crates asked for, in order, each once: what decides the value.
        let mut asked: Vec<String> = Vec::new();
        for c in crates {
            if !asked.iter().any(|a| a == c) {
                asked.push(c.to_string());
            }
        }
        let key = (name.to_string(), asked);
        if let Some(known) = self.const_memo().get(&key) {
            return *known;
        }
        let crates: Vec<&str> = key.1.iter().map(String::as_str).collect();
        let crates = crates.as_slice();
        let agreed = |vs: Vec<i128>| vs.first().copied().filter(|v| vs.iter().all(|x| x == v));
        let value = |krate: &Option<String>, e: &ConstExpr| {
            // A renamed import names its target as the target's crate sees it (its first
            // segment, when that is a crate), then as the importing crate does.
            let first = match e {
                ConstExpr::Alias(path) if path.len() > 1 => path.first(),
                _ => None,
            };
            e.eval(&mut |n| {
                let mut seen_by: Vec<&str> = first.into_iter().chain(krate).map(String::as_str).collect();
                seen_by.extend(crates);
                (depth < MAX_CONST_DEPTH).then(|| self.const_value_at_depth(n, &seen_by, depth + 1)).flatten()
            })
        };
        let found = crates
            .iter()
            .map(|krate| values.iter().filter(|(c, _)| c.as_deref() == Some(*krate)).filter_map(|(c, e)| value(c, e)).collect::<Vec<i128>>())
            .find(|own| !own.is_empty())
            .map_or_else(|| agreed(values.iter().filter_map(|(c, e)| value(c, e)).collect()), agreed);
        self.const_memo().insert(key, found);
        found
    }

    /// Every name a call site or body could mention that makes a file worth analysing.
    pub fn interesting_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.by_name.keys().cloned().collect();
        names.extend(self.effects.keys().cloned());
        for f in &self.fns {
            if let Some((_, effects)) = f.contract.preserves() {
                names.extend(effects.iter().map(|e| e.name().to_string()));
            }
        }
        names.sort();
        names.dedup();
        names
    }
}

/// A module (crate name first) and the names of the functions, constants and statics it defines.
pub type ModuleItems = (Vec<String>, Vec<String>);

/// What one file declares.
#[derive(Clone, Default)]
pub struct FileDecls {
    pub fns: Vec<ContractedFn>,
    pub effects: Vec<(String, EffectFn)>,
    pub consts: Vec<(String, ConstExpr)>,
    pub reexports: Vec<Reexport>,
    /// Definition paths of the functions marked `#[reuse::sanctioned]`.
    pub sanctioned: Vec<Vec<String>>,
    /// Struct fields declared `#[reuse::index(skip = S)]`.
    pub index_fields: Vec<IndexField>,
    /// Every `const` and `static` name of the file.
    pub const_names: Vec<String>,
    /// The crate the file belongs to (its constants are that crate's).
    pub krate: Option<String>,
    /// The functions, constants and statics each module of the file (crate name first) defines
    /// at its level, when the file glob-imports (see [`scan_use_facts`]).
    pub items: Vec<ModuleItems>,
    /// Malformed contracts, found while indexing.
    pub findings: Vec<Finding>,
}

impl FileDecls {
    /// The same declarations in `file`, an edited copy of their file whose bytes from `from` on
    /// moved by `delta`.
    pub fn shifted(&self, file: &FileRef, from: usize, delta: isize) -> FileDecls {
        let mv = |r: &Range<usize>| {
            if r.start >= from {
                (r.start as isize + delta) as usize..(r.end as isize + delta) as usize
            } else {
                r.clone()
            }
        };
        let same = |f: &FileRef| f.path == file.path;
        let mut out = self.clone();
        for f in &mut out.fns {
            if same(&f.file) {
                f.contract = f.contract.map_span(&mut |r: Range<usize>| mv(&r));
                f.attr_range = mv(&f.attr_range);
                f.excepts.iter_mut().for_each(|e| e.range = mv(&e.range));
                f.const_refs.iter_mut().for_each(|c| c.range = mv(&c.range));
                f.foreign_fields.iter_mut().flat_map(|p| &mut p.fields).for_each(|(_, r)| *r = mv(r));
                f.file = file.clone();
            }
        }
        for i in &mut out.index_fields {
            if same(&i.file) {
                i.decl = i.decl.map_span(&mut |r: Range<usize>| mv(&r));
                i.attr_range = mv(&i.attr_range);
                i.const_refs.iter_mut().for_each(|c| c.range = mv(&c.range));
                i.file = file.clone();
            }
        }
        for (_, e) in &mut out.effects {
            if same(&e.file) {
                e.range = mv(&e.range);
                e.file = file.clone();
            }
        }
        for finding in &mut out.findings {
            for l in std::iter::once(&mut finding.primary).chain(finding.secondary.iter_mut()) {
                if same(&l.file) {
                    l.range = mv(&l.range);
                    l.file = file.clone();
                }
            }
        }
        out
    }
}

/// A struct field declared `#[reuse::index(skip = S)]`: a write index kept in a field, checked
/// wherever the field is built or changed.
#[derive(Clone, Debug)]
pub struct IndexField {
    /// The struct's name (its last path segment) and the field's (`0` for a tuple field).
    pub type_name: String,
    pub field: String,
    pub decl: reuse_rules::contract::IndexDecl<Range<usize>>,
    pub file: FileRef,
    pub attr_range: Range<usize>,
    /// The crate that declares it (its sentinel is that crate's constant).
    pub krate: String,
    /// The struct's definition path (crate name first, then its modules): what a type written
    /// anywhere in the workspace is resolved to before its index fields are looked up.
    pub type_path: Vec<String>,
    /// Its sentinel, when it names a constant only the workspace can define.
    pub const_refs: Vec<ConstRef>,
}

/// The index fields declared in a file's structs (inline modules included), their sentinels
/// resolved in the module of their struct (`module`: the file's, crate name first; `imports`: by
/// module inside the file); malformed declarations become findings.
pub fn index_fields(items: &[syn::Item], file: &FileRef, module: &[String], imports: &HashMap<Vec<String>, crate::resolve::Imports>, findings: &mut Vec<Finding>, out: &mut Vec<IndexField>) {
    let crate_name = module.first().map_or("crate", String::as_str);
    let mut full = module.to_vec();
    index_fields_in(items, file, crate_name, &mut full, &mut Vec::new(), imports, findings, out);
}

#[allow(clippy::too_many_arguments)]
fn index_fields_in(
    items: &[syn::Item],
    file: &FileRef,
    crate_name: &str,
    full: &mut Vec<String>,
    rel: &mut Vec<String>,
    imports: &HashMap<Vec<String>, crate::resolve::Imports>,
    findings: &mut Vec<Finding>,
    out: &mut Vec<IndexField>,
) {
    let no_imports = crate::resolve::Imports::default();
    let scope = NameScope { crate_name, module: full, self_type: None, imports: imports.get(rel.as_slice()).unwrap_or(&no_imports), child_modules: child_modules(items, &[]), external: false };
    let mut found = Vec::new();
    for item in items {
        let syn::Item::Struct(st) = item else { continue };
        for (i, field) in st.fields.iter().enumerate() {
            let name = field.ident.as_ref().map_or_else(|| i.to_string(), |id| id.to_string());
            for attr in &field.attrs {
                let segs: Vec<String> = attr.path().segments.iter().map(|s| s.ident.to_string()).collect();
                if !matches!(segs.as_slice(), [r, x] if r == "reuse" && x == "index") {
                    continue;
                }
                let tokens = match &attr.meta {
                    syn::Meta::List(l) => l.tokens.clone(),
                    _ => proc_macro2::TokenStream::new(),
                };
                let attr_range = file.join(attr.pound_token.span, attr.bracket_token.span.join());
                match reuse_rules::contract::parse_index_attr(tokens) {
                    Ok(decl) => {
                        let decl = decl.map_span(&mut |sp| file.range(sp));
                        let const_refs = match &decl.skip {
                            reuse_rules::contract::Sentinel::Const(p) => scope.const_ref(p).into_iter().collect(),
                            reuse_rules::contract::Sentinel::Int { .. } => Vec::new(),
                        };
                        let type_path = full.iter().cloned().chain([st.ident.to_string()]).collect();
                        found.push(IndexField { type_name: st.ident.to_string(), field: name.clone(), decl, file: file.clone(), attr_range, krate: crate_name.to_string(), type_path, const_refs });
                    }
                    // An error of an empty attribute (`#[reuse::index]`) has no token of its own:
                    // it is the attribute's.
                    Err(errors) => findings.extend(error_findings(file, &errors).map(|mut f| {
                        if !(attr_range.start <= f.primary.range.start && f.primary.range.end <= attr_range.end) {
                            f.primary.range = attr_range.clone();
                        }
                        f
                    })),
                }
            }
        }
    }
    out.extend(found);
    for item in items {
        if let syn::Item::Mod(m) = item {
            if let Some((_, content)) = &m.content {
                full.push(m.ident.to_string());
                rel.push(m.ident.to_string());
                index_fields_in(content, file, crate_name, full, rel, imports, findings, out);
                full.pop();
                rel.pop();
            }
        }
    }
}

/// `unknown_name` at a constant no file of the workspace defines, named by `user` (a contract, an
/// index field).
fn unknown_const(file: &FileRef, c: &ConstRef, user: &str) -> Finding {
    Finding::new(
        &catalogue::UNKNOWN_NAME,
        format!("`{}` names no `const` or `static` of the workspace: {user} would check nothing with it", c.text),
        Label::new(file, c.range.clone(), "not found"),
    )
    .with_help("write the name of a constant defined in the workspace (or imported here); the macro reports the same error when the crate is compiled")
}

/// Which reuse attribute an attribute is, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReuseAttr {
    Contract,
    Effect,
    Allow,
    Sanctioned,
}

/// `#[reuse::contract]`, or `#[contract]` in a file that imports from `reuse`. A bare
/// `#[allow(..)]` is always rustc's lint attribute: a built-in attribute cannot be imported over
/// (`use reuse::allow;` makes it ambiguous, E0659), so a file that imports `reuse::runtime` keeps
/// its `#[allow(dead_code)]`.
pub fn reuse_attr(attr: &Attribute, imports_reuse: bool) -> Option<ReuseAttr> {
    let segs: Vec<String> = attr.path().segments.iter().map(|s| s.ident.to_string()).collect();
    let last = match segs.as_slice() {
        [r, last] if r == "reuse" => last,
        [last] if imports_reuse && last != "allow" => last,
        _ => return None,
    };
    match last.as_str() {
        "contract" => Some(ReuseAttr::Contract),
        "effect" => Some(ReuseAttr::Effect),
        "allow" => Some(ReuseAttr::Allow),
        "sanctioned" => Some(ReuseAttr::Sanctioned),
        _ => None,
    }
}

/// Turns contract errors (spans of this thread) into findings.
pub fn error_findings<'a>(file: &'a FileRef, errors: &'a [ContractError]) -> impl Iterator<Item = Finding> + 'a {
    errors.iter().map(move |e| {
        let mut f = Finding::new(e.rule, e.message.clone(), Label::new(file, file.range(e.span), "here"));
        if e.rule.name == "unknown_name" || e.rule.name == "alias_type_mismatch" {
            f = f.with_help("the macro reports the same error when the crate is compiled");
        }
        f
    })
}

/// The contract on a function, parsed and validated. Errors become findings.
pub fn contract_of(attrs: &[Attribute], sig: &syn::Signature, file: &FileRef, imports_reuse: bool, findings: &mut Vec<Finding>) -> Option<(FileContract, Range<usize>)> {
    let attr = attrs.iter().find(|a| reuse_attr(a, imports_reuse) == Some(ReuseAttr::Contract))?;
    let tokens = match &attr.meta {
        syn::Meta::List(list) => list.tokens.clone(),
        _ => proc_macro2::TokenStream::new(),
    };
    let range = file.join(attr.pound_token.span, attr.bracket_token.span.close());
    match reuse_rules::parse_contract(tokens) {
        Ok(contract) => {
            let errors = validate(&contract, sig);
            findings.extend(error_findings(file, &errors));
            // A contract with unknown names still says something about the names it got right.
            Some((contract.map_span(&mut |s| file.range(s)), range))
        }
        Err(errors) => {
            findings.extend(error_findings(file, &errors));
            None
        }
    }
}

/// Indexes one parsed file. `module` is the file's module path, crate name first.
pub fn index_file(file: &FileRef, ast: &syn::File, module: &[String], external: bool) -> FileDecls {
    let imports_reuse = file.text.contains("use reuse::");
    let mut decls = FileDecls::default();
    let crate_name = module.first().map_or("crate", String::as_str);
    let imports = crate::analysis::imports_by_module(&ast.items, crate_name, module);
    let fields = crate::resolve::FieldTypes::of(&ast.items);
    let no_imports = crate::resolve::Imports::default();
    walk_fns(&ast.items, &mut |f: FnItem<'_>| {
        let rel_module = f.modules;
        let mut module = module.to_vec();
        module.extend(f.modules.iter().cloned());
        let module_imports = imports.get(rel_module).unwrap_or(&no_imports);
        let path = crate::analysis::definition_path(&module, module_imports, f.self_type, &f.sig.ident);
        if f.attrs.iter().any(|a| reuse_attr(a, imports_reuse) == Some(ReuseAttr::Effect)) {
            let range = file.range(f.sig.ident.span());
            let writes_self = f.body.and_then(|b| crate::analysis::self_fields_written(&[b])).map(|w| {
                let mut w: Vec<String> = w.into_iter().collect();
                w.sort_unstable();
                w
            });
            decls.effects.push((f.sig.ident.to_string(), EffectFn { path: path.clone(), file: file.clone(), range, writes_self }));
        }
        if f.attrs.iter().any(|a| reuse_attr(a, imports_reuse) == Some(ReuseAttr::Sanctioned)) {
            decls.sanctioned.push(path.clone());
        }
        if let Some((contract, attr_range)) = contract_of(f.attrs, f.sig, file, imports_reuse, &mut decls.findings) {
            let mut foreign_fields = Vec::new();
            let type_scope = std::cell::OnceCell::new();
            let scope = || type_scope.get_or_init(|| Arc::new(TypeScope { crate_name: crate_name.to_string(), module: module.clone(), self_type: f.self_type.map(str::to_string), imports: module_imports.clone() })).clone();
            decls.findings.extend(field_path_errors(&contract, f.sig, f.self_type, &fields, file, &scope, &mut foreign_fields));
            let params = Params::of(f.sig);
            let scope = NameScope {
                crate_name,
                module: &module,
                self_type: f.self_type,
                imports: module_imports,
                child_modules: child_modules(&ast.items, rel_module),
                external,
            };
            decls.fns.push(ContractedFn {
                name: f.sig.ident.to_string(),
                self_type: f.self_type.map(str::to_string),
                path,
                file: file.clone(),
                attr_range,
                params: params.named.iter().map(|(n, _)| n.clone()).collect(),
                has_receiver: params.has_receiver,
                external,
                in_trait: f.in_trait,
                excepts: scope.excepts(&contract),
                const_refs: scope.const_refs(&contract),
                foreign_fields,
                buffer_indexes: contract.writes().filter(|(_, t, _)| index_is_buffer(&t.index, f.sig, f.self_type, &fields)).map(|(_, t, _)| t.index.to_string()).collect(),
                borrowed: borrowed_inputs(f.sig, &params),
                contract,
            });
        }
    });
    collect_consts(&ast.items, &mut decls.consts);
    decls.const_names = scan_const_names(&file.text);
    if file.text.contains("reuse::index") {
        let mut fields = Vec::new();
        index_fields(&ast.items, file, module, &imports, &mut decls.findings, &mut fields);
        decls.index_fields = fields;
    }
    decls
}

/// `unknown_name` at each field of a contract's field paths (`meta.slot_maping`, `self.kv`) that
/// the struct, defined in this file, does not have. A path through a struct this file does not
/// declare goes to `foreign`, for [`Index::unresolved_paths`] to check against the workspace's
/// items (`scope`: where the contract is written).
fn field_path_errors(
    contract: &FileContract,
    sig: &syn::Signature,
    self_type: Option<&str>,
    fields: &crate::resolve::FieldTypes,
    file: &FileRef,
    scope: &dyn Fn() -> Arc<TypeScope>,
    foreign: &mut Vec<ForeignFields>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for place in contract.rooted_places() {
        let mut owner = root_written(place, sig, self_type);
        for (i, seg) in place.segments.iter().enumerate().skip(1) {
            let Some(ty) = owner.take() else { break };
            let name = ty.last().cloned().unwrap_or_default();
            match fields.declares(&name, &seg.text) {
                Some(true) => owner = fields.field_type(&name, &seg.text).map(|t| vec![t.to_string()]),
                Some(false) => {
                    out.push(no_such_field(&name, &seg.text, fields.fields_of(&name).unwrap_or_default(), place, Label::new(file, seg.span.clone(), "no such field")));
                    break;
                }
                None => {
                    if !fields.defines(&name) {
                        let rest = place.segments[i..].iter().map(|s| (s.text.clone(), s.span.clone())).collect();
                        foreign.push(ForeignFields { owner: ty, scope: scope(), place: place.to_string(), fields: rest });
                    }
                    break;
                }
            }
        }
    }
    out
}

fn no_such_field(ty: &str, field: &str, known: &[String], place: impl std::fmt::Display, label: Label) -> Finding {
    let hint = catalogue::did_you_mean(field, known.iter().map(String::as_str));
    Finding::new(&catalogue::UNKNOWN_NAME, format!("`{ty}` has no field `{field}`{hint}: the contract's `{place}` would check nothing"), label)
        .with_help("name a field of the struct; the macro reports the same error when the crate is compiled")
}

/// The type of a contract place's root as written (`self`: the `impl`'s type), through
/// references and smart pointers.
fn root_written<S>(place: &reuse_rules::contract::Place<S>, sig: &syn::Signature, self_type: Option<&str>) -> Option<Vec<String>> {
    match place.root {
        reuse_rules::contract::PlaceRoot::SelfField => self_type.map(|t| vec![t.to_string()]),
        _ => root_type(place, sig).and_then(crate::resolve::written_type_path),
    }
}

/// The declared type of a contract place's root: the parameter's type (`None` for `self`, whose
/// type is the `impl`'s).
fn root_type<'s, S>(place: &reuse_rules::contract::Place<S>, sig: &'s syn::Signature) -> Option<&'s syn::Type> {
    match place.root {
        reuse_rules::contract::PlaceRoot::SelfField => None,
        _ => sig.inputs.iter().find_map(|a| match a {
            syn::FnArg::Typed(t) if matches!(&*t.pat, syn::Pat::Ident(p) if p.ident == place.root_name()) => Some(&*t.ty),
            _ => None,
        }),
    }
}

/// The type name of a contract place's root (`self`: the `impl`'s type), whose fields it names.
fn root_owner<S>(place: &reuse_rules::contract::Place<S>, sig: &syn::Signature, self_type: Option<&str>) -> Option<String> {
    match place.root {
        reuse_rules::contract::PlaceRoot::SelfField => self_type.map(str::to_string),
        _ => root_type(place, sig).and_then(crate::resolve::type_name),
    }
}

/// Whether a `writes` index is a collection of indexes: a parameter of a slice, array or `Vec`
/// type, or a field of such a type of a struct the file declares.
/// The parameters (and `self`) of `sig` passed by reference.
fn borrowed_inputs(sig: &syn::Signature, params: &Params) -> Vec<String> {
    let by_ref = |ty: &syn::Type| matches!(ty, syn::Type::Reference(_));
    let receiver = sig.receiver().filter(|r| by_ref(&r.ty)).map(|_| "self".to_string());
    receiver.into_iter().chain(params.named.iter().filter(|(_, ty)| by_ref(ty)).map(|(n, _)| n.clone())).collect()
}

fn index_is_buffer<S>(index: &reuse_rules::contract::Place<S>, sig: &syn::Signature, self_type: Option<&str>, fields: &crate::resolve::FieldTypes) -> bool {
    let root = root_type(index, sig);
    let Some((last, between)) = index.segments.split_last() else { return false };
    if between.is_empty() {
        return root.and_then(crate::resolve::element_type).is_some();
    }
    let mut owner = root_owner(index, sig, self_type);
    for seg in &between[1..] {
        owner = owner.and_then(|ty| fields.field_type(&ty, &seg.text).map(str::to_string));
    }
    owner.is_some_and(|ty| fields.element(&ty, &last.text).is_some())
}

/// Where a contract is written, for resolving the paths it names as Rust resolves them there.
struct NameScope<'a> {
    crate_name: &'a str,
    /// The module of the contracted function, crate name first.
    module: &'a [String],
    self_type: Option<&'a str>,
    imports: &'a crate::resolve::Imports,
    /// The modules declared in that module (`mod kv;`, `mod kv { .. }`).
    child_modules: Vec<String>,
    /// A contracts file's: its paths are definition paths.
    external: bool,
}

impl NameScope<'_> {
    /// `crate`, `self`, `super` and `Self` expanded; `None` for other first segments.
    fn anchored(&self, segments: &[String]) -> Option<Vec<String>> {
        if segments[0] == "Self" {
            let home = self.self_type.map(|t| crate::analysis::type_home(self.module, self.imports, t)).unwrap_or_else(|| self.module.to_vec());
            return Some(home.into_iter().chain(segments[1..].iter().cloned()).collect());
        }
        let (expanded, anchored) = crate::resolve::expand_anchor(segments, self.crate_name, self.module);
        anchored.then_some(expanded)
    }

    /// The definition paths an `except(..)` path may name: an anchored path; a path through an
    /// import; else an item of this module, a crate's item, or an item of a glob import.
    fn candidates(&self, segments: &[String]) -> Vec<Vec<String>> {
        if let Some(p) = self.anchored(segments) {
            return if segments[0] == "Self" && self.self_type.is_none() { Vec::new() } else { vec![p] };
        }
        if let Some(through) = self.imports.through(self.module, segments) {
            return through;
        }
        let local: Vec<String> = self.module.iter().chain(segments).cloned().collect();
        let mut out = vec![local, segments.to_vec()];
        out.extend(self.imports.globs().iter().map(|g| g.iter().chain(segments).cloned().collect()));
        out
    }

    fn excepts(&self, contract: &FileContract) -> Vec<ExceptRef> {
        contract
            .sanctioned_writers()
            .map(|(_, f)| {
                let (first, last) = f.spans();
                let segments: Vec<String> = f.segments.iter().map(|s| s.text.clone()).collect();
                ExceptRef { range: first.start..last.end, text: f.to_string(), candidates: self.candidates(&segments) }
            })
            .collect()
    }

    /// Whether a constant's path can only come from the workspace: anchored (`crate::`, `Self::`),
    /// through a module of this crate, or a plain name neither imported nor possibly brought by a
    /// glob import. Names from other crates (imports, unknown first segments) are left to rustc.
    fn workspace_only(&self, segments: &[String]) -> bool {
        if self.anchored(segments).is_some() {
            return true;
        }
        match (segments.len(), self.imports.get(&segments[0])) {
            (_, Some(imported)) => segments.len() > 1 && imported.first().is_some_and(|c| c == self.crate_name),
            (1, None) => self.imports.globs().is_empty(),
            (_, None) => self.child_modules.contains(&segments[0]),
        }
    }

    fn const_refs(&self, contract: &FileContract) -> Vec<ConstRef> {
        contract.const_paths().into_iter().filter_map(|p| self.const_ref(p)).collect()
    }

    /// A constant's path, when only the workspace can define it (see [`Self::workspace_only`]),
    /// with the definition paths it may name when it has a module part. A contracts file names
    /// definition paths (`kv::consts::PAD_SLOT_ID`, crate first) or paths of the module its
    /// function is declared in; whether such a crate is in the check is known only later.
    fn const_ref(&self, p: &reuse_rules::contract::Place<Range<usize>>) -> Option<ConstRef> {
        let segments: Vec<String> = p.segments.iter().map(|s| s.text.clone()).collect();
        let (name_checked, paths) = match self.anchored(&segments) {
            Some(mut expanded) => {
                if self.external && expanded[0] == "crate" {
                    expanded[0] = self.module.first()?.clone();
                }
                (true, vec![expanded])
            }
            None if self.external && segments.len() > 1 => (false, vec![segments.clone(), self.module.iter().chain(&segments).cloned().collect()]),
            None if !self.workspace_only(&segments) => return None,
            None if segments.len() == 1 => (true, Vec::new()),
            None => (true, self.imports.through(self.module, &segments).unwrap_or_else(|| vec![self.module.iter().chain(&segments).cloned().collect()])),
        };
        Some(ConstRef { range: p.first_span().start..p.last_span().end, text: p.to_string(), name: p.last_name().to_string(), name_checked, paths })
    }
}

/// The modules declared in the inline module `rel` of a file's items.
fn child_modules(items: &[Item], rel: &[String]) -> Vec<String> {
    let mut items = items;
    for name in rel {
        let inner = items.iter().find_map(|i| match i {
            Item::Mod(m) if m.ident == name => m.content.as_ref().map(|(_, c)| c.as_slice()),
            _ => None,
        });
        match inner {
            Some(c) => items = c,
            None => return Vec::new(),
        }
    }
    items.iter().filter_map(|i| if let Item::Mod(m) = i { Some(m.ident.to_string()) } else { None }).collect()
}

/// The name of every `const` and `static` item of a text, whatever its value or type (`const
/// NAME:`, `static mut NAME:`), read line by line without parsing.
pub fn scan_const_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace().skip_while(|w| w.starts_with("pub") || *w == "unsafe");
        let Some(kw) = words.next() else { continue };
        if kw != "const" && kw != "static" {
            continue;
        }
        let mut next = words.next().unwrap_or("");
        if next == "mut" {
            next = words.next().unwrap_or("");
        }
        if next == "fn" || next.starts_with("fn(") {
            continue;
        }
        let name = next.split(':').next().unwrap_or("");
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit()) {
            out.push(name.to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

fn collect_consts(items: &[Item], out: &mut Vec<(String, ConstExpr)>) {
    for item in items {
        match item {
            Item::Const(c) => {
                if let Some(v) = ConstExpr::of(&c.expr) {
                    out.push((c.ident.to_string(), v));
                }
            }
            Item::Static(s) => {
                if let Some(v) = ConstExpr::of(&s.expr) {
                    out.push((s.ident.to_string(), v));
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_consts(items, out);
                }
            }
            Item::Impl(imp) => {
                for it in &imp.items {
                    if let syn::ImplItem::Const(c) = it {
                        if let Some(v) = ConstExpr::of(&c.expr) {
                            out.push((c.ident.to_string(), v));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The module-level words of a file's text that the index reads without parsing it, found by one
/// pass over its bytes that skips comments, strings and character literals and follows braces:
/// each `use` and `extern` keyword at a module's level (the file's, or an inline `mod name { .. }`'s),
/// with that module's path inside the file, and the functions, constants and statics each module
/// defines. A keyword inside any other brace (a function body, an `impl`, a block) is not a
/// module's: a `use` there names nothing outside its block.
struct ModuleWords<'t> {
    /// Byte offset of the keyword, whether it is `use` (else `extern`), and the module it is in,
    /// relative to the file's.
    keywords: Vec<(usize, bool, Vec<&'t str>)>,
    /// Names defined at each module's level, by module relative to the file's.
    items: Vec<(Vec<&'t str>, &'t str)>,
}

impl<'t> ModuleWords<'t> {
    fn of(text: &'t str) -> ModuleWords<'t> {
        let b = text.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        let ident_at = |i: usize| -> &'t str {
            let len = b[i..].iter().position(|&c| !word(c)).unwrap_or(b.len() - i);
            &text[i..i + len]
        };
        let skip_ws = |mut i: usize| {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            i
        };
        let mut out = ModuleWords { keywords: Vec::new(), items: Vec::new() };
        // One entry per open brace: the module it opens, or `None` for any other brace.
        let mut open: Vec<Option<&'t str>> = Vec::new();
        let mut modules: Vec<&'t str> = Vec::new();
        let at_module_level = |open: &[Option<&str>]| open.last().is_none_or(Option::is_some);
        let mut i = 0;
        while i < b.len() {
            // Inside a body only comments, literals and braces matter: skip to the next one.
            if !at_module_level(&open) {
                while i < b.len() && !matches!(b[i], b'/' | b'"' | b'\'' | b'{' | b'}' | b'r') {
                    i += 1;
                }
                if i == b.len() {
                    break;
                }
            }
            if let Some(next) = crate::source::skip_non_code(text, i) {
                i = next;
                continue;
            }
            match b[i] {
                b'{' => {
                    let before = text[..i].trim_end();
                    let name = &before[before.len() - before.bytes().rev().take_while(|&c| word(c)).count()..];
                    let head = before[..before.len() - name.len()].trim_end();
                    let is_mod = !name.is_empty() && head.ends_with("mod") && !head[..head.len() - 3].bytes().next_back().is_some_and(word);
                    if is_mod {
                        modules.push(name);
                    }
                    open.push(is_mod.then_some(name));
                }
                b'}' => {
                    if let Some(Some(_)) = open.pop() {
                        modules.pop();
                    }
                }
                c if word(c) && (i == 0 || !(word(b[i - 1]) || b[i - 1] == b'\'')) => {
                    let w = ident_at(i);
                    // `br"..."`: the raw string starts at its `r`.
                    if w == "br" && crate::source::skip_non_code(text, i + 1).is_some() {
                        i += 1;
                        continue;
                    }
                    i += w.len();
                    if !at_module_level(&open) {
                        continue;
                    }
                    match w {
                        "use" | "extern" => out.keywords.push((i - w.len(), w == "use", modules.clone())),
                        // Not `*const T`, nor a const generic (`<const N: usize>`).
                        "const" if matches!(text[..i - w.len()].trim_end().bytes().next_back(), Some(b'*' | b'<' | b',')) => {}
                        "fn" | "const" | "static" => {
                            let mut next = skip_ws(i);
                            let mut name = ident_at(next.min(b.len()));
                            if matches!(name, "fn" | "mut") {
                                next = skip_ws(next + name.len());
                                name = ident_at(next.min(b.len()));
                            }
                            if !name.is_empty() && name != "_" && !matches!(name, "unsafe" | "async" | "extern") {
                                out.items.push((modules.clone(), name));
                            }
                        }
                        _ => {}
                    }
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        out
    }
}

/// The `use` items (and `extern crate` items) of a file's text, without parsing the file: each
/// statement is cut out and parsed alone, in the module it stands in (the file's, or an inline
/// module's: `pub mod ops { pub use super::f as g; }` is `ops::g`). An import in any other brace
/// (a function body, a block) names nothing outside it and is not taken.
pub fn scan_uses(text: &str, module: &[String]) -> Vec<Reexport> {
    scan_use_facts(text, module).0
}

/// [`scan_uses`], and, when the file glob-imports, the functions, constants and statics each of
/// its modules defines, by module (a module's item shadows the glob imports of its name).
pub fn scan_use_facts(text: &str, module: &[String]) -> (Vec<Reexport>, Vec<ModuleItems>) {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let words = ModuleWords::of(text);
    let full = |inner: &[&str]| -> Vec<String> { module.iter().cloned().chain(inner.iter().map(|s| s.to_string())).collect() };
    let mut out = Vec::new();
    let mut from = 0;
    for (at, is_use, inner) in &words.keywords {
        let at = *at;
        if at < from {
            continue;
        }
        let keyword_len = if *is_use { 3 } else { 6 };
        if !text[at + keyword_len..].starts_with([' ', '\t']) {
            continue;
        }
        // `extern "C" fn` and `extern { .. }` are no imports (and their `;` is far).
        if !is_use && !text[at + keyword_len..].trim_start().starts_with("crate") {
            continue;
        }
        let before = &text[..at];
        let trimmed = before.trim_end_matches([' ', '\t']);
        // `pub`, `pub(crate)`, `pub(in crate::a)`: where the visibility starts (what it says is
        // read from the parsed item).
        let vis_start = || {
            let head = match trimmed.strip_suffix(')') {
                Some(inner) => inner[..inner.rfind('(')?].trim_end(),
                None => trimmed,
            };
            let start = head.strip_suffix("pub")?.len();
            (!is_word(head[..start].chars().next_back())).then_some(start)
        };
        let start = vis_start().unwrap_or(at);
        // At the start of a statement (`#[cfg(..)] pub use` included), not inside a word.
        let prefix = before[..start].trim_end_matches([' ', '\t', '\r']);
        if !(prefix.is_empty() || prefix.ends_with(['\n', ';', '{', '}', ']'])) {
            continue;
        }
        let Some(end) = text[at..].find(';').map(|e| at + e) else { break };
        let module = full(inner);
        if *is_use {
            if let Ok(item) = syn::parse_str::<syn::ItemUse>(&text[start..=end]) {
                use_tree_reexports(&item.tree, &mut Vec::new(), &module, is_private(&item.vis), &mut out);
            }
        } else if let Ok(item) = syn::parse_str::<syn::ItemExternCrate>(&text[start..=end]) {
            // `extern crate kv as kvc;`: `kvc` names the crate `kv` in this module (at the crate
            // root, in every module of the crate: [`Index::add`]).
            let name = item.rename.as_ref().map_or(&item.ident, |(_, r)| r).to_string();
            if name != "_" && item.ident != "self" {
                out.push(Reexport { module, name, target: vec![item.ident.to_string()], relative: false, private: is_private(&item.vis), extern_crate: true });
            }
        }
        from = end + 1;
    }
    let mut items: Vec<ModuleItems> = Vec::new();
    if out.iter().any(|r| r.name == "*") {
        for (inner, name) in &words.items {
            let m = full(inner);
            match items.iter_mut().find(|(k, _)| *k == m) {
                Some((_, names)) => names.push(name.to_string()),
                None => items.push((m, vec![name.to_string()])),
            }
        }
        for (_, names) in &mut items {
            names.sort();
            names.dedup();
        }
    }
    (out, items)
}

/// Whether an import's visibility keeps it in its module (no `pub`, or `pub(self)`); any other
/// `pub(..)` is taken as visible wherever it is named (rustc rejects the rest).
fn is_private(vis: &syn::Visibility) -> bool {
    match vis {
        syn::Visibility::Inherited => true,
        syn::Visibility::Restricted(r) => r.path.is_ident("self"),
        syn::Visibility::Public(_) => false,
    }
}

/// The functions, constants and statics a file defines at its top level, by name (not those of
/// its inline modules, nor methods). They shadow glob imports of their name.
pub fn scan_item_names(text: &str) -> Vec<String> {
    let mut out: Vec<String> = ModuleWords::of(text).items.into_iter().filter(|(m, _)| m.is_empty()).map(|(_, n)| n.to_string()).collect();
    out.sort();
    out.dedup();
    out
}

fn use_tree_reexports(tree: &syn::UseTree, prefix: &mut Vec<String>, module: &[String], private: bool, out: &mut Vec<Reexport>) {
    let expand = |prefix: &[String], last: Option<&str>| -> (Vec<String>, bool) {
        let written: Vec<String> = prefix.iter().cloned().chain(last.map(str::to_string)).collect();
        let (full, anchored) = crate::resolve::expand_anchor(&written, module.first().map_or("crate", String::as_str), module);
        (full, !anchored)
    };
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree_reexports(&p.tree, prefix, module, private, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let (target, relative) = if name == "self" { expand(prefix, None) } else { expand(prefix, Some(&name)) };
            let exported = if name == "self" { prefix.last().cloned().unwrap_or_default() } else { name };
            out.push(Reexport { module: module.to_vec(), name: exported, target, relative, private, extern_crate: false });
        }
        syn::UseTree::Rename(r) => {
            // `use x as _;` names nothing; `use kv::{self as k};` names `kv`.
            if r.rename != "_" {
                let (target, relative) = if r.ident == "self" { expand(prefix, None) } else { expand(prefix, Some(&r.ident.to_string())) };
                out.push(Reexport { module: module.to_vec(), name: r.rename.to_string(), target, relative, private, extern_crate: false });
            }
        }
        syn::UseTree::Glob(_) => {
            let (target, relative) = expand(prefix, None);
            out.push(Reexport { module: module.to_vec(), name: "*".into(), target, relative, private, extern_crate: false });
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree_reexports(t, prefix, module, private, out);
            }
        }
    }
}

/// Integer constants of a file that is not parsed (`pub const PAD_SLOT_ID: i64 = -1;`), read from
/// the text line by line: sentinels and null-block constants are often defined far from the
/// contracts that use them, and parsing every file just for them would cost what the prefilter saves.
pub fn scan_int_consts(text: &str) -> Vec<(String, ConstExpr)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let rest = t.strip_prefix("pub ").or_else(|| t.strip_prefix("pub(crate) ")).unwrap_or(t);
        let Some(rest) = rest.strip_prefix("const ").or_else(|| rest.strip_prefix("static ")) else { continue };
        let Some((name, rest)) = rest.split_once(':') else { continue };
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some((_, value)) = rest.split_once('=') else { continue };
        let Some(value) = value.trim().strip_suffix(';') else { continue };
        if let Some(v) = syn::parse_str::<Expr>(value).ok().as_ref().and_then(ConstExpr::of) {
            out.push((name.to_string(), v));
        }
    }
    out
}

/// The value of an integer literal expression: `0`, `-1`, `(-1)`, `-1i64`, `0 as i64`, and
/// arithmetic of literals (`1 << 4`).
pub fn int_value(expr: &Expr) -> Option<i128> {
    ConstExpr::of(expr)?.eval(&mut |_| None)
}

/// An integer constant's definition as far as the index evaluates it: literals, other constants
/// by name, and the arithmetic engines write (`PAD_SLOT_ID + 1`, `1 << 4`, `BLOCK_SIZE * 2`).
/// A name is looked up when the value is asked for, once every file is indexed: the constant it
/// names may be defined in a file read later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstExpr {
    Int(i128),
    /// Another constant, by its last path segment (`kv::PAD_SLOT_ID`, `Self::BLOCK`).
    Name(String),
    /// The constant a renamed import names (`use kv::NULL_BLOCK as NULL;`), by the path written
    /// there (`crate`/`self`/`super` expanded).
    Alias(Vec<String>),
    Neg(Box<ConstExpr>),
    Binary(ConstOp, Box<ConstExpr>, Box<ConstExpr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
}

/// The value of `T::MAX` or `T::MIN` of an integer type `T` that fits an `i128`.
fn integer_bound(path: &syn::Path) -> Option<i128> {
    let [ty, bound] = path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().try_into().ok()?;
    let (min, max): (i128, i128) = match ty.as_str() {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        _ => return None,
    };
    match bound.as_str() {
        "MAX" => Some(max),
        "MIN" => Some(min),
        _ => None,
    }
}

/// Whether a called name may be a newtype's constructor: capitalised, and not one of the
/// prelude's wrappers whose content is no integer of the program (`Some(0)` is no block id).
fn is_newtype_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase()) && !["Some", "Ok", "Err", "Box", "Arc", "Rc", "Cell", "RefCell", "Mutex", "RwLock"].contains(&name)
}

impl ConstExpr {
    pub fn of(expr: &Expr) -> Option<ConstExpr> {
        Some(match expr {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => ConstExpr::Int(i.base10_parse().ok()?),
                _ => return None,
            },
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => ConstExpr::Neg(Box::new(ConstExpr::of(&u.expr)?)),
            Expr::Paren(p) => ConstExpr::of(&p.expr)?,
            Expr::Group(g) => ConstExpr::of(&g.expr)?,
            Expr::Cast(c) => ConstExpr::of(&c.expr)?,
            // `i64::from(0u8)`
            Expr::Call(c) if c.args.len() == 1 && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "from")) => {
                ConstExpr::of(&c.args[0])?
            }
            // `BlockId(0)`, `SlotId(-1)`, `Self(0)`: a newtype's constructor holds the integer
            // (a type or variant name, capitalised; not `Some`/`Ok`/`Err` nor a pointer).
            Expr::Call(c) if c.args.len() == 1 && matches!(&*c.func, Expr::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| is_newtype_name(&s.ident.to_string()))) => {
                ConstExpr::of(&c.args[0])?
            }
            // `usize::MAX`, `u32::MAX`, `i64::MIN` (a 64-bit target's `usize`), else a constant's name.
            Expr::Path(p) if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none()) => match integer_bound(&p.path) {
                Some(bound) => ConstExpr::Int(bound),
                None => ConstExpr::Name(p.path.segments.last()?.ident.to_string()),
            },
            Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => ConstOp::Add,
                    syn::BinOp::Sub(_) => ConstOp::Sub,
                    syn::BinOp::Mul(_) => ConstOp::Mul,
                    syn::BinOp::Div(_) => ConstOp::Div,
                    syn::BinOp::Rem(_) => ConstOp::Rem,
                    syn::BinOp::Shl(_) => ConstOp::Shl,
                    syn::BinOp::Shr(_) => ConstOp::Shr,
                    syn::BinOp::BitAnd(_) => ConstOp::BitAnd,
                    syn::BinOp::BitOr(_) => ConstOp::BitOr,
                    syn::BinOp::BitXor(_) => ConstOp::BitXor,
                    _ => return None,
                };
                ConstExpr::Binary(op, Box::new(ConstExpr::of(&b.left)?), Box::new(ConstExpr::of(&b.right)?))
            }
            _ => return None,
        })
    }

    /// The value, with `name` giving the values of the constants it names; `None` when one is
    /// unknown or the arithmetic overflows.
    pub fn eval(&self, name: &mut dyn FnMut(&str) -> Option<i128>) -> Option<i128> {
        match self {
            ConstExpr::Int(v) => Some(*v),
            ConstExpr::Name(n) => name(n),
            ConstExpr::Alias(path) => name(path.last()?),
            ConstExpr::Neg(e) => e.eval(name)?.checked_neg(),
            ConstExpr::Binary(op, l, r) => {
                let (l, r) = (l.eval(name)?, r.eval(name)?);
                match op {
                    ConstOp::Add => l.checked_add(r),
                    ConstOp::Sub => l.checked_sub(r),
                    ConstOp::Mul => l.checked_mul(r),
                    ConstOp::Div => l.checked_div(r),
                    ConstOp::Rem => l.checked_rem(r),
                    ConstOp::Shl => l.checked_shl(u32::try_from(r).ok()?),
                    ConstOp::Shr => l.checked_shr(u32::try_from(r).ok()?),
                    ConstOp::BitAnd => Some(l & r),
                    ConstOp::BitOr => Some(l | r),
                    ConstOp::BitXor => Some(l ^ r),
                }
            }
        }
    }
}

/// Whether the finding's rule is one of the well-formedness rules reported while indexing.
pub fn is_wellformedness(rule: &reuse_rules::Rule) -> bool {
    [&catalogue::CONTRACT_SYNTAX, &catalogue::UNKNOWN_NAME, &catalogue::ALIAS_TYPE_MISMATCH].contains(&rule)
}

/// Whether `text` invokes a macro named `name` (`name!(`, `name! {`, `tracing::name![`) and
/// never calls a function or method of that name (`name(`, `.name::<T>(`).
fn invokes_macro(text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    let (mut invoked, mut called) = (false, false);
    for (at, _) in text.match_indices(name) {
        let end = at + name.len();
        if !crate::engine::whole_word(bytes, at, end) {
            continue;
        }
        let after = text[end..].trim_start();
        invoked |= after.strip_prefix('!').is_some_and(|a| a.trim_start().starts_with(['(', '{', '[']));
        called |= after.starts_with('(') || after.starts_with("::<");
    }
    invoked && !called
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<String> {
        s.split("::").map(str::to_string).collect()
    }

    /// An index of the `use` items and glob-shadowing names of files, as the engine reads them.
    fn index_with(files: &[(&str, &str)]) -> Index {
        let mut index = Index::default();
        for (module, text) in files {
            let (reexports, items) = scan_use_facts(text, &p(module));
            index.add(FileDecls { reexports, items, ..Default::default() });
        }
        index
    }

    #[test]
    fn a_constant_computed_from_others_is_evaluated_once_every_file_is_indexed() {
        let mut index = Index::default();
        // Read before the constant it names, in another crate's file and in its own.
        index.add(FileDecls { krate: Some("eng".into()), consts: scan_int_consts("pub const FIRST: i64 = kv::PAD_SLOT_ID + 1;\nconst SHIFTED: usize = 1 << BITS;\nconst A: i64 = B;\nconst B: i64 = A;"), ..Default::default() });
        index.add(FileDecls { krate: Some("kv".into()), consts: scan_int_consts("pub const PAD_SLOT_ID: i64 = -1;\npub(crate) const BITS: u32 = 4;"), ..Default::default() });
        assert_eq!(index.const_value_in("FIRST", &["eng"]), Some(0));
        assert_eq!(index.const_value_in("SHIFTED", &["eng"]), Some(16));
        // A cycle is unknown, not a hang.
        assert_eq!(index.const_value_in("A", &["eng"]), None);
        // A crate with its own definition sees it in the constants computed from it.
        index.add(FileDecls { krate: Some("eng".into()), consts: scan_int_consts("const PAD_SLOT_ID: i64 = 7;"), ..Default::default() });
        assert_eq!(index.const_value_in("FIRST", &["eng"]), Some(8));
        // A renamed import of a constant (`use kv::PAD_SLOT_ID as NONE;`) has its value.
        let (reexports, _) = scan_use_facts("use kv::PAD_SLOT_ID as NONE;\nuse kv::write as put;", &p("eng::m"));
        index.add(FileDecls { krate: Some("eng".into()), reexports, ..Default::default() });
        assert_eq!(index.const_value_in("NONE", &["eng"]), Some(-1));
        assert_eq!(index.const_value_in("put", &["eng"]), None);
        assert_eq!(int_value(&syn::parse_quote!((2 * 8) as usize)), Some(16));
        assert_eq!(int_value(&syn::parse_quote!(PAD_SLOT_ID + 1)), None);
    }

    #[test]
    fn uses_are_read_without_parsing_the_file() {
        let text = "//! docs\n//! use not::this;\npub mod ops;\nextern \"C\" fn launch() {}\npub use ops::write;\npub use ops::{read, write as cache_kv};\n#[cfg(unix)] pub use self::inner::*;\npub(crate) use crate::x::y;\nfn republic() { let pub_use = 1; because x; }\nuse private::z;\nuse std::fmt::Write as _;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\nfn f() {\n    use inner::q;\n    pub use inner::r;\n}\nconst S: &str = \"mod fake { pub use a::b; }\";\nconst C: char = '{';\n/* mod c { pub use a::b; } */\nconst R: &str = r#\"mod r { pub use a::b; }\"#;\nconst B: &[u8] = br\"{\";\nextern crate kv as kvc;\n";
        let r = |module: &str, name: &str, target: &str, relative: bool, private: bool| Reexport { module: p(module), name: name.into(), target: p(target), relative, private, extern_crate: false };
        // Each import in the module it stands in (an inline module's, private or not); none from
        // a function body, a string, a comment; a `'{'` opens no brace.
        assert_eq!(
            scan_uses(text, &p("kv")),
            vec![
                r("kv", "write", "ops::write", true, false),
                r("kv", "read", "ops::read", true, false),
                r("kv", "cache_kv", "ops::write", true, false),
                r("kv", "*", "kv::inner", false, false),
                r("kv", "y", "kv::x::y", false, false),
                r("kv", "z", "private::z", true, true),
                r("kv::tests", "*", "kv", false, true),
                Reexport { extern_crate: true, ..r("kv", "kvc", "kv", false, true) },
            ]
        );
        // `pub(in ..)` and `pub(self)` visibilities; `self as` names the module it is in.
        let text = "pub(in crate) use kv::write as w;\npub(self) use kv::read;\nuse kv::{self as k};\n";
        assert_eq!(scan_uses(text, &p("e")), vec![r("e", "w", "kv::write", true, false), r("e", "read", "kv::read", true, true), r("e", "k", "kv", true, true)]);
    }

    /// `extern crate kernels as k;` at the crate root puts `k` in the extern prelude of every
    /// module of the crate; in another module it names the crate there only.
    #[test]
    fn an_extern_crate_at_the_root_is_in_every_module_s_prelude() {
        let index = index_with(&[("e", "extern crate kernels as k;\nmod child;\n"), ("e::m", "extern crate kernels as km;\n")]);
        assert!(index.aliases_from(&p("k::write"), Some(&p("e::child"))).contains(&p("kernels::write")));
        assert!(!index.aliases_from(&p("km::write"), Some(&p("e::child"))).contains(&p("kernels::write")));
    }

    #[test]
    fn imports_of_inline_modules_are_theirs_with_what_the_module_defines() {
        let text = "pub mod ops {\n    pub use super::f as g;\n    pub use self::inner::{a, b::{c, d as e}};\n    pub mod inner { pub use crate::zz::*; pub fn own() {} }\n    fn local() {}\n    const K: u8 = 0;\n    impl T { fn method() {} }\n}\nmod a { mod b { use super::super::x; } }\n";
        let (uses, items) = scan_use_facts(text, &p("c"));
        let found: Vec<(Vec<String>, String, Vec<String>)> = uses.into_iter().map(|r| (r.module, r.name, r.target)).collect();
        assert_eq!(
            found,
            vec![
                (p("c::ops"), "g".into(), p("c::f")),
                (p("c::ops"), "a".into(), p("c::ops::inner::a")),
                (p("c::ops"), "c".into(), p("c::ops::inner::b::c")),
                (p("c::ops"), "e".into(), p("c::ops::inner::b::d")),
                (p("c::ops::inner"), "*".into(), p("c::zz")),
                (p("c::a::b"), "x".into(), p("c::x")),
            ]
        );
        // A method is no item of its module.
        assert_eq!(items, vec![(p("c::ops::inner"), vec!["own".to_string()]), (p("c::ops"), vec!["K".to_string(), "local".to_string()])]);
    }

    #[test]
    fn top_level_item_names_are_read_without_parsing_the_file() {
        let text = "pub fn new(a: u8) {}\nconst fn from<T>() {}\npub(crate) async unsafe fn run() {}\npub static mut COUNT: u8 = 0;\nconst LIMIT: usize = 3;\nextern \"C\" fn launch() {}\nimpl K {\n    pub fn get(&self) {}\n}\nstruct S;\n";
        assert_eq!(scan_item_names(text), vec!["COUNT", "LIMIT", "from", "launch", "new", "run"]);
    }

    #[test]
    fn a_glob_is_shadowed_by_an_item_or_a_named_import_of_the_module() {
        let index = index_with(&[
            ("c", "pub use ops::*;\npub use other::insert;\npub fn new() {}\n"),
            ("c::ops", "pub fn new() {}\npub fn insert() {}\npub fn write() {}\n"),
        ]);
        let reaches = |from: &str, to: &str| index.aliases(&p(from)).contains(&p(to));
        assert!(reaches("c::write", "c::ops::write"));
        // `c` defines its own `new` and imports `insert` by name: neither is the glob's.
        assert!(!reaches("c::new", "c::ops::new"));
        assert!(!reaches("c::insert", "c::ops::insert"));
        assert!(reaches("c::insert", "other::insert"));
    }

    #[test]
    fn private_imports_name_things_only_in_their_module_and_below() {
        // The crate root glob-imports a module privately (`mod zz; use zz::*;`).
        let index = index_with(&[("c", "mod zz;\nmod child;\nuse zz::*;\nuse zz::new as make;\n")]);
        let from = |m: &str, path: &str| index.aliases_from(&p(path), Some(&p(m)));
        // `crate::new`, `super::make` (or `use super::*;` then `new`) written in the crate.
        assert!(from("c", "c::new").contains(&p("c::zz::new")));
        assert!(from("c::child", "c::new").contains(&p("c::zz::new")));
        assert!(from("c::child", "c::make").contains(&p("c::zz::new")));
        // Not from another crate, and not without a module to see it from.
        assert!(!from("d", "c::new").contains(&p("c::zz::new")));
        assert!(!index.aliases(&p("c::new")).contains(&p("c::zz::new")));
    }

    /// The prefilter's second names are closed transitively: a rename of a rename (`w2` of
    /// `w1` of `reshape`) is a name a file may call the kernel by, in the crate that gives it.
    #[test]
    fn renames_of_renames_are_second_names_too() {
        let index = index_with(&[
            ("kv", "pub mod a { pub use crate::reshape as w1; }\npub mod b { pub use crate::a::w1 as w2; }\npub mod c { pub use crate::b::*; }\n"),
            ("mid", "pub mod shim { pub use kv::b::w2 as write; }\n"),
        ]);
        let got = index.renamed_reexports(&["reshape".to_string()]);
        let want: Vec<(String, String)> = [("w1", "kv"), ("w2", "kv"), ("write", "mid")].iter().map(|(n, k)| (n.to_string(), k.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_glob_of_a_module_that_re_exports_reaches_the_definition() {
        let index = index_with(&[("kv", "pub mod ops;\npub use ops::write as cache_kv;\n"), ("engine", "use kv::*;\n")]);
        assert!(index.aliases_from(&p("kv::cache_kv"), Some(&p("engine"))).contains(&p("kv::ops::write")));
    }

    #[test]
    fn a_glob_stands_for_a_type_before_its_associated_item_but_not_for_a_module_on_the_way() {
        let index = index_with(&[("kv", "pub mod obs;\npub use obs::*;\n")]);
        assert!(index.aliases(&p("kv::StepGuard::begin")).contains(&p("kv::obs::StepGuard::begin")));
        assert!(!index.aliases(&p("kv::ops::write")).contains(&p("kv::obs::ops::write")));
    }

    #[test]
    fn re_export_chains_renames_and_globs_reach_the_definition() {
        let index = index_with(&[
            ("kv", "pub mod ops;\npub use ops::write;\npub use ops::write as cache_kv;\npub use layers::*;\n"),
            ("engine", "pub use kv::cache_kv as store;\n"),
        ]);
        let reaches = |from: &str, to: &str| index.aliases(&p(from)).contains(&p(to));
        assert!(reaches("kv::write", "kv::ops::write"));
        assert!(reaches("kv::cache_kv", "kv::ops::write"));
        // A chain through another crate's re-export of a renamed re-export.
        assert!(reaches("engine::store", "kv::ops::write"));
        // A glob re-export: any name of `kv` may be one of `kv::layers`.
        assert!(reaches("kv::attention", "kv::layers::attention"));
        // Nothing is guessed: names no re-export mentions name only themselves.
        assert_eq!(index.aliases(&p("kv::ops::write")), vec![p("kv::ops::write")]);
        assert_eq!(index.aliases(&p("other::write")), vec![p("other::write")]);
    }

    #[test]
    fn re_export_cycles_end() {
        let index = index_with(&[("a", "pub use crate::b::*;\n"), ("a::b", "pub use crate::*;\n")]);
        assert!(index.aliases(&p("a::f")).len() <= 64);
    }
}
