//! The command line of `reuse-check` / `cargo reuse-check`. Exit status: 0 clean or warnings only,
//! 1 an error-level finding (or any finding with `--deny warnings`), 2 the tool could not run.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches};
use crate::render::human::PathStyle;
use crate::render::json::Rendered;
use crate::render::{self, Format, RenderOptions};
use crate::workspace::Target;
use reuse_rules::{catalogue, Level, Rule};

const AFTER_HELP: &str = "\
Commands:
  lsp  Run the language server on stdin/stdout (for editors; see docs/editor.md)

Rule levels: -A, -W and -D take a rule name (as `--list-rules` prints it, with or without `reuse::`);
later flags win over earlier ones and over the configuration. `-D warnings` makes every warning fail
the run.

The flags of a `cargo check` invocation (--all-targets, --all-features, --features, --keep-going,
--target, --target-dir, --locked, --offline, --lib, --tests, --bin NAME, ...) are accepted and
ignored: every source file of the selected packages is read, nothing is built.

Documentation (docs/ in the reuse-check repository): contracts.md (the contract language), rules.md
(every rule, as --explain prints it), contracts-files.md (contracts for code you don't own),
configuration.md, runtime.md (the runtime shim), output-formats.md, editor.md.";

#[derive(clap::Parser, Debug)]
#[command(
    name = "reuse-check",
    version,
    about = "Checks #[reuse::contract] rules: skipped effects, null-block writes, donated buffers",
    override_usage = "reuse-check [OPTIONS] [PATH]\n       reuse-check lsp",
    after_help = AFTER_HELP
)]
struct Cli {
    /// A directory (a Cargo workspace, a package, or any tree of .rs files), a Cargo.toml, or one
    /// .rs file (checked against its workspace's contracts).
    path: Option<PathBuf>,
    /// Check every package of the workspace.
    #[arg(long, alias = "all")]
    workspace: bool,
    /// Check only these packages (a name, `name@version`, or cargo's package ID).
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    packages: Vec<String>,
    /// The Cargo.toml of the workspace or package to check (default: the one cargo finds from the
    /// current directory).
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// Report RULE as an error, overriding the configuration; `-D warnings`: every warning fails
    /// the run (exit status 1).
    #[arg(short = 'D', long = "deny", value_name = "RULE")]
    deny: Vec<String>,
    /// Report RULE as a warning, overriding the configuration.
    #[arg(short = 'W', long = "warn", value_name = "RULE")]
    warn: Vec<String>,
    /// Do not report RULE, overriding the configuration.
    #[arg(short = 'A', long = "allow", value_name = "RULE")]
    allow: Vec<String>,
    /// Apply the machine-applicable fixes (a sentinel in place of 0) to the files, then check
    /// again and report what remains. Writes only regular files inside the checked tree.
    #[arg(long)]
    fix: bool,
    /// Print the documentation of a rule and exit.
    #[arg(long, value_name = "RULE")]
    explain: Option<String>,
    /// List the rules with their default levels and exit.
    #[arg(long)]
    list_rules: bool,
    /// When to color human output: auto, always or never (default: `CARGO_TERM_COLOR`, else
    /// never when `NO_COLOR` is set, else auto).
    #[arg(long, value_name = "WHEN")]
    color: Option<String>,
    /// Do not print the summary line.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Parse and analyse every file, not only those that mention a contracted name (slower; for
    /// robustness runs). Implies `--no-cache`.
    #[arg(long)]
    all_files: bool,
    /// Do not read or write the warm-check cache in `target/reuse-check/`.
    #[arg(long)]
    no_cache: bool,
    /// Output format: human, short, json (cargo messages), sarif (SARIF 2.1.0), github (annotations).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,
    /// Cargo's `--message-format`: human, short, json, json-diagnostic-short,
    /// json-diagnostic-rendered-ansi, json-render-diagnostics (comma-separated, as cargo takes them).
    #[arg(long, value_name = "FMT", value_delimiter = ',')]
    message_format: Vec<String>,
    #[command(flatten)]
    cargo: CargoCompat,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FormatArg {
    Human,
    Short,
    Json,
    Sarif,
    Github,
}

/// Flags that cargo-check invocations pass (rust-analyzer's check command among them). They select
/// what cargo would compile; reuse-check reads every source file of the selected packages anyway,
/// builds nothing and runs no code, so it accepts them and ignores them.
#[derive(clap::Args, Debug, Default)]
struct CargoCompat {
    #[arg(long, hide = true)]
    all_targets: bool,
    #[arg(long, hide = true)]
    lib: bool,
    #[arg(long, hide = true)]
    bins: bool,
    #[arg(long, hide = true, value_name = "NAME")]
    bin: Vec<String>,
    #[arg(long, hide = true)]
    examples: bool,
    #[arg(long, hide = true, value_name = "NAME")]
    example: Vec<String>,
    #[arg(long, hide = true)]
    tests: bool,
    #[arg(long, hide = true, value_name = "NAME")]
    test: Vec<String>,
    #[arg(long, hide = true)]
    benches: bool,
    #[arg(long, hide = true, value_name = "NAME")]
    bench: Vec<String>,
    #[arg(long, hide = true)]
    all_features: bool,
    #[arg(long, hide = true)]
    no_default_features: bool,
    #[arg(short = 'F', long, hide = true, value_name = "FEATURES")]
    features: Vec<String>,
    #[arg(long, hide = true)]
    keep_going: bool,
    #[arg(long, hide = true)]
    locked: bool,
    #[arg(long, hide = true)]
    offline: bool,
    #[arg(long, hide = true)]
    frozen: bool,
    #[arg(long, hide = true, value_name = "TRIPLE")]
    target: Vec<String>,
    #[arg(long, hide = true, value_name = "DIR")]
    target_dir: Option<PathBuf>,
    #[arg(long, hide = true)]
    release: bool,
    #[arg(long, hide = true, value_name = "NAME")]
    profile: Option<String>,
    #[arg(short = 'j', long, hide = true, value_name = "N")]
    jobs: Option<String>,
    /// Say how many contracts were found and which dependencies declared them.
    #[arg(short = 'v', long, action = clap::ArgAction::Count)]
    verbose: u8,
    #[arg(short = 'Z', hide = true, value_name = "FLAG")]
    unstable: Vec<String>,
}

/// The format `--format` / `--message-format` ask for, and whether cargo's
/// `json-render-diagnostics` moves the rendered findings to stderr.
fn output_format(format: Option<FormatArg>, message_format: &[String]) -> Result<(Format, bool), String> {
    if message_format.is_empty() {
        let format = match format.unwrap_or(FormatArg::Human) {
            FormatArg::Human => Format::Human,
            FormatArg::Short => Format::Short,
            FormatArg::Json => Format::Json(Rendered::Plain),
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Github => Format::Github,
        };
        return Ok((format, false));
    }
    if let Some(f) = format {
        return Err(format!("`--format {}` and `--message-format` cannot be used together", format_name(f)));
    }
    let (mut json, mut short, mut ansi, mut render_diagnostics, mut human) = (false, false, false, false, false);
    for item in message_format.iter().map(|s| s.trim()) {
        match item {
            "human" => human = true,
            "short" => short = true,
            "json" => json = true,
            "json-diagnostic-short" => (json, short) = (true, true),
            "json-diagnostic-rendered-ansi" => (json, ansi) = (true, true),
            "json-render-diagnostics" => (json, render_diagnostics) = (true, true),
            other => {
                return Err(format!(
                    "`--message-format {other}`: expected human, short, json, json-diagnostic-short, json-diagnostic-rendered-ansi or json-render-diagnostics"
                ))
            }
        }
    }
    if json && human {
        return Err("`--message-format`: `human` cannot be combined with a JSON format".into());
    }
    let format = match (json, short, ansi) {
        (false, false, _) => Format::Human,
        (false, true, _) => Format::Short,
        (true, true, _) => Format::Json(Rendered::Short),
        (true, false, true) => Format::Json(Rendered::Ansi),
        (true, false, false) => Format::Json(Rendered::Plain),
    };
    Ok((format, render_diagnostics))
}

fn format_name(f: FormatArg) -> &'static str {
    match f {
        FormatArg::Human => "human",
        FormatArg::Short => "short",
        FormatArg::Json => "json",
        FormatArg::Sarif => "sarif",
        FormatArg::Github => "github",
    }
}

/// Runs the command line; both binaries call this. The work runs on a thread with a large stack
/// (see [`crate::STACK_SIZE`]).
pub fn main() -> ExitCode {
    crate::on_big_stack(main_on_this_thread)
}

fn main_on_this_thread() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    // `cargo reuse-check ...` runs `cargo-reuse-check reuse-check ...`: help and errors then name
    // the command the user typed.
    let via_cargo = args.get(1).map(String::as_str) == Some("reuse-check");
    if via_cargo {
        args.remove(1);
    }
    // `reuse-check lsp`: the language server, dispatched before clap so that the positional PATH
    // keeps working (a directory named `lsp` is checked with `reuse-check ./lsp`).
    if args.get(1).map(String::as_str) == Some("lsp") {
        return crate::lsp::main(&args[2..]);
    }
    let mut command = Cli::command();
    if via_cargo {
        command = command.bin_name("cargo reuse-check").override_usage("cargo reuse-check [OPTIONS] [PATH]\n       cargo reuse-check lsp");
    }
    let parsed = command.try_get_matches_from(&args).and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
    let (cli, matches) = match parsed {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli, &matches) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// The rule a command-line flag names: its name or its code (`reuse::stale_key`).
fn rule_named(name: &str, flag: &str) -> Result<&'static Rule, String> {
    catalogue::find_name_or_code(name).ok_or_else(|| {
        format!("`{flag} {name}`: unknown rule{}; `reuse-check --list-rules` lists them", catalogue::did_you_mean_rule(name))
    })
}

/// Rule levels from the command line, in the order given (later ones win, as clippy's).
type LevelFlags = Vec<(&'static Rule, Level)>;

/// `-A`/`-W`/`-D RULE`, and whether `-D warnings` was given.
fn level_flags(matches: &ArgMatches) -> Result<(LevelFlags, bool), String> {
    let mut flags: Vec<(usize, &str, Level, &String)> = Vec::new();
    for (id, flag, level) in [("allow", "--allow", Level::Allow), ("warn", "--warn", Level::Warn), ("deny", "--deny", Level::Error)] {
        if let (Some(values), Some(indices)) = (matches.get_many::<String>(id), matches.indices_of(id)) {
            flags.extend(indices.zip(values).map(|(i, v)| (i, flag, level, v)));
        }
    }
    flags.sort_by_key(|f| f.0);
    let mut levels = Vec::new();
    let mut deny_warnings = false;
    for (_, flag, level, name) in flags {
        if name == "warnings" {
            if level != Level::Error {
                return Err(format!("`{flag} warnings`: only `--deny warnings` (`-D warnings`) is supported"));
            }
            deny_warnings = true;
        } else {
            levels.push((rule_named(name, flag)?, level));
        }
    }
    Ok((levels, deny_warnings))
}

/// Whether human output is coloured: `--color`, else cargo's `CARGO_TERM_COLOR`, else `NO_COLOR`
/// (set and not empty: never), else whether `stream_is_terminal`.
fn use_color(flag: Option<&str>, cargo_term_color: Option<&str>, no_color: Option<&str>, stream_is_terminal: bool) -> Result<bool, String> {
    let (when, source) = match (flag, cargo_term_color) {
        (Some(w), _) => (w, "--color"),
        (None, Some(w)) if !w.is_empty() => (w, "CARGO_TERM_COLOR="),
        _ => ("auto", ""),
    };
    match when {
        "always" => Ok(true),
        "never" => Ok(false),
        "auto" => Ok(stream_is_terminal && no_color.is_none_or(str::is_empty)),
        other => Err(format!("`{source}{other}`: expected auto, always or never{}", catalogue::did_you_mean(other, ["auto", "always", "never"]))),
    }
}

fn run(cli: Cli, matches: &ArgMatches) -> Result<ExitCode, String> {
    if cli.list_rules {
        for r in catalogue::ALL {
            println!("{:<28} {:<8} {}", r.name, r.default_level.as_str(), r.summary);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = &cli.explain {
        let rule = catalogue::find_name_or_code(name)
            .ok_or_else(|| format!("unknown rule `{name}`{}; `reuse-check --list-rules` lists them", catalogue::did_you_mean_rule(name)))?;
        print!("{}", rule.explain());
        return Ok(ExitCode::SUCCESS);
    }
    let (levels, deny_warnings) = level_flags(matches)?;
    let env = |k: &str| std::env::var(k).ok();
    let color = use_color(cli.color.as_deref(), env("CARGO_TERM_COLOR").as_deref(), env("NO_COLOR").as_deref(), std::io::stdout().is_terminal())?;
    let stderr_color = use_color(cli.color.as_deref(), env("CARGO_TERM_COLOR").as_deref(), env("NO_COLOR").as_deref(), std::io::stderr().is_terminal())?;
    let (format, render_diagnostics) = output_format(cli.format, &cli.message_format)?;
    let target = Target { path: cli.path, manifest_path: cli.manifest_path, packages: cli.packages, workspace: cli.workspace };
    let options = crate::engine::CheckOptions { all_files: cli.all_files, use_cache: !cli.no_cache };
    let check = || crate::check_with_levels(&target, &options, &levels).map_err(|e| config_error_with_source(&e, stderr_color));
    let mut report = check()?;
    if cli.fix {
        let applied = crate::fix::apply(&report, &report.root);
        let cwd = std::env::current_dir().unwrap_or_default();
        for (path, n) in &applied.written {
            eprintln!("reuse-check: fixed {} in {}", render::human::count(*n, "finding"), render::human::shown_from(path, &cwd));
        }
        for (path, why) in &applied.refused {
            eprintln!("warning: --fix: `{}` not written: {why}", path.display());
        }
        if !applied.written.is_empty() {
            report = check()?;
        }
    }
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if cli.cargo.verbose > 0 {
        eprintln!("reuse-check: {} contracted functions indexed", report.stats.contracts);
        for s in &report.sources {
            eprintln!("reuse-check: {s}");
        }
    }
    let failed = report.count(Level::Error) > 0 || (deny_warnings && report.count(Level::Warn) > 0);
    // The checker failed on some file: its findings are printed, and the run is not a verdict.
    let internal_errors = report.findings.iter().filter(|f| f.rule.name == catalogue::INTERNAL_ERROR.name).count();
    let paths = std::env::current_dir().map(PathStyle::From).unwrap_or_default();
    let text = if render_diagnostics {
        // cargo's `json-render-diagnostics`: the diagnostics rendered on stderr, the JSON stream
        // (here only `build-finished`) on stdout.
        let options = RenderOptions { color: stderr_color, success: !failed, repo_root: None, paths, quiet: cli.quiet };
        let human = render::render(Format::Human, &report, &options);
        let _ = std::io::stderr().lock().write_all(human.as_bytes());
        render::json::build_finished(!failed)
    } else {
        let options = RenderOptions { color, success: !failed, repo_root: render::find_repo_root(&report.root), paths, quiet: cli.quiet };
        render::render(format, &report, &options)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    if internal_errors > 0 {
        eprintln!("error: reuse-check failed on {} (internal_error above); the result is incomplete", render::human::count(internal_errors, "file"));
        return Ok(ExitCode::from(2));
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The message of a discovery error; for a configuration error, followed by the offending line
/// of the manifest with the value (or key) underlined, as cargo shows its own errors.
fn config_error_with_source(e: &crate::workspace::DiscoverError, color: bool) -> String {
    let crate::workspace::DiscoverError::Config(config) = e else { return e.to_string() };
    match config.source_span() {
        Some((text, range)) => format!("{e}\n{}", render::human::render_source_snippet(&config.file, &text, range, &config.message, color)),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::use_color;

    #[test]
    fn color_flag_wins_over_the_environment() {
        assert_eq!(use_color(Some("always"), Some("never"), Some("1"), false), Ok(true));
        assert_eq!(use_color(Some("never"), Some("always"), None, true), Ok(false));
        assert_eq!(use_color(None, Some("always"), Some("1"), false), Ok(true));
        assert_eq!(use_color(None, Some("never"), None, true), Ok(false));
        assert_eq!(use_color(None, None, Some("1"), true), Ok(false));
        assert_eq!(use_color(None, None, Some(""), true), Ok(true));
        assert_eq!(use_color(None, Some("auto"), None, false), Ok(false));
        assert!(use_color(Some("allways"), None, None, true).unwrap_err().contains("did you mean `always`"));
    }
}
