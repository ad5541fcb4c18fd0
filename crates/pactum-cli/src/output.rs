//! Terminal plumbing: colour detection, and printing diagnostics to stderr
//! without ever failing the command on a closed stream.

use std::io::{IsTerminal, Write};

use crate::ColorChoice;

/// Whether to colour stdout: `always`, `never`, or (auto) when stdout is a
/// terminal and `NO_COLOR` is unset.
pub fn color_enabled(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    }
}

/// Whether stderr may be coloured.
pub fn stderr_color(choice_enabled: bool) -> bool {
    choice_enabled && std::io::stderr().is_terminal()
}

/// Prints one message to stderr; a closed stderr is ignored.
pub fn eprint(msg: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(msg.as_bytes());
    if !msg.ends_with('\n') {
        let _ = err.write_all(b"\n");
    }
}
