//! Violations and what happens to them: panic, log, or collect.

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::panic::Location;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use reuse_rules::Rule;

use crate::storage::Extent;

/// One broken contract, seen while the program ran.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The rule, from the one catalogue shared with the checker (`hit_skips_effect`, ...).
    pub rule: &'static Rule,
    /// The contracted function: `module::path::name`.
    pub function: &'static str,
    /// The contract clause that was broken, in canonical form: `writes(key_cache[slot_mapping], skip = PAD_SLOT_ID)`.
    pub clause: &'static str,
    /// Where the contracted function was called from (`#[track_caller]`).
    pub location: &'static Location<'static>,
    /// One sentence: what happened.
    pub message: String,
    /// The values involved.
    pub detail: Detail,
}

/// The values of a violation, by kind of check.
#[derive(Clone, Debug, PartialEq)]
pub enum Detail {
    /// `hit_skips_effect`, `effect_order`: the preserved effects as declared, and as they ran.
    Effects { expected: Vec<&'static str>, actual: Vec<&'static str>, hit: Option<bool> },
    /// `pad_to_null_block`: the first offending entry of the index argument, how many there were,
    /// and the forbidden region (in elements of the written place) it falls in, if any.
    Index { index: &'static str, position: usize, value: i128, region: Option<Range<i128>>, count: usize },
    /// `forbidden_write`: the region (in elements) whose fingerprint changed.
    Region { place: &'static str, elements: Range<usize>, before: u64, after: u64 },
    /// `alias_not_shared`, `undeclared_alias`: the output and the input, and where each lives.
    Alias { output: &'static str, input: &'static str, output_extent: Extent, input_extent: Option<Extent> },
    /// `use_after_donate`: the input that was passed a donated handle, where the handle's storage
    /// lives, and the contracted function it was donated to, called at `at`.
    Donated { input: &'static str, extent: Extent, donated_to: &'static str, at: &'static Location<'static> },
    /// `stale_hit`: the key components of the call (as `Debug` text, where the type has it).
    Stale { components: Vec<(&'static str, Option<String>)> },
    /// `hit_mismatch`: the cached and the recomputed value (as `Debug` text, where the type has it).
    Mismatch { cached: Option<String>, recomputed: Option<String> },
    /// `stale_result`: the returned output, where it lives, the `fresh` effect, and the storage
    /// that effect's runs in this call could write.
    Fresh { output: &'static str, effect: &'static str, output_extent: Extent, written: Vec<Extent> },
}

impl Violation {
    /// The rule's stable name.
    pub fn rule_name(&self) -> &'static str {
        self.rule.name
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error[{}]: {}\n  --> {}:{}:{} (call of `{}`)\n   = contract: {}",
            self.rule.code(),
            self.message,
            self.location.file(),
            self.location.line(),
            self.location.column(),
            self.function,
            self.clause
        )
    }
}

/// What to do with a violation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Panic at the end of the offending call, at the caller's location, with every violation of it.
    Panic,
    /// Print each violation to stderr and go on.
    Log,
    /// Keep it in a process-wide list that [`take_collected`] returns.
    Collect,
}

impl Policy {
    /// `panic`, `log` or `collect` (the values of `REUSE_POLICY`).
    pub fn parse(s: &str) -> Option<Policy> {
        match s.trim().to_ascii_lowercase().as_str() {
            "panic" => Some(Policy::Panic),
            "log" => Some(Policy::Log),
            "collect" => Some(Policy::Collect),
            _ => None,
        }
    }
    fn to_u8(self) -> u8 {
        match self {
            Policy::Panic => 1,
            Policy::Log => 2,
            Policy::Collect => 3,
        }
    }
    fn from_u8(v: u8) -> Option<Policy> {
        match v {
            1 => Some(Policy::Panic),
            2 => Some(Policy::Log),
            3 => Some(Policy::Collect),
            _ => None,
        }
    }
}

static POLICY: AtomicU8 = AtomicU8::new(0);
static ENV_POLICY: OnceLock<Result<Option<Policy>, String>> = OnceLock::new();
static COLLECTED: Mutex<Vec<Violation>> = Mutex::new(Vec::new());

thread_local! {
    static SCOPES: RefCell<Vec<Vec<Violation>>> = const { RefCell::new(Vec::new()) };
}

/// Sets the process-wide policy (it overrides `REUSE_POLICY`; a [`collect`] scope overrides both).
pub fn set_policy(policy: Policy) {
    POLICY.store(policy.to_u8(), Ordering::Relaxed);
}

/// The policy a value of `REUSE_POLICY` asks for: unset or blank, none; `panic`, `log` or
/// `collect`; anything else is an error (a typo must not quietly turn `panic` into `log`).
pub fn policy_from_env(value: Option<&str>) -> Result<Option<Policy>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => Policy::parse(v).map(Some).ok_or_else(|| format!("REUSE_POLICY=`{v}` is not a policy: expected panic, log or collect")),
    }
}

/// The policy in force for a violation raised now, outside any [`collect`] scope, by a function
/// compiled with `cfg(test)` on (`in_test`) or off. Panics when `REUSE_POLICY` holds an invalid
/// value and no [`set_policy`] overrides it.
pub fn policy(in_test: bool) -> Policy {
    try_policy(in_test).unwrap_or_else(|e| panic!("reuse-check runtime: {e}"))
}

/// [`policy`], with an invalid `REUSE_POLICY` as an error.
pub fn try_policy(in_test: bool) -> Result<Policy, String> {
    if let Some(p) = Policy::from_u8(POLICY.load(Ordering::Relaxed)) {
        return Ok(p);
    }
    let env = ENV_POLICY.get_or_init(|| policy_from_env(std::env::var("REUSE_POLICY").ok().as_deref())).clone()?;
    Ok(env.unwrap_or(if in_test { Policy::Panic } else { Policy::Log }))
}

/// Runs `f` and returns the violations raised on this thread while it ran, whatever the policy.
/// Scopes nest: a violation goes to the innermost one.
pub fn collect(f: impl FnOnce()) -> Vec<Violation> {
    collect_with(f).1
}

/// Like [`collect`], and returns `f`'s value too.
pub fn collect_with<R>(f: impl FnOnce() -> R) -> (R, Vec<Violation>) {
    struct Scope(usize);
    impl Drop for Scope {
        fn drop(&mut self) {
            SCOPES.with(|s| s.borrow_mut().truncate(self.0));
        }
    }
    let depth = SCOPES.with(|s| {
        let mut s = s.borrow_mut();
        s.push(Vec::new());
        s.len() - 1
    });
    let scope = Scope(depth);
    let out = f();
    let found = SCOPES.with(|s| s.borrow_mut().get_mut(depth).map(std::mem::take).unwrap_or_default());
    drop(scope);
    (out, found)
}

/// Takes the violations kept under [`Policy::Collect`] so far, from every thread.
pub fn take_collected() -> Vec<Violation> {
    std::mem::take(&mut *COLLECTED.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Hands the violations to the innermost `collect` scope; returns them if there is none.
fn to_scope(violations: Vec<Violation>) -> Option<Vec<Violation>> {
    let mut pending = Some(violations);
    let _ = SCOPES.try_with(|s| {
        if let Some(scope) = s.borrow_mut().last_mut() {
            scope.extend(pending.take().unwrap_or_default());
        }
    });
    pending
}

/// Delivers the violations of a call whose body panicked: as [`deliver`], but a `panic` policy logs
/// instead (a panic while unwinding would abort).
pub(crate) fn deliver_unwinding(violations: Vec<Violation>, in_test: bool) {
    let Some(violations) = to_scope(violations) else { return };
    match try_policy(in_test) {
        Ok(Policy::Collect) => COLLECTED.lock().unwrap_or_else(|e| e.into_inner()).extend(violations),
        Ok(Policy::Log | Policy::Panic) => {
            for v in &violations {
                eprintln!("reuse-check runtime: {v}");
            }
        }
        Err(e) => {
            eprintln!("reuse-check runtime: {e}");
            for v in &violations {
                eprintln!("reuse-check runtime: {v}");
            }
        }
    }
}

/// Delivers the violations of one call.
#[track_caller]
pub(crate) fn deliver(violations: Vec<Violation>, in_test: bool) {
    if violations.is_empty() {
        return;
    }
    let Some(violations) = to_scope(violations) else { return };
    let text = || violations.iter().map(|v| v.to_string()).collect::<Vec<String>>().join("\n");
    match try_policy(in_test) {
        Ok(Policy::Collect) => COLLECTED.lock().unwrap_or_else(|e| e.into_inner()).extend(violations),
        Ok(Policy::Log) => {
            for v in &violations {
                eprintln!("reuse-check runtime: {v}");
            }
        }
        Ok(Policy::Panic) => panic!("reuse-check runtime: contract violated\n{}", text()),
        Err(e) => panic!("reuse-check runtime: {e}; contract violated\n{}", text()),
    }
}
