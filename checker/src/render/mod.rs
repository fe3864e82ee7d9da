//! Renderers, one file per output format. Only this layer (and `main`, `lsp`) knows about
//! terminals, JSON and LSP; the analysis produces [`Finding`]s.

pub mod human;

use crate::engine::Report;

/// The output formats of `--format` / `--message-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
}

/// Renders a whole report to a string.
pub fn render(format: Format, report: &Report, color: bool) -> String {
    match format {
        Format::Human => human::render(report, color),
    }
}
