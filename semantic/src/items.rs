//! Items across files: the files of a check by module path, and the light types each declares
//! (field types of its structs, return types of its functions and methods), keyed by definition
//! path and resolved through the imports of the file that declares them.
//!
//! Built once per check and shared by the analysis threads. Nothing is parsed up front: a file is
//! parsed when the analysis first asks for an item it defines (a field of a struct declared there,
//! what a function of it returns, a helper of it to summarise), so a cold check still parses only
//! the files that may matter and the few that define what those name. What a file declares is
//! kept as owned data (no spans: an AST cannot leave the thread that parsed it).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::index::Index;
use crate::resolve::{Resolver, TypeRef};
use crate::source::FileRef;

/// A file of the check that declares items: Rust source of the workspace or its dependencies.
pub struct ItemFile {
    pub file: FileRef,
    pub crate_name: String,
    /// Module path, crate name first.
    pub module: Vec<String>,
    /// The crates the file's crate reaches through its dependencies (`None`: unknown, any).
    pub reach: Option<Arc<std::collections::HashSet<String>>>,
}

/// The files of a check, what is known of their items, and the rules' summaries of functions
/// in other files than the one analysed (per check: computed once, whichever file asks first).
#[derive(Default)]
pub struct WorkspaceItems {
    files: Vec<ItemFile>,
    by_module: HashMap<Vec<String>, usize>,
    types: Vec<OnceLock<Arc<FileTypes>>>,
    /// Per file, the names written after `fn` in its text ([`fn_names`]), read on first ask.
    fn_names: Vec<OnceLock<std::collections::HashSet<String>>>,
    pub(crate) summaries: crate::rules::SharedSummaries,
    /// Per crate, the names its code gives renamed dependencies ([`crate::engine::FileJob::renames`]).
    pub crate_renames: HashMap<String, HashMap<String, String>>,
    /// Every name the files call, or may call under another name (see [`Self::may_be_called`]).
    called: OnceLock<Arc<std::collections::HashSet<String>>>,
    /// The names asked about before the whole set was read, with the answers.
    asked: std::sync::Mutex<HashMap<String, bool>>,
    /// [`Self::implementations`] already found, by trait and method.
    implementations: std::sync::Mutex<HashMap<TraitMethod, Vec<Vec<String>>>>,
    /// [`Self::trait_defaults`], by method name.
    trait_defaults: std::sync::Mutex<HashMap<String, Vec<Vec<String>>>>,
    /// The files whose text may define a `macro_rules!` or declare `#[macro_use]` modules, read
    /// on the first call of a macro that its own file does not define.
    macro_files: OnceLock<Vec<usize>>,
    /// Per file, what it declares of `macro_rules!`, parsed on first ask.
    macro_defs: Vec<OnceLock<Arc<FileMacroDefs>>>,
}

/// What a file declares of `macro_rules!`: its definitions outside function bodies, and the
/// file modules it declares `#[macro_use]`.
#[derive(Debug, Default)]
struct FileMacroDefs {
    defs: Vec<MacroDef>,
    /// `#[macro_use] mod name;`: the macros of that module stay in scope after the declaration.
    /// By path from the file's module (`["reg", "defs"]` of `#[macro_use] mod reg { #[macro_use]
    /// mod defs; }`), inline modules too.
    macro_use_mods: std::collections::HashSet<Vec<String>>,
    /// Each module the file declares (`mod name;`, `mod name { .. }`), by path from the file's
    /// module, with its position among the file's items (that of the outermost inline module
    /// it is in): a macro is in textual scope in the modules declared after it.
    mods: HashMap<Vec<String>, usize>,
    /// The names the file gives its items by a `use` of its own (`pub(crate) use launch;`, `pub
    /// use pad_fill as fill;`), with the item's: a macro of it is reached so by path
    /// (`crate::kmacros::launch!`, or imported).
    reexported: HashMap<String, String>,
}

#[derive(Debug)]
struct MacroDef {
    name: String,
    /// Its rules (`(matcher) => { transcriber };` each) as text: tokens cannot leave the thread
    /// that parsed them.
    rules: String,
    /// `#[macro_export]`: at the crate root, reached by path (`crate::name!`, or imported).
    exported: bool,
    /// Written outside the file's inline modules, or in `#[macro_use]` ones only: in scope
    /// after them, in the rest of its module and in the modules declared later.
    escapes: bool,
    /// Its position among the file's items (that of the inline module it is in).
    order: usize,
}

/// A trait's definition path and the name of one of its methods.
type TraitMethod = (Vec<String>, String);

/// The light types one file declares, by definition path.
#[derive(Debug, Default)]
pub struct FileTypes {
    /// The structs, enums and unions defined, by definition path.
    types: std::collections::HashSet<Vec<String>>,
    /// The traits defined, by definition path.
    traits: std::collections::HashSet<Vec<String>>,
    /// Trait → the definition paths its supertraits may have (`trait Attn: Backend`).
    supertraits: HashMap<Vec<String>, Vec<Vec<String>>>,
    /// The methods with a body of each `impl Trait for Type` block: the definition paths the
    /// trait may have, the method's name, the method's definition path (the type's).
    trait_methods: Vec<(Vec<Vec<String>>, String, Vec<String>)>,
    /// The functions and methods with a body, by definition path.
    fns: std::collections::HashSet<Vec<String>>,
    /// `(struct, field)` → the field's type.
    fields: HashMap<(Vec<String>, String), TypeRef>,
    /// `(struct, field)` → the element type of an indexable field (`Vec<Block>` → `Block`).
    elements: HashMap<(Vec<String>, String), TypeRef>,
    /// `(struct, field)` → what an `Option` or `Result` field holds.
    contents: HashMap<(Vec<String>, String), TypeRef>,
    /// The fields of a number, `bool` or `char` type.
    scalars: std::collections::HashSet<(Vec<String>, String)>,
    /// Type alias → the type it stands for, resolved where the alias is written.
    aliases: HashMap<Vec<String>, TypeRef>,
    /// Function or method → what it hands back for method calls (see [`crate::resolve::return_type`]).
    returns: HashMap<Vec<String>, TypeRef>,
    /// Struct → its named fields (a tuple or unit struct: none).
    declared_fields: HashMap<Vec<String>, Vec<String>>,
    /// Struct with `#[derive(Default)]` → its fields the derived `default()` fills with zeros.
    zeroed_by_default: HashMap<Vec<String>, Vec<String>>,
    /// The constants and statics defined: of modules, and of types and traits (`Pool::NULL`).
    consts: std::collections::HashSet<Vec<String>>,
    /// The integer value of each constant of a module, as written (`const PAD: i64 = -1;`).
    const_values: HashMap<Vec<String>, crate::index::ConstExpr>,
    /// The file's module and the inline modules in it: their items are all in this file.
    inline_modules: std::collections::HashSet<Vec<String>>,
    /// The modules declared here whose items are in a file of their own (`mod ops;`).
    outline_modules: std::collections::HashSet<Vec<String>>,
    /// Module and name of each name a `use` brings into a module of the file (`a::b::X` for
    /// `use other::X;` in `a::b`), and the modules that glob-import: either may name anything.
    imported: std::collections::HashSet<Vec<String>>,
    globbing: std::collections::HashSet<Vec<String>>,
}

/// How many names [`WorkspaceItems::may_be_called`] looks for one by one before it reads every
/// name the files call.
const NAMES_LOOKED_FOR: usize = 16;

/// What the workspace's items say of a path to a constant (a sentinel, a region bound).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstLookup {
    /// A constant or static is defined there.
    Defined,
    /// The items do not tell: a crate outside the check, a module in a file not read, a type's
    /// constant that a trait may provide, a name an import or a glob may bring.
    Unknown,
    /// The module is known, with every item it has, and defines no such constant.
    NotInModule,
    /// The segment at this position (of the definition path) names no module of its parent.
    NoModule(usize),
}

impl WorkspaceItems {
    /// The items of these files (a contracts file or an unreadable one declares none).
    pub fn new(files: impl IntoIterator<Item = ItemFile>) -> WorkspaceItems {
        let files: Vec<ItemFile> = files.into_iter().collect();
        let mut by_module = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            // Two files of one module (`a.rs` and `a/mod.rs`): the first, as the walk found them.
            by_module.entry(f.module.clone()).or_insert(i);
        }
        let types = files.iter().map(|_| OnceLock::new()).collect();
        let fn_names = files.iter().map(|_| OnceLock::new()).collect();
        let macro_defs = files.iter().map(|_| OnceLock::new()).collect();
        WorkspaceItems { files, by_module, types, fn_names, summaries: Default::default(), crate_renames: HashMap::new(), called: OnceLock::new(), asked: Default::default(), implementations: Default::default(), trait_defaults: Default::default(), macro_files: OnceLock::new(), macro_defs }
    }

    /// The items of the engine's jobs.
    pub fn of_jobs(jobs: &[crate::engine::FileJob]) -> WorkspaceItems {
        WorkspaceItems::of_jobs_with(jobs, None)
    }

    /// The items of the engine's jobs, with the text of one file replaced by `edited` (an editor
    /// buffer checked before the session takes it).
    pub fn of_jobs_with(jobs: &[crate::engine::FileJob], edited: Option<&crate::source::FileRef>) -> WorkspaceItems {
        let mut crate_renames: HashMap<String, HashMap<String, String>> = HashMap::new();
        for j in jobs.iter().filter(|j| !j.renames.is_empty()) {
            crate_renames.entry(j.crate_name.clone()).or_default().extend(j.renames.iter().cloned());
        }
        let items = WorkspaceItems::new(jobs.iter().filter(|j| !j.external && j.unreadable.is_none() && !j.module.is_empty()).map(|j| ItemFile {
            file: match edited {
                Some(e) if e.path == j.file.path => e.clone(),
                _ => j.file.clone(),
            },
            crate_name: j.crate_name.clone(),
            module: j.module.clone(),
            reach: j.reach.clone(),
        }));
        WorkspaceItems { crate_renames, ..items }
    }

    /// The functions found so far to hand a parameter on to a kernel's index (see
    /// [`crate::rules::SharedSummaries`]), once each: those not returned before.
    pub(crate) fn new_forwarders(&self, seen: &mut usize) -> Vec<crate::rules::Forwarder> {
        let all = self.summaries.forwarders.lock().map(|f| f.clone()).unwrap_or_default();
        let new = all.get(*seen..).map(<[_]>::to_vec).unwrap_or_default();
        *seen = all.len();
        if let Ok(mut known) = self.summaries.known_forwarders.write() {
            known.extend(new.iter().map(|f| f.name.clone()));
        }
        new
    }

    /// Whether some file of the check may call a function of this name: the name written
    /// before `(`, `::<`, an `as` that renames it, or bound by `=` (read from the texts once per
    /// check; a name in a comment or a string counts too, which only costs work).
    pub(crate) fn may_be_called(&self, name: &str) -> bool {
        // A check that asks of a few names looks for each (most checks analyse a few files); one
        // that asks of many reads every name once.
        if self.called.get().is_none() {
            if let Ok(mut asked) = self.asked.lock() {
                if let Some(&known) = asked.get(name) {
                    return known;
                }
                if asked.len() < NAMES_LOOKED_FOR {
                    let finder = memchr::memmem::Finder::new(name.as_bytes());
                    let found = self.files.iter().any(|f| crate::engine::calls_name(&f.file.text, name, &finder));
                    asked.insert(name.to_string(), found);
                    return found;
                }
            }
        }
        self.called
            .get_or_init(|| {
                let mut names = std::collections::HashSet::new();
                for f in &self.files {
                    crate::engine::called_names(&f.file.text, &mut names);
                }
                Arc::new(names)
            })
            .contains(name)
    }

    /// These items, with the names called known already (a superset will do: the editor's
    /// session keeps them across edits instead of reading every file again).
    pub(crate) fn knowing_called(self, names: Arc<std::collections::HashSet<String>>) -> WorkspaceItems {
        let _ = self.called.set(names);
        self
    }

    /// The names of every forwarder found with these items so far.
    pub(crate) fn forwarder_names(&self) -> std::collections::HashSet<String> {
        self.summaries.forwarders.lock().map(|f| f.iter().map(|f| f.name.clone()).collect()).unwrap_or_default()
    }

    /// These items, knowing the names of forwarders an earlier check found (the editor's: a
    /// call of another file's forwarder is summarised as in the check's later rounds).
    pub(crate) fn knowing_forwarders(self, names: &std::collections::HashSet<String>) -> WorkspaceItems {
        if let Ok(mut known) = self.summaries.known_forwarders.write() {
            known.extend(names.iter().cloned());
        }
        self
    }

    /// The file that may define the item at `path`: the file of its longest module prefix (the
    /// rest is inline modules, an `impl` type and the name).
    pub fn file_of(&self, path: &[String]) -> Option<(usize, &ItemFile)> {
        (1..path.len()).rev().find_map(|n| self.by_module.get(&path[..n]).map(|&i| (i, &self.files[i])))
    }

    /// The type of field `field` of the struct defined at `owner`.
    pub fn field(&self, index: &Index, owner: &[String], field: &str) -> Option<TypeRef> {
        self.types_of(index, owner)?.fields.get(&(owner.to_vec(), field.to_string())).cloned()
    }

    /// The element type of the indexable field `field` of the struct defined at `owner`.
    pub fn element(&self, index: &Index, owner: &[String], field: &str) -> Option<TypeRef> {
        self.types_of(index, owner)?.elements.get(&(owner.to_vec(), field.to_string())).cloned()
    }

    /// What the `Option` or `Result` field `field` of the struct defined at `owner` holds.
    pub fn content(&self, index: &Index, owner: &[String], field: &str) -> Option<TypeRef> {
        self.types_of(index, owner)?.contents.get(&(owner.to_vec(), field.to_string())).cloned()
    }

    /// Whether the field `field` of the struct defined at `owner` is of a number, `bool` or `char` type.
    pub fn is_scalar_field(&self, index: &Index, owner: &[String], field: &str) -> bool {
        self.types_of(index, owner).is_some_and(|t| t.scalars.contains(&(owner.to_vec(), field.to_string())))
    }

    /// Whether a function or method with a body is defined at `path`.
    pub fn has_fn(&self, index: &Index, path: &[String]) -> bool {
        self.fn_file_of(index, path).is_some()
    }

    /// The file that defines the function or method at `path`: its module's, or, for a method
    /// of a type whose `impl` block is in another file of the crate (`impl Observer` in
    /// `observer_impl.rs`, which imports the type), that file. Only the files whose text has an
    /// `impl` and names the type and the method are parsed to know.
    /// A file whose text defines no `fn` of the name is not parsed to know (the file being
    /// analysed, whose type's methods may live in another file, is not parsed a second time).
    pub fn fn_file_of(&self, index: &Index, path: &[String]) -> Option<(usize, &ItemFile)> {
        let (i, file) = self.file_of(path)?;
        if self.file_defines_fn(i, path.last()?) && self.table(index, i).fns.contains(path) {
            return Some((i, file));
        }
        let [krate, .., ty, name] = path else { return None };
        let written = |j: usize, f: &ItemFile| self.file_defines_fn(j, name) && implements(&f.file.text, ty);
        self.files
            .iter()
            .enumerate()
            .filter(|(j, f)| *j != i && f.crate_name == *krate && written(*j, f))
            .find(|(j, _)| self.table(index, *j).fns.contains(path))
    }

    /// For each file of the crate other than `here` whose `impl` blocks define methods of the type
    /// at `ty` (its own file included when that is not `here`): one method's path, through which
    /// that file's functions are analysed in its own context (a constructor in `lib.rs`, a
    /// replay method in `replay.rs`).
    pub fn methods_elsewhere(&self, index: &Index, ty: &[String], here: &std::path::Path) -> Vec<Vec<String>> {
        let ([krate, ..], Some(name)) = (ty, ty.last()) else { return Vec::new() };
        let mut out = Vec::new();
        for (j, f) in self.files.iter().enumerate() {
            if f.file.path == here || f.crate_name != *krate || !implements(&f.file.text, name) {
                continue;
            }
            let table = self.table(index, j);
            if let Some(method) = table.fns.iter().find(|p| p.len() == ty.len() + 1 && p.starts_with(ty)) {
                out.push(method.clone());
            }
        }
        out.sort();
        out
    }

    /// Whether a struct, an enum or a union is defined at `path`.
    pub fn defines_type(&self, index: &Index, path: &[String]) -> bool {
        self.types_of(index, path).is_some_and(|t| t.types.contains(path))
    }

    /// Whether a file of the crate of the type at `ty` has an `impl` of a trait named `trait_name`
    /// for it (`impl Backend for MyBackend {`), read from the texts: Rust puts such an impl in
    /// the crate of the type or of the trait, and a foreign trait's is in the type's.
    pub fn implements_trait(&self, ty: &[String], trait_name: &str) -> bool {
        let (Some(krate), Some(name)) = (ty.first(), ty.last()) else { return false };
        self.files.iter().filter(|f| f.crate_name == *krate).any(|f| implements_trait_for(&f.file.text, trait_name, name))
    }

    /// Whether crate `krate` may name items of crate `other`: itself, or a crate its
    /// dependencies reach (a crate implements only its own traits and those of such crates).
    pub fn reaches(&self, krate: &str, other: &str) -> bool {
        krate == other || self.files.iter().filter(|f| f.crate_name == krate).any(|f| f.reach.as_ref().is_none_or(|r| r.contains(other)))
    }

    /// The methods named `method` with a body that the `impl`s of the trait defined at
    /// `trait_path` in the files of the check define, by definition path: what a call through
    /// `&dyn Trait` or a type parameter bounded by it may run. Only the files whose text may have
    /// such an `impl` and a `fn` of that name are parsed.
    pub fn implementations(&self, index: &Index, trait_path: &[String], method: &str) -> Vec<Vec<String>> {
        let Some(name) = trait_path.last() else { return Vec::new() };
        let key = (trait_path.to_vec(), method.to_string());
        if let Some(known) = self.implementations.lock().expect("not poisoned").get(&key) {
            return known.clone();
        }
        let found: Vec<Vec<String>> = (0..self.files.len())
            .filter(|&i| may_implement_trait(&self.files[i].file.text, name) && self.file_defines_fn(i, method))
            .flat_map(|i| {
                let table = self.table(index, i);
                table.trait_methods.iter().filter(|(traits, m, _)| m == method && traits.iter().any(|t| t == trait_path)).map(|(_, _, path)| path.clone()).collect::<Vec<_>>()
            })
            .collect();
        self.implementations.lock().expect("not poisoned").insert(key, found.clone());
        found
    }

    /// The default bodies of the trait methods named `method` that the files of the check
    /// define, by definition path (`crate::hooks::Hooks::on_end`): what a call of the method runs
    /// on a type whose `impl` of the trait keeps the default. Only the files whose text may
    /// define a trait and a `fn` of that name are parsed.
    pub fn trait_defaults(&self, index: &Index, method: &str) -> Vec<Vec<String>> {
        if let Some(known) = self.trait_defaults.lock().expect("not poisoned").get(method) {
            return known.clone();
        }
        let found: Vec<Vec<String>> = (0..self.files.len())
            .filter(|&i| has_word(&self.files[i].file.text, "trait") && self.file_defines_fn(i, method))
            .flat_map(|i| {
                let table = self.table(index, i);
                table.fns.iter().filter(|p| p.last().is_some_and(|m| m == method) && table.traits.contains(&p[..p.len() - 1])).cloned().collect::<Vec<_>>()
            })
            .collect();
        self.trait_defaults.lock().expect("not poisoned").insert(method.to_string(), found.clone());
        found
    }

    /// Whether `path` is a trait a file of the check defines.
    pub fn defines_trait(&self, index: &Index, path: &[String]) -> bool {
        self.types_of(index, path).is_some_and(|t| t.traits.contains(path))
    }

    /// The definition paths the supertraits of the trait defined at `path` may have.
    pub fn supertraits(&self, index: &Index, path: &[String]) -> Vec<Vec<String>> {
        self.types_of(index, path).and_then(|t| t.supertraits.get(path).cloned()).unwrap_or_default()
    }

    /// The type a type alias defined at `path` stands for (`pub type Be = kv::CudaBackend;`).
    pub fn type_alias(&self, index: &Index, path: &[String]) -> Option<TypeRef> {
        self.types_of(index, path)?.aliases.get(path).cloned()
    }

    /// What the function or method defined at `path` returns.
    pub fn returns(&self, index: &Index, path: &[String]) -> Option<TypeRef> {
        let (i, _) = self.fn_file_of(index, path)?;
        self.table(index, i).returns.get(path).cloned()
    }

    /// Whether any file of the check defines a function or method of this name (`fn name`), read
    /// from the text without parsing.
    pub fn defines_fn_named(&self, name: &str) -> bool {
        (0..self.files.len()).any(|i| self.file_defines_fn(i, name))
    }

    /// The named fields of the struct defined at `owner`; `None`: no file of the check says.
    pub fn fields_of(&self, index: &Index, owner: &[String]) -> Option<Vec<String>> {
        self.types_of(index, owner)?.declared_fields.get(owner).cloned()
    }

    /// The fields of struct `owner` (a definition path) that its derived `Default` fills with
    /// zeros; `None`: no such struct deriving `Default` is known.
    pub fn zeroed_by_default(&self, index: &Index, owner: &[String]) -> Option<Vec<String>> {
        self.types_of(index, owner)?.zeroed_by_default.get(owner).cloned()
    }

    /// The value, as written, of the module constant defined at `path`.
    pub fn const_value(&self, index: &Index, path: &[String]) -> Option<crate::index::ConstExpr> {
        self.types_of(index, path)?.const_values.get(path).cloned()
    }

    /// Whether a constant is defined at the definition path `path` (see [`ConstLookup`]).
    pub fn const_at(&self, index: &Index, path: &[String]) -> ConstLookup {
        let Some((_, file)) = self.file_of(path) else { return ConstLookup::Unknown };
        let Some(t) = self.types_of(index, path) else { return ConstLookup::Unknown };
        if t.consts.contains(path) {
            return ConstLookup::Defined;
        }
        // Down the module part from the file's module: each segment must be an inline module
        // of the file, unless something the items cannot see may stand for it.
        let module = &path[..path.len() - 1];
        for end in file.module.len() + 1..=module.len() {
            let (parent, here) = (&module[..end - 1], &module[..end]);
            if t.inline_modules.contains(here) {
                continue;
            }
            let opaque = t.outline_modules.contains(here) || t.types.contains(here) || t.traits.contains(here) || t.imported.contains(here) || t.globbing.contains(parent);
            return if opaque { ConstLookup::Unknown } else { ConstLookup::NoModule(end - 1) };
        }
        if t.imported.contains(path) || t.globbing.contains(module) {
            return ConstLookup::Unknown;
        }
        ConstLookup::NotInModule
    }

    fn types_of(&self, index: &Index, path: &[String]) -> Option<Arc<FileTypes>> {
        let (i, _) = self.file_of(path)?;
        Some(self.table(index, i))
    }

    /// The item table of file `i`, built on first use.
    /// Whether the text of file `i` writes `fn NAME` (a superset of the functions it defines).
    fn file_defines_fn(&self, i: usize, name: &str) -> bool {
        self.fn_names[i].get_or_init(|| fn_names(&self.files[i].file.text).map(str::to_string).collect()).contains(name)
    }

    /// The rules (as text) of the `macro_rules!` named `name` that a call in the file at `here`,
    /// of module `module` (crate first), reaches in another file of its crate. By its bare name,
    /// a macro in textual scope there: one of an enclosing module's file defined before the
    /// module that leads to the call (`lib.rs` defining it before its `mod` items), or of a
    /// module declared `#[macro_use]` (from the deepest module the two share down to it) before
    /// that one (`#[macro_use] mod macros;` first in `lib.rs`). Through `path` (an import, `use
    /// crate::kmacros::launch;`, or a call by path, `crate::launch!`): also one exported
    /// (`#[macro_export]`) or re-exported by its file (`pub(crate) use launch;`); a path into
    /// another crate names none of these. `None`: none, or several (which one a call reaches
    /// is not followed further). Only the files whose text names a definition are parsed.
    pub fn crate_macro(&self, here: &std::path::Path, module: &[String], name: &str, path: Option<&[String]>) -> Option<String> {
        let krate = module.first()?;
        if path.is_some_and(|p| p.first() != Some(krate)) {
            return None;
        }
        let files = self.macro_files.get_or_init(|| {
            let finder = memchr::memmem::Finder::new(b"macro_rules");
            (0..self.files.len()).filter(|&i| finder.find(self.files[i].file.text.as_bytes()).is_some()).collect()
        });
        // The name the path gives it where it is defined (`use crate::m::launch as go;`: `launch`).
        let exposed = path.and_then(<[String]>::last).map_or(name, String::as_str);
        let mut found: std::collections::BTreeMap<(usize, usize), String> = Default::default();
        for &i in files {
            let f = &self.files[i];
            if f.crate_name != *krate || f.file.path == here || !(has_word(&f.file.text, name) || has_word(&f.file.text, exposed)) {
                continue;
            }
            let defs = self.macro_defs(i);
            // By path: exported at the crate root, or given this name by a `use` of its module.
            let reached = |d: &MacroDef| match path {
                Some([_, only]) if d.exported && d.name == *only => true,
                Some([.., last]) if path.is_some_and(|p| p[..p.len() - 1] == f.module[..]) => defs.reexported.get(last) == Some(&d.name),
                _ => false,
            };
            // Two files of one module (`lib.rs` and `main.rs`): the other one's are another crate's.
            let owns_module = self.by_module.get(&f.module) == Some(&i);
            let in_scope = |d: &MacroDef| d.name == name && d.escapes && owns_module && self.in_textual_scope(i, d.order, module);
            found.extend(defs.defs.iter().enumerate().filter(|(_, d)| reached(d) || in_scope(d)).map(|(k, d)| ((i, k), d.rules.clone())));
        }
        let one = found.pop_first();
        one.filter(|_| found.is_empty()).map(|(_, rules)| rules)
    }

    /// Whether a macro defined at item `order` of file `def` is in textual scope in module
    /// `module`: below the deepest module the two share, every module down to the definition's
    /// is declared `#[macro_use]`, and in the shared module's file the definition (or the
    /// module that holds it) comes before the module that leads to `module` (when `module` is
    /// the shared one, its calls are taken to follow its declarations).
    fn in_textual_scope(&self, def: usize, order: usize, module: &[String]) -> bool {
        let at = &self.files[def].module;
        let shared = at.iter().zip(module).take_while(|(a, b)| a == b).count();
        if shared == 0 {
            return false;
        }
        let declared_by_macro_use = (shared + 1..=at.len()).all(|k| {
            self.declaring_file(&at[..k]).is_some_and(|(parent, rel)| self.files[parent].file.text.contains("macro_use") && self.macro_defs(parent).macro_use_mods.contains(rel))
        });
        if !declared_by_macro_use || module.len() == shared {
            return declared_by_macro_use;
        }
        let Some((common, rel)) = self.declaring_file(&module[..=shared]) else { return false };
        let decls = self.macro_defs(common);
        let toward_def: Vec<String> = rel[..rel.len() - 1].iter().chain(at.get(shared)).cloned().collect();
        let before = if at.len() == shared { Some(order) } else { decls.mods.get(&toward_def).copied() };
        matches!((before, decls.mods.get(rel)), (Some(b), Some(&after)) if b < after)
    }

    /// The file that declares `module` (the nearest enclosing module with a file of its own,
    /// through inline modules), and the module's path from that file's.
    fn declaring_file<'m>(&self, module: &'m [String]) -> Option<(usize, &'m [String])> {
        (1..module.len()).rev().find_map(|j| self.by_module.get(&module[..j]).map(|&i| (i, &module[j..])))
    }

    /// The names of the `macro_rules!` that the file at `path` (of module `module`) defines
    /// outside its functions: those other files of its crate may call.
    pub fn macros_defined_in(&self, path: &std::path::Path, module: &[String]) -> Vec<String> {
        match self.by_module.get(module) {
            Some(&i) if self.files[i].file.path == path => self.macro_defs(i).defs.iter().map(|d| d.name.clone()).collect(),
            _ => Vec::new(),
        }
    }

    fn macro_defs(&self, i: usize) -> Arc<FileMacroDefs> {
        self.macro_defs[i].get_or_init(|| Arc::new(file_macro_defs(&self.files[i].file))).clone()
    }

    fn table(&self, index: &Index, i: usize) -> Arc<FileTypes> {
        self.types[i].get_or_init(|| Arc::new(file_types(index, &self.files[i]))).clone()
    }
}

/// Whether a text may have an `impl` block of the type named `ty` (`impl Observer {`,
/// `impl<B: Backend> Runner<B> {`, `impl Drop for Guard {`): the name as a word between an
/// `impl` keyword and the next `{` (comments and strings included: a superset). Only such files
/// are parsed to find a type's methods in other files.
pub fn implements(text: &str, ty: &str) -> bool {
    impl_heads(text).any(|head| has_word(head, ty))
}

/// Whether a text may have an `impl TRAIT for TY` block: the trait's name as a word before a
/// ` for ` and the type's after it, between an `impl` keyword and the next `{`.
/// Whether a text may have an `impl TRAIT for ..` block: it names the trait (in the `impl`, or
/// in a `use` that may rename it) and has an `impl .. for` block.
fn may_implement_trait(text: &str, trait_name: &str) -> bool {
    has_word(text, trait_name) && impl_heads(text).any(|head| head.contains(" for "))
}

fn implements_trait_for(text: &str, trait_name: &str, ty: &str) -> bool {
    impl_heads(text).any(|head| head.split_once(" for ").is_some_and(|(t, rest)| has_word(t, trait_name) && has_word(rest, ty)))
}

/// What follows each `impl` keyword of a text up to the block's brace, a few hundred bytes at
/// most (on a character's boundary).
fn impl_heads(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("impl").map(|(at, _)| {
        let head = &text[at + 4..];
        let mut end = head.find('{').unwrap_or(head.len()).min(400);
        while !head.is_char_boundary(end) {
            end -= 1;
        }
        &head[..end]
    })
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !ident(c));
        let after = text[i + word.len()..].chars().next().is_none_or(|c| !ident(c));
        before && after
    })
}

/// The names after each `fn` keyword of a text (comments and strings included: a superset).
pub fn fn_names(text: &str) -> impl Iterator<Item = &str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices("fn").filter_map(move |(at, _)| {
        let before_ok = text[..at].chars().next_back().is_none_or(|c| !ident(c));
        let rest = &text[at + 2..];
        let name = rest.trim_start();
        if !before_ok || name.len() == rest.len() {
            return None;
        }
        let end = name.find(|c: char| !ident(c)).unwrap_or(name.len());
        (end > 0).then(|| &name[..end])
    })
}

/// What a file declares of `macro_rules!` ([`FileMacroDefs`]); nothing if it does not parse.
fn file_macro_defs(file: &FileRef) -> FileMacroDefs {
    fn has(attrs: &[syn::Attribute], name: &str) -> bool {
        attrs.iter().any(|a| a.path().is_ident(name))
    }
    fn walk(items: &[syn::Item], escapes: bool, order: Option<usize>, inline: &mut Vec<String>, out: &mut FileMacroDefs) {
        for (i, item) in items.iter().enumerate() {
            let order = order.unwrap_or(i);
            match item {
                syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    if let Some(name) = &m.ident {
                        out.defs.push(MacroDef { name: name.to_string(), rules: m.mac.tokens.to_string(), exported: has(&m.attrs, "macro_export"), escapes, order });
                    }
                }
                syn::Item::Mod(m) => {
                    inline.push(m.ident.to_string());
                    out.mods.entry(inline.clone()).or_insert(order);
                    let macro_use = has(&m.attrs, "macro_use");
                    if macro_use {
                        out.macro_use_mods.insert(inline.clone());
                    }
                    if let Some((_, inner)) = &m.content {
                        walk(inner, escapes && macro_use, Some(order), inline, out);
                    }
                    inline.pop();
                }
                // `pub(crate) use launch;`, `pub use self::launch as start;`: a name of the file.
                syn::Item::Use(u) if inline.is_empty() && !matches!(u.vis, syn::Visibility::Inherited) => {
                    let mut tree = &u.tree;
                    while let syn::UseTree::Path(p) = tree {
                        if p.ident != "self" {
                            break;
                        }
                        tree = &p.tree;
                    }
                    match tree {
                        syn::UseTree::Name(n) => _ = out.reexported.insert(n.ident.to_string(), n.ident.to_string()),
                        syn::UseTree::Rename(r) => _ = out.reexported.insert(r.rename.to_string(), r.ident.to_string()),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = FileMacroDefs::default();
    if let Ok(ast) = crate::source::parse_shared(file) {
        walk(&ast.items, true, None, &mut Vec::new(), &mut out);
    }
    out
}

/// What a file declares, parsed on this thread (a file that does not parse declares nothing here:
/// its own check reports it).
fn file_types(index: &Index, f: &ItemFile) -> FileTypes {
    let Ok(ast) = crate::source::parse_shared(&f.file) else { return FileTypes::default() };
    let imports = crate::analysis::imports_by_module(&ast.items, &f.crate_name, &f.module);
    let no_imports = crate::resolve::Imports::default();
    let local = crate::resolve::FieldTypes::default();
    let empty = WorkspaceItems::default();
    let resolver = |rel: &[String]| Resolver {
        index,
        items: &empty,
        crate_name: &f.crate_name,
        module: f.module.iter().chain(rel).cloned().collect(),
        imports: std::borrow::Cow::Borrowed(imports.get(rel).unwrap_or(&no_imports)),
        fields: &local,
        current: None,
    };
    let mut out = FileTypes::default();
    out.inline_modules.insert(f.module.clone());
    for (rel, imported) in &imports {
        let module: Vec<String> = f.module.iter().chain(rel).cloned().collect();
        out.imported.extend(imported.names().map(|n| module.iter().chain([n]).cloned().collect()));
        if !imported.globs().is_empty() {
            out.globbing.insert(module);
        }
    }
    collect_structs(&ast.items, &mut Vec::new(), &resolver, &mut out);
    reuse_rules::external::walk_fns(&ast.items, &mut |item| {
        let r = resolver(item.modules);
        let generics = crate::resolve::generic_names(item.sig, item.outer_generics);
        if item.body.is_some() {
            out.fns.insert(crate::analysis::definition_path(&r.module, &r.imports, item.self_type, &item.sig.ident));
        }
        if let Some(ty) = crate::resolve::return_type(&item.sig.output).and_then(|t| r.type_ref(t, item.self_type, &generics)) {
            let path = crate::analysis::definition_path(&r.module, &r.imports, item.self_type, &item.sig.ident);
            out.returns.insert(path, ty);
        }
    });
    out
}

/// The definition paths a trait written in a module may have (`Backend`, `crate::attn::Backend`,
/// a renamed import), resolved as a type written there is; `generics` are no traits.
fn trait_paths(r: &Resolver, path: &syn::Path, generics: &[String]) -> Option<Vec<Vec<String>>> {
    r.type_ref(&syn::Type::Path(syn::TypePath { qself: None, path: path.clone() }), None, generics)?.paths
}

fn collect_structs<'r>(items: &[syn::Item], rel: &mut Vec<String>, resolver: &dyn Fn(&[String]) -> Resolver<'r>, out: &mut FileTypes) {
    let at = |rel: &[String], names: &[String]| -> Vec<String> { resolver(rel).module.into_iter().chain(names.iter().cloned()).collect() };
    for item in items {
        match item {
            syn::Item::Const(c) => {
                let path = at(rel, &[c.ident.to_string()]);
                if let Some(value) = crate::index::ConstExpr::of(&c.expr) {
                    out.const_values.insert(path.clone(), value);
                }
                out.consts.insert(path);
            }
            syn::Item::Static(st) => _ = out.consts.insert(at(rel, &[st.ident.to_string()])),
            syn::Item::Impl(i) => {
                if let Some(ty) = crate::resolve::type_name(&i.self_ty) {
                    let r = resolver(rel);
                    let generics: Vec<String> = i.generics.type_params().map(|g| g.ident.to_string()).collect();
                    let trait_paths = i.trait_.as_ref().and_then(|(_, path, _)| trait_paths(&r, path, &generics));
                    for it in &i.items {
                        match it {
                            syn::ImplItem::Const(c) => _ = out.consts.insert(at(rel, &[ty.clone(), c.ident.to_string()])),
                            syn::ImplItem::Fn(f) => {
                                if let Some(traits) = &trait_paths {
                                    let path = crate::analysis::definition_path(&r.module, &r.imports, Some(&ty), &f.sig.ident);
                                    out.trait_methods.push((traits.clone(), f.sig.ident.to_string(), path));
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            syn::Item::Enum(e) => _ = out.types.insert(at(rel, &[e.ident.to_string()])),
            syn::Item::Union(u) => _ = out.types.insert(at(rel, &[u.ident.to_string()])),
            syn::Item::Type(t) => {
                let generics: Vec<String> = t.generics.type_params().map(|g| g.ident.to_string()).collect();
                if let Some(ty) = resolver(rel).type_ref(&t.ty, None, &generics) {
                    out.aliases.insert(at(rel, &[t.ident.to_string()]), ty);
                }
            }
            syn::Item::Trait(t) => {
                let r = resolver(rel);
                let supers: Vec<Vec<String>> = t
                    .supertraits
                    .iter()
                    .filter_map(|b| match b {
                        syn::TypeParamBound::Trait(tb) => trait_paths(&r, &tb.path, &[]),
                        _ => None,
                    })
                    .flatten()
                    .collect();
                if !supers.is_empty() {
                    out.supertraits.insert(at(rel, &[t.ident.to_string()]), supers);
                }
                out.traits.insert(at(rel, &[t.ident.to_string()]));
                for it in &t.items {
                    if let syn::TraitItem::Const(c) = it {
                        out.consts.insert(at(rel, &[t.ident.to_string(), c.ident.to_string()]));
                    }
                }
            }
            syn::Item::Struct(st) => {
                let r = resolver(rel);
                let mut owner = r.module.clone();
                owner.push(st.ident.to_string());
                out.types.insert(owner.clone());
                out.declared_fields.insert(owner.clone(), st.fields.iter().filter_map(|f| f.ident.as_ref().map(|i| i.to_string())).collect());
                if let Some(zeroed) = crate::resolve::zeroed_by_derived_default(st) {
                    out.zeroed_by_default.insert(owner.clone(), zeroed);
                }
                let generics: Vec<String> = st.generics.type_params().map(|t| t.ident.to_string()).collect();
                let name = st.ident.to_string();
                for field in &st.fields {
                    let Some(ident) = &field.ident else { continue };
                    let key = (owner.clone(), ident.to_string());
                    if let Some(ty) = r.type_ref(&field.ty, Some(&name), &generics) {
                        out.fields.insert(key.clone(), ty);
                    }
                    if crate::resolve::is_scalar(&field.ty) {
                        out.scalars.insert(key.clone());
                    }
                    if let Some(ty) = crate::resolve::option_content(&field.ty).and_then(|t| r.type_ref(t, Some(&name), &generics)) {
                        out.contents.insert(key.clone(), ty);
                    }
                    if let Some(ty) = crate::resolve::element_type(&field.ty).and_then(|t| r.type_ref(t, Some(&name), &generics)) {
                        out.elements.insert(key, ty);
                    }
                }
            }
            syn::Item::Mod(m) => {
                rel.push(m.ident.to_string());
                if let Some((_, content)) = &m.content {
                    out.inline_modules.insert(at(rel, &[]));
                    collect_structs(content, rel, resolver, out);
                } else {
                    out.outline_modules.insert(at(rel, &[]));
                }
                rel.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Jobs of files given as (module path, text), each its own file, as the engine reads them.
    pub(crate) fn jobs(files: &[(&str, &str)]) -> Vec<crate::engine::FileJob> {
        files
            .iter()
            .enumerate()
            .map(|(i, (module, text))| {
                let module: Vec<String> = module.split("::").map(str::to_string).collect();
                let rel = format!("src/f{i}.rs");
                crate::engine::FileJob {
                    file: Arc::new(crate::source::SourceFile::new(rel.clone().into(), rel, text.to_string())),
                    crate_name: module[0].clone(),
                    module,
                    config: Default::default(),
                    external: false,
                    unreadable: None,
                    report: true,
                    reach: None,
                    renames: Default::default(),
                }
            })
            .collect()
    }

    fn p(s: &str) -> Vec<String> {
        s.split("::").map(str::to_string).collect()
    }

    /// `(name, first definition path)` of a light type, for comparing (a path that starts with
    /// a name may also be read as one of the module's: both are kept, the crate's first).
    fn shown(t: Option<TypeRef>) -> Option<(String, Option<String>)> {
        t.map(|t| (t.name, t.paths.unwrap_or_default().first().map(|p| p.join("::"))))
    }

    #[test]
    fn field_and_return_types_are_keyed_by_definition_path_and_resolved_where_declared() {
        let files = [
            ("eng", "pub mod meta;\npub mod runner;\n"),
            ("eng::meta", "use kv::graph::Graph as G;\npub struct StepMeta<T> { pub graph: std::sync::Arc<std::sync::Mutex<G>>, pub extra: T, pub slots: Vec<i64>, pub layers: Vec<crate::runner::Layer> }\nmod inner {\n    pub struct Hidden { pub x: super::StepMeta<u8> }\n}\n"),
            ("eng::runner", "use crate::meta::StepMeta;\npub struct Layer;\npub struct Runner;\nimpl Runner {\n    pub fn meta(&mut self) -> Result<&mut StepMeta<u8>, String> { todo!() }\n    pub fn fresh() -> Self { Runner }\n    pub fn nothing(&self) {}\n}\npub fn make() -> Option<Box<Runner>> { None }\nimpl<B: Clone> Wrapper<B> {\n    pub fn backend(&self) -> B { todo!() }\n}\n"),
            ("kv", "pub mod graph;\n"),
            ("kv::graph", "pub struct Graph;\n"),
        ];
        let jobs = jobs(&files);
        let (index, _) = crate::engine::build_index(&jobs);
        let items = WorkspaceItems::of_jobs(&jobs);
        let t = |name: &str, path: &[&str]| Some((name.to_string(), path.first().map(|s| s.to_string())));
        // Through a renamed import and `Arc<Mutex<..>>`: the definition in another crate.
        assert_eq!(shown(items.field(&index, &p("eng::meta::StepMeta"), "graph")), t("Graph", &["kv::graph::Graph"]));
        // A type parameter of the struct is no type; a std type is builtin, with no path.
        assert_eq!(shown(items.field(&index, &p("eng::meta::StepMeta"), "extra")), None);
        assert_eq!(shown(items.field(&index, &p("eng::meta::StepMeta"), "slots")), t(crate::resolve::BUILTIN, &[]));
        assert_eq!(shown(items.element(&index, &p("eng::meta::StepMeta"), "layers")), t("Layer", &["eng::runner::Layer"]));
        // A struct of an inline module, and `super::` in it.
        assert_eq!(shown(items.field(&index, &p("eng::meta::inner::Hidden"), "x")), t("StepMeta", &["eng::meta::StepMeta"]));
        // Returns through `Result`, `&mut`, `Option<Box<..>>` and `Self`; none for `()`.
        let runs = |f: &str| shown(items.returns(&index, &p(f)));
        assert_eq!(runs("eng::runner::Runner::meta"), t("StepMeta", &["eng::meta::StepMeta"]));
        assert_eq!(runs("eng::runner::Runner::fresh"), t("Runner", &["eng::runner::Runner"]));
        assert_eq!(runs("eng::runner::make"), t("Runner", &["eng::runner::Runner"]));
        assert_eq!(runs("eng::runner::Runner::nothing"), None);
        // An `impl`'s type parameter is no type.
        assert_eq!(runs("eng::runner::Wrapper::backend"), None);
        // Unknown stays unknown: no file defines these.
        assert_eq!(runs("other::runner::Runner::meta"), None);
        assert_eq!(shown(items.field(&index, &p("eng::meta::Missing"), "graph")), None);
        assert!(items.has_fn(&index, &p("eng::runner::Runner::nothing")));
        assert!(!items.has_fn(&index, &p("eng::runner::Runner::missing")));
    }

    /// What a call through `&dyn Trait` may run: the methods of the trait's `impl`s in every
    /// file, the trait named by a renamed import or a path; a same-named trait of another module
    /// and an inherent method of the same name are not its.
    #[test]
    fn implementations_of_a_trait_method_are_found_in_every_file() {
        let files = [
            ("eng", "pub mod attn;
pub mod paged;
pub mod cpu;
pub mod other;
"),
            ("eng::attn", "pub trait Backend { fn forward(&mut self, n: usize); fn name(&self) -> u8 { 0 } }
"),
            ("eng::paged", "use crate::attn::Backend as B;
pub struct Paged;
impl B for Paged {
    fn forward(&mut self, n: usize) { let _ = n; }
}
impl Paged { pub fn name(&self) -> u8 { 1 } }
"),
            ("eng::cpu", "pub struct Cpu;
impl crate::attn::Backend for Cpu {
    fn forward(&mut self, _: usize) {}
    fn name(&self) -> u8 { 2 }
}
"),
            ("eng::other", "pub trait Backend { fn forward(&mut self, n: usize); }
pub struct Elsewhere;
impl Backend for Elsewhere {
    fn forward(&mut self, _: usize) {}
}
"),
        ];
        let jobs = jobs(&files);
        let (index, _) = crate::engine::build_index(&jobs);
        let items = WorkspaceItems::of_jobs(&jobs);
        let found = |tr: &str, m: &str| {
            let mut v: Vec<String> = items.implementations(&index, &p(tr), m).iter().map(|p| p.join("::")).collect();
            v.sort();
            v
        };
        assert_eq!(found("eng::attn::Backend", "forward"), ["eng::cpu::Cpu::forward", "eng::paged::Paged::forward"]);
        assert_eq!(found("eng::attn::Backend", "name"), ["eng::cpu::Cpu::name"]);
        assert_eq!(found("eng::other::Backend", "forward"), ["eng::other::Elsewhere::forward"]);
        assert!(found("eng::attn::Missing", "forward").is_empty());
    }

    /// The text test that picks the files parsed for a type's methods elsewhere: the type's
    /// name as a word in an `impl` header, not anywhere in the file.
    #[test]
    fn an_impl_header_names_the_type() {
        assert!(implements("impl Observer {\n}", "Observer"));
        assert!(implements("impl<B: Backend> Runner<B> where B: Clone {}", "Runner"));
        assert!(implements("impl Drop for Guard {}", "Guard"));
        assert!(!implements("impl Other {\n    fn f() -> Observer { todo!() }\n}", "Observer"));
        assert!(!implements("impl ObserverExt {}", "Observer"));
        assert!(!implements("struct Observer; fn f(o: Observer) {}", "Observer"));
        // A long header cut on a character's boundary.
        let long = format!("impl {} Observer {{}}", "é".repeat(300));
        assert!(!implements(&long, "Observer"));
    }
}
