//! `reuse-check`: see `reuse_check::cli`.
fn main() -> std::process::ExitCode {
    reuse_check::cli::main()
}
