//! Progress of the long commands on standard error (`tld4 bench`, `tld4 scan`), drawn only
//! when standard error is a terminal: a pipe or a file gets nothing, so their output is
//! unchanged. The `indicatif` crate draws it.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over `len` steps, or a hidden one where standard error is no terminal.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), target());
    if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {wide_msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(what.to_string());
    bar
}

/// A spinner with a message (for work whose size is not known in advance).
pub fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, target());
    if let Ok(style) = ProgressStyle::with_template("{prefix} {spinner} {wide_msg}") {
        bar.set_style(style);
    }
    bar.set_prefix(what.to_string());
    bar
}

/// Standard error where it is a terminal, nowhere otherwise.
fn target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}
