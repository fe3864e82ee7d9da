//! `cargo reuse-check`: the same command, named for cargo's subcommand lookup.
fn main() -> std::process::ExitCode {
    reuse_check::cli::main()
}
