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
}

/// The files of a check, what is known of their items, and the rules' summaries of functions
/// in other files than the one analysed (per check: computed once, whichever file asks first).
#[derive(Default)]
pub struct WorkspaceItems {
    files: Vec<ItemFile>,
    by_module: HashMap<Vec<String>, usize>,
    types: Vec<OnceLock<Arc<FileTypes>>>,
    pub(crate) summaries: crate::rules::SharedSummaries,
}

/// The light types one file declares, by definition path.
#[derive(Debug, Default)]
pub struct FileTypes {
    /// The functions and methods with a body, by definition path.
    fns: std::collections::HashSet<Vec<String>>,
    /// `(struct, field)` → the field's type.
    fields: HashMap<(Vec<String>, String), TypeRef>,
    /// `(struct, field)` → the element type of an indexable field (`Vec<Block>` → `Block`).
    elements: HashMap<(Vec<String>, String), TypeRef>,
    /// Function or method → what it hands back for method calls (see [`crate::resolve::return_type`]).
    returns: HashMap<Vec<String>, TypeRef>,
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
        WorkspaceItems { files, by_module, types, summaries: Default::default() }
    }

    /// The items of the engine's jobs.
    pub fn of_jobs(jobs: &[crate::engine::FileJob]) -> WorkspaceItems {
        WorkspaceItems::new(jobs.iter().filter(|j| !j.external && j.unreadable.is_none() && !j.module.is_empty()).map(|j| ItemFile {
            file: j.file.clone(),
            crate_name: j.crate_name.clone(),
            module: j.module.clone(),
        }))
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

    /// Whether a function or method with a body is defined at `path`.
    pub fn has_fn(&self, index: &Index, path: &[String]) -> bool {
        self.types_of(index, path).is_some_and(|t| t.fns.contains(path))
    }

    /// What the function or method defined at `path` returns.
    pub fn returns(&self, index: &Index, path: &[String]) -> Option<TypeRef> {
        self.types_of(index, path)?.returns.get(path).cloned()
    }

    fn types_of(&self, index: &Index, path: &[String]) -> Option<Arc<FileTypes>> {
        let (i, file) = self.file_of(path)?;
        Some(self.types[i].get_or_init(|| Arc::new(file_types(index, file))).clone())
    }
}

/// What a file declares, parsed on this thread (a file that does not parse declares nothing here:
/// its own check reports it).
fn file_types(index: &Index, f: &ItemFile) -> FileTypes {
    let Ok(ast) = f.file.parse() else { return FileTypes::default() };
    let imports = crate::analysis::imports_by_module(&ast.items, &f.crate_name, &f.module);
    let no_imports = crate::resolve::Imports::default();
    let local = crate::resolve::FieldTypes::default();
    let empty = WorkspaceItems::default();
    let resolver = |rel: &[String]| Resolver {
        index,
        items: &empty,
        crate_name: &f.crate_name,
        module: f.module.iter().chain(rel).cloned().collect(),
        imports: imports.get(rel).unwrap_or(&no_imports),
        fields: &local,
        current: None,
    };
    let mut out = FileTypes::default();
    collect_structs(&ast.items, &mut Vec::new(), &resolver, &mut out);
    reuse_rules::external::walk_fns(&ast.items, &mut |item| {
        let r = resolver(item.modules);
        let generics = crate::resolve::generic_names(item.sig, item.outer_generics);
        if item.body.is_some() {
            out.fns.insert(crate::analysis::definition_path(&r.module, item.self_type, &item.sig.ident));
        }
        if let Some(ty) = crate::resolve::return_type(&item.sig.output).and_then(|t| r.type_ref(t, item.self_type, &generics)) {
            let path = crate::analysis::definition_path(&r.module, item.self_type, &item.sig.ident);
            out.returns.insert(path, ty);
        }
    });
    out
}

fn collect_structs<'r>(items: &[syn::Item], rel: &mut Vec<String>, resolver: &dyn Fn(&[String]) -> Resolver<'r>, out: &mut FileTypes) {
    for item in items {
        match item {
            syn::Item::Struct(st) => {
                let r = resolver(rel);
                let mut owner = r.module.clone();
                owner.push(st.ident.to_string());
                let generics: Vec<String> = st.generics.type_params().map(|t| t.ident.to_string()).collect();
                let name = st.ident.to_string();
                for field in &st.fields {
                    let Some(ident) = &field.ident else { continue };
                    let key = (owner.clone(), ident.to_string());
                    if let Some(ty) = r.type_ref(&field.ty, Some(&name), &generics) {
                        out.fields.insert(key.clone(), ty);
                    }
                    if let Some(ty) = crate::resolve::element_type(&field.ty).and_then(|t| r.type_ref(t, Some(&name), &generics)) {
                        out.elements.insert(key, ty);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, content)) = &m.content {
                    rel.push(m.ident.to_string());
                    collect_structs(content, rel, resolver, out);
                    rel.pop();
                }
            }
            _ => {}
        }
    }
}
