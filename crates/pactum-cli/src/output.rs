//! Terminal plumbing: colour detection, and printing diagnostics to stderr
//! without ever failing the command on a closed stream.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;

use pactum_core::secret::Redactor;

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

/// The secrets of the command's run, redacted from every message printed
/// to stderr (SPEC §4): the last gate before the terminal.
static SECRETS: Mutex<Option<Redactor>> = Mutex::new(None);

/// Redacts `redactor`'s secrets from every later message on stderr (with
/// those it was given before).
pub fn redact_output(redactor: &Redactor) {
    let mut s = SECRETS.lock().unwrap_or_else(|p| p.into_inner());
    let merged = match s.as_ref() {
        Some(old) => old.with(redactor).unwrap_or_else(|_| redactor.clone()),
        None => redactor.clone(),
    };
    *s = Some(merged);
}

/// Prints one message to stderr; a closed stderr is ignored. Messages
/// quote paths and other untrusted text (a file name from a folder or a
/// glob), so terminal escapes and controls are stripped (SPEC §4); styled
/// output that pactum painted itself goes through [`eprint_styled`].
pub fn eprint(msg: &str) {
    eprint_styled(&pactum_core::text::strip_terminal_escapes(msg));
}

/// As [`eprint`], for text pactum styled itself whose untrusted parts are
/// already clean (diagnostics render their own excerpts safely).
pub fn eprint_styled(msg: &str) {
    let secrets = SECRETS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let msg = match &secrets {
        Some(r) => r.redact(msg),
        None => std::borrow::Cow::Borrowed(msg),
    };
    // A key written in an argument (a path named after one) is redacted
    // too, before any pipeline has read an input and learnt it (SPEC §4).
    let msg = pactum_pipeline::redact_message(
        msg.into_owned(),
        "error: a message that holds a key was withheld",
    );
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(msg.as_bytes());
    if !msg.ends_with('\n') {
        let _ = err.write_all(b"\n");
    }
}

pub use pactum_report::with_causes;
