//! Configuration from `[workspace.metadata.reuse-check]` and `[package.metadata.reuse-check]`.
//!
//! ```toml
//! [workspace.metadata.reuse-check]
//! exclude = ["vendor/**", "tests/ui/**"]   # globs, relative to the workspace root
//! contracts = ["contracts/kernels.rs"]     # contracts for code you don't own
//!
//! [workspace.metadata.reuse-check.rules]
//! memoized_effect = "deny"                 # allow | warn | deny (or warning | error, as printed)
//!
//! [package.metadata.reuse-check.rules]     # a package's settings override the workspace's
//! undeclared_write = "allow"               # for that package's files
//! ```
//!
//! An unknown key or a bad value is an error that names the key and the file (exit status 2).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use reuse_rules::{catalogue, Level, Rule};

/// A configuration error: the tool cannot run (exit status 2).
#[derive(Debug)]
pub struct ConfigError {
    pub file: PathBuf,
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: `{}`: {}", self.file.display(), self.key, self.message)
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// Where the offending setting stands in the manifest: its text and the byte range of the
    /// value (or of the key, for an unknown key or rule), for a diagnostic that shows the source as
    /// cargo's do. `None` when the file cannot be read or the key is not found in it (a setting
    /// written with dotted keys across tables is still found; one cargo merged from elsewhere is not).
    pub fn source_span(&self) -> Option<(String, Range<usize>)> {
        let text = std::fs::read_to_string(&self.file).ok()?;
        let doc = toml_edit::ImDocument::parse(text.as_str()).ok()?;
        let segments: Vec<&str> = self.key.split('.').collect();
        let mut item = doc.as_item();
        let mut key_span = None;
        for seg in &segments {
            let table = item.as_table_like()?;
            let (key, next) = table.get_key_value(seg)?;
            key_span = key.span();
            item = next;
        }
        let value_span = match item {
            toml_edit::Item::Value(v) => v.span(),
            toml_edit::Item::Table(t) => t.span(),
            toml_edit::Item::ArrayOfTables(a) => a.span(),
            toml_edit::Item::None => None,
        };
        let on_key = self.message.starts_with("unknown");
        let range = if on_key { key_span.or(value_span) } else { value_span.or(key_span) }?;
        drop(doc);
        Some((text, range))
    }
}

/// One `[*.metadata.reuse-check]` table, as read.
#[derive(Clone, Debug, Default)]
pub struct ConfigLayer {
    pub levels: BTreeMap<String, Level>,
    pub exclude: Vec<String>,
    pub contracts: Vec<PathBuf>,
}

const KEYS: &[&str] = &["rules", "exclude", "contracts"];

impl ConfigLayer {
    /// Reads the value of `metadata.reuse-check` (`table_path` names it in errors, e.g.
    /// `workspace.metadata.reuse-check`). Paths in `contracts` are resolved against `base` and must
    /// name regular files inside `root` (see [`contracts_file`]).
    pub fn from_value(value: &serde_json::Value, file: &Path, table_path: &str, base: &Path, root: &Path) -> Result<ConfigLayer, ConfigError> {
        let err = |key: String, message: String| ConfigError { file: file.to_path_buf(), key, message };
        let table = value.as_object().ok_or_else(|| err(table_path.into(), "expected a table".into()))?;
        let mut layer = ConfigLayer::default();
        for (key, v) in table {
            let full = format!("{table_path}.{key}");
            match key.as_str() {
                "rules" => {
                    let rules = v.as_object().ok_or_else(|| err(full.clone(), "expected a table of `rule = \"allow\" | \"warn\" | \"deny\"`".into()))?;
                    for (rule, level) in rules {
                        let rkey = format!("{full}.{rule}");
                        if catalogue::find(rule).is_none() {
                            let hint = catalogue::did_you_mean_rule(rule);
                            return Err(err(rkey, format!("unknown rule{hint}; `reuse-check --list-rules` lists them")));
                        }
                        let level = level.as_str().and_then(Level::from_config).ok_or_else(|| {
                            let hint = level.as_str().map(|l| catalogue::did_you_mean(l, Level::CONFIG_VALUES.iter().copied())).unwrap_or_default();
                            err(rkey.clone(), format!("expected \"allow\", \"warn\" or \"deny\" (or \"warning\", \"error\"), found {level}{hint}"))
                        })?;
                        layer.levels.insert(rule.clone(), level);
                    }
                }
                "exclude" | "contracts" => {
                    let items = string_list(v).ok_or_else(|| err(full.clone(), "expected an array of strings".into()))?;
                    if key == "exclude" {
                        for glob in &items {
                            Glob::new(glob).map_err(|e| err(full.clone(), format!("bad glob `{glob}`: {e}")))?;
                        }
                        layer.exclude = items;
                    } else {
                        layer.contracts = items
                            .iter()
                            .map(|p| contracts_file(&base.join(p), root).map_err(|m| err(full.clone(), format!("`{p}`: {m}"))))
                            .collect::<Result<_, _>>()?;
                    }
                }
                _ => {
                    let hint = catalogue::did_you_mean(key, KEYS.iter().copied());
                    return Err(err(full, format!("unknown key{hint}; expected one of {}", KEYS.join(", "))));
                }
            }
        }
        Ok(layer)
    }
}

/// The largest contracts file read (a contracts file is a page of signatures, not a data file).
pub const MAX_CONTRACTS_FILE: u64 = 4 << 20;

/// A contracts file named by the configuration, which the checked tree controls: only a regular
/// file inside the workspace `root`, within [`MAX_CONTRACTS_FILE`], is read. Device files and FIFOs
/// (`/dev/zero`, `/dev/stdin`) and files elsewhere (`/proc/self/environ`) are refused before they
/// are opened, so their text is never read nor echoed. Returns the canonical path.
pub fn contracts_file(path: &Path, root: &Path) -> Result<PathBuf, String> {
    let canonical = std::fs::canonicalize(path).map_err(|e| format!("cannot be read: {e}"))?;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if !canonical.starts_with(&root) {
        return Err(format!("is outside the workspace ({}); contracts files must be inside it", root.display()));
    }
    let meta = std::fs::metadata(&canonical).map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > MAX_CONTRACTS_FILE {
        return Err(format!("is larger than the {} MiB limit of a contracts file", MAX_CONTRACTS_FILE >> 20));
    }
    Ok(canonical)
}

fn string_list(v: &serde_json::Value) -> Option<Vec<String>> {
    v.as_array()?.iter().map(|s| s.as_str().map(str::to_string)).collect()
}

/// The configuration in force for the files of one package: workspace layer, then package layer.
#[derive(Clone, Debug)]
pub struct Config {
    levels: BTreeMap<String, Level>,
    exclude: GlobSet,
}

impl Default for Config {
    fn default() -> Self {
        Config::merge(&[])
    }
}

impl Config {
    /// Later layers override earlier ones.
    pub fn merge(layers: &[&ConfigLayer]) -> Config {
        let mut levels = BTreeMap::new();
        let mut globs = GlobSetBuilder::new();
        for layer in layers {
            levels.extend(layer.levels.iter().map(|(k, v)| (k.clone(), *v)));
            for g in &layer.exclude {
                if let Ok(glob) = Glob::new(g) {
                    globs.add(glob);
                }
            }
        }
        Config { levels, exclude: globs.build().unwrap_or_else(|_| GlobSet::empty()) }
    }

    /// This configuration with `levels` over it (the command line's `-A`/`-W`/`-D RULE`).
    pub fn with_levels(&self, levels: &[(&'static Rule, Level)]) -> Config {
        let mut config = self.clone();
        config.levels.extend(levels.iter().map(|(rule, level)| (rule.name.to_string(), *level)));
        config
    }

    pub fn level(&self, rule: &Rule) -> Level {
        self.levels.get(rule.name).copied().unwrap_or(rule.default_level)
    }

    /// Whether a workspace-relative path (with `/`) is excluded.
    pub fn excludes(&self, rel_path: &str) -> bool {
        self.exclude.is_match(rel_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn layer(v: serde_json::Value) -> Result<ConfigLayer, ConfigError> {
        ConfigLayer::from_value(&v, Path::new("Cargo.toml"), "workspace.metadata.reuse-check", Path::new("/ws"), Path::new("/ws"))
    }

    #[test]
    fn package_overrides_workspace() {
        let ws = layer(json!({"rules": {"memoized_effect": "deny", "stale_key": "warn"}})).unwrap();
        let pkg = layer(json!({"rules": {"memoized_effect": "allow"}})).unwrap();
        let config = Config::merge(&[&ws, &pkg]);
        assert_eq!(config.level(&catalogue::MEMOIZED_EFFECT), Level::Allow);
        assert_eq!(config.level(&catalogue::STALE_KEY), Level::Warn);
        assert_eq!(config.level(&catalogue::HIT_SKIPS_EFFECT), Level::Error);
    }

    #[test]
    fn bad_config_names_the_key() {
        let cases = [
            (json!({"rulez": {}}), "workspace.metadata.reuse-check.rulez", "unknown key"),
            (json!({"rules": {"no_such": "deny"}}), "workspace.metadata.reuse-check.rules.no_such", "unknown rule"),
            (json!({"rules": {"stale_key": "loud"}}), "workspace.metadata.reuse-check.rules.stale_key", "expected \"allow\""),
            (json!({"exclude": "vendor"}), "workspace.metadata.reuse-check.exclude", "array of strings"),
            (json!({"exclude": ["a/[b"]}), "workspace.metadata.reuse-check.exclude", "bad glob"),
            (json!({"contracts": [1]}), "workspace.metadata.reuse-check.contracts", "array of strings"),
            (json!({"contracts": ["/etc/hostname"]}), "workspace.metadata.reuse-check.contracts", "outside the workspace"),
            (json!({"contracts": ["missing.rs"]}), "workspace.metadata.reuse-check.contracts", "cannot be read"),
            (json!({"rules": ["x"]}), "workspace.metadata.reuse-check.rules", "expected a table"),
        ];
        for (value, key, message) in cases {
            let e = layer(value).unwrap_err();
            assert_eq!(e.key, key);
            assert!(e.message.contains(message), "{e}");
            assert!(e.to_string().starts_with("Cargo.toml: "));
        }
    }

    #[test]
    fn excludes_match_globs_and_contracts_resolve() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("c")).unwrap();
        std::fs::write(root.join("c/k.rs"), "").unwrap();
        let v = json!({"exclude": ["vendor/**"], "contracts": ["c/k.rs"]});
        let l = ConfigLayer::from_value(&v, Path::new("Cargo.toml"), "workspace.metadata.reuse-check", &root, &root).unwrap();
        assert_eq!(l.contracts, vec![root.join("c/k.rs")]);
        let c = Config::merge(&[&l]);
        assert!(c.excludes("vendor/a/b.rs"));
        assert!(!c.excludes("src/vendor.rs"));
    }
}
