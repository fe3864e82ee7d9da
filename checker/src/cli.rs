//! The command line of `reuse-check` / `cargo reuse-check`. Exit status: 0 clean or warnings only,
//! 1 an error-level finding (or any finding with `--deny warnings`), 2 the tool could not run.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use crate::render::json::Rendered;
use crate::render::{self, Format, RenderOptions};
use crate::workspace::Target;
use reuse_rules::{catalogue, Level};

#[derive(Parser, Debug)]
#[command(
    name = "reuse-check",
    version,
    about = "Checks #[reuse::contract] rules: skipped effects, null-block writes, donated buffers",
    after_help = "The flags of a `cargo check` invocation (--all-targets, --all-features, --features, --keep-going, \
--target, --target-dir, --locked, --offline, -q, --lib, --tests, --bin NAME, ...) are accepted and ignored: \
every source file of the selected packages is read, nothing is built. See docs/output-formats.md."
)]
struct Cli {
    /// A directory (a Cargo workspace, a package, or any tree of .rs files) or a Cargo.toml.
    path: Option<PathBuf>,
    /// Check every package of the workspace.
    #[arg(long, alias = "all")]
    workspace: bool,
    /// Check only these packages (a name, `name@version`, or cargo's package ID).
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    packages: Vec<String>,
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// Treat warnings as errors for the exit status (`--deny warnings` or `-D warnings`).
    #[arg(short = 'D', long = "deny", value_name = "warnings")]
    deny: Vec<String>,
    /// Print the documentation of a rule and exit.
    #[arg(long, value_name = "RULE")]
    explain: Option<String>,
    /// List the rules with their default levels and exit.
    #[arg(long)]
    list_rules: bool,
    /// When to color human output.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    color: String,
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
    #[arg(short = 'q', long, hide = true)]
    quiet: bool,
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
    // `cargo reuse-check ...` runs `cargo-reuse-check reuse-check ...`.
    if args.get(1).map(String::as_str) == Some("reuse-check") {
        args.remove(1);
    }
    // `reuse-check lsp`: the language server, dispatched before clap so that the positional PATH
    // keeps working (a directory named `lsp` is checked with `reuse-check ./lsp`).
    if args.get(1).map(String::as_str) == Some("lsp") {
        return crate::lsp::main(&args[2..]);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    if cli.list_rules {
        for r in catalogue::ALL {
            println!("{:<28} {:<8} {}", r.name, r.default_level.as_str(), r.summary);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = &cli.explain {
        let rule = catalogue::find(name).ok_or_else(|| format!("unknown rule `{name}`; `reuse-check --list-rules` lists them"))?;
        print!("{}", rule.explain());
        return Ok(ExitCode::SUCCESS);
    }
    for d in &cli.deny {
        if d != "warnings" {
            return Err(format!("`--deny {d}`: only `--deny warnings` is supported"));
        }
    }
    let color = match cli.color.as_str() {
        "always" => true,
        "never" => false,
        "auto" => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        other => return Err(format!("`--color {other}`: expected auto, always or never")),
    };
    let (format, render_diagnostics) = output_format(cli.format, &cli.message_format)?;
    let target = Target { path: cli.path, manifest_path: cli.manifest_path, packages: cli.packages, workspace: cli.workspace };
    let options = crate::engine::CheckOptions { all_files: cli.all_files, use_cache: !cli.no_cache };
    let report = crate::check_with(&target, &options).map_err(|e| e.to_string())?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if cli.cargo.verbose > 0 {
        eprintln!("reuse-check: {} contracted functions indexed", report.stats.contracts);
        for s in &report.sources {
            eprintln!("reuse-check: contracts from dependency {s}");
        }
    }
    let deny_warnings = !cli.deny.is_empty();
    let failed = report.count(Level::Error) > 0 || (deny_warnings && report.count(Level::Warn) > 0);
    // The checker failed on some file: its findings are printed, and the run is not a verdict.
    let internal_errors = report.findings.iter().filter(|f| f.rule.name == catalogue::INTERNAL_ERROR.name).count();
    let text = if render_diagnostics {
        // cargo's `json-render-diagnostics`: the diagnostics rendered on stderr, the JSON stream
        // (here only `build-finished`) on stdout.
        let options = RenderOptions { color: std::io::stderr().is_terminal(), success: !failed, repo_root: None };
        let human = render::render(Format::Human, &report, &options);
        let _ = std::io::stderr().lock().write_all(human.as_bytes());
        render::json::build_finished(!failed)
    } else {
        let options = RenderOptions { color, success: !failed, repo_root: render::find_repo_root(&report.root) };
        render::render(format, &report, &options)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    if internal_errors > 0 {
        eprintln!("error: reuse-check failed on {internal_errors} file(s) (internal_error above); the result is incomplete");
        return Ok(ExitCode::from(2));
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
