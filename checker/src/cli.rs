//! The command line of `reuse-check` / `cargo reuse-check`. Exit status: 0 clean or warnings only,
//! 1 an error-level finding (or any finding with `--deny warnings`), 2 the tool could not run.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use crate::render::{self, Format};
use crate::workspace::Target;
use reuse_rules::{catalogue, Level};

#[derive(Parser, Debug)]
#[command(name = "reuse-check", version, about = "Checks #[reuse::contract] rules: skipped effects, null-block writes, donated buffers")]
struct Cli {
    /// A directory (a Cargo workspace, a package, or any tree of .rs files) or a Cargo.toml.
    path: Option<PathBuf>,
    /// Check every package of the workspace.
    #[arg(long)]
    workspace: bool,
    /// Check only these packages.
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
}

/// Runs the command line; both binaries call this.
pub fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    // `cargo reuse-check ...` runs `cargo-reuse-check reuse-check ...`.
    if args.get(1).map(String::as_str) == Some("reuse-check") {
        args.remove(1);
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
    let target = Target { path: cli.path, manifest_path: cli.manifest_path, packages: cli.packages, workspace: cli.workspace };
    let report = crate::check(&target).map_err(|e| e.to_string())?;
    let text = render::render(Format::Human, &report, color);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let deny_warnings = !cli.deny.is_empty();
    let failed = report.count(Level::Error) > 0 || (deny_warnings && report.count(Level::Warn) > 0);
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
