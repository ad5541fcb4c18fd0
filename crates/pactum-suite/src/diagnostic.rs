//! Located diagnostics: what is wrong with an input file, where, and how to
//! fix it, rendered the way rustc renders its errors.

use std::fmt;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pactum_core::text::strip_terminal_escapes;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DiagnosticLevel {
    /// The file cannot be used until it is fixed.
    Error,
    /// The file is usable; something in it is probably not what was meant.
    Warning,
}

impl DiagnosticLevel {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticLevel::Error => "error",
            DiagnosticLevel::Warning => "warning",
        }
    }
}

impl fmt::Display for DiagnosticLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem in one input file.
///
/// `line` and `column` are 1-based and count characters (not bytes); both
/// are 0 when the problem has no position (the file could not be read).
/// `code` is a stable kebab-case name (`unknown-key`, `invalid-regex`, …,
/// listed in `docs/contracts.md`); `message` is a lowercase fragment;
/// `hint`, when present, says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, thiserror::Error)]
#[error("{}:{line}:{column}: {level}[{code}]: {message}", file.display())]
pub struct Diagnostic {
    /// Error or warning.
    pub level: DiagnosticLevel,
    /// Stable kebab-case code.
    pub code: String,
    /// The file the problem is in.
    pub file: PathBuf,
    /// 1-based line; 0 when unknown.
    pub line: usize,
    /// 1-based character column; 0 when unknown.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `line`:`column` of `file`.
    pub fn error(
        code: &str,
        file: &Path,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            level: DiagnosticLevel::Error,
            code: code.to_string(),
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
            hint: None,
        }
    }

    /// A warning at `line`:`column` of `file`.
    pub fn warning(
        code: &str,
        file: &Path,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            level: DiagnosticLevel::Warning,
            ..Diagnostic::error(code, file, line, column, message)
        }
    }

    /// The same diagnostic with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.level == DiagnosticLevel::Error
    }

    /// Renders the diagnostic like rustc does:
    ///
    /// ```text
    /// error[unknown-key]: unknown key `chek` in clause
    ///   --> contract.yaml:12:3
    ///    |
    /// 12 |   chek:
    ///    |   ^^^^
    ///    = hint: did you mean `check`?
    /// ```
    ///
    /// `source` is the text of [`Diagnostic::file`]; without it (or when the
    /// line is not in it) the snippet is left out. The carets cover the
    /// token at the column (a quoted scalar, a key, or a plain value up to
    /// the end of the line). Terminal escape sequences in the file's text
    /// and in the message are removed; colour (ANSI) only when `color`.
    /// Deterministic; the result ends with a newline.
    ///
    /// A secret never reaches the terminal through a snippet (SPEC §4): a
    /// diagnostic about a secret written in the file ([`SECRET_CODES`])
    /// shows no snippet, nor does one on a line naming a secret header or
    /// variable (another error on that line), and the credentials of any URL
    /// in a snippet are masked with `*`.
    pub fn render(&self, source: Option<&str>, color: bool) -> String {
        let paint = Paint { on: color };
        let level_style = match self.level {
            DiagnosticLevel::Error => RED,
            DiagnosticLevel::Warning => YELLOW,
        };
        let snippet = source
            .filter(|_| !SECRET_CODES.contains(&self.code.as_str()))
            .and_then(|s| snippet(s, self.line, self.column));
        let width = if self.line == 0 {
            1
        } else {
            self.line.to_string().len()
        };
        let pad = " ".repeat(width);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}{}",
            paint.style(
                level_style,
                &format!("{}[{}]", self.level, clean(&self.code))
            ),
            paint.style(BOLD, &format!(": {}", clean(&self.message)))
        );
        let place = if self.line == 0 {
            self.file.display().to_string()
        } else {
            format!("{}:{}:{}", self.file.display(), self.line, self.column)
        };
        let _ = writeln!(out, "{pad}{} {}", paint.style(BLUE, "-->"), clean(&place));
        if let Some((text, offset, carets)) = &snippet {
            let bar = paint.style(BLUE, "|");
            let _ = writeln!(out, "{pad} {bar}");
            let _ = writeln!(
                out,
                "{} {bar} {}",
                paint.style(BLUE, &self.line.to_string()),
                text
            );
            let _ = writeln!(
                out,
                "{pad} {bar} {}{}",
                " ".repeat(*offset),
                paint.style(level_style, &"^".repeat(*carets))
            );
        }
        if let Some(hint) = &self.hint {
            let hint = clean(hint);
            let mut lines = hint.lines();
            let first = lines.next().unwrap_or("");
            let _ = writeln!(out, "{pad} {} {first}", paint.style(BLUE, "= hint:"));
            for l in lines {
                let _ = writeln!(out, "{pad}         {l}");
            }
        }
        out
    }
}

const RED: &str = "\u{1b}[1;31m";
const YELLOW: &str = "\u{1b}[1;33m";
const BLUE: &str = "\u{1b}[1;34m";
const BOLD: &str = "\u{1b}[1m";
const RESET: &str = "\u{1b}[0m";

struct Paint {
    on: bool,
}

impl Paint {
    fn style(&self, style: &str, text: &str) -> String {
        if self.on {
            format!("{style}{text}{RESET}")
        } else {
            text.to_string()
        }
    }
}

fn clean(s: &str) -> String {
    strip_terminal_escapes(s)
}

/// The codes of diagnostics about a secret written in a file: they show
/// no snippet of the line, which holds it.
pub const SECRET_CODES: [&str; 2] = ["literal-api-key", "literal-secret"];

/// `line` with the credentials of every URL in it masked, character for
/// character ([`pactum_core::secret::UrlSecrets::masked`]).
fn mask_url_credentials(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find("://") {
        let start = rest[..i]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |(p, c)| p + c.len_utf8());
        let end = rest[i..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
            .map_or(rest.len(), |p| i + p);
        let url = &rest[start..end];
        out.push_str(&rest[..start]);
        out.push_str(&pactum_core::secret::url_secrets(url).masked(url));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Whether a source line names something that holds a secret (a header
/// such as `Authorization` or `X-Api-Key`, an `env` variable whose name
/// says key, token, secret or password): its value may be a literal
/// secret, so the line is never quoted; the message still names the file,
/// line, column and field.
fn names_a_secret(line: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_');
    let mut rest = line;
    while let Some(start) = rest.find(is_word) {
        let tail = &rest[start..];
        let end = tail.find(|c: char| !is_word(c)).unwrap_or(tail.len());
        let (word, after) = tail.split_at(end);
        // A mapping key (`Authorization:`, `"X-Api-Key": …`), not a word
        // of a value or a URL's query.
        let keyed = after
            .trim_start_matches(['"', '\''])
            .trim_start()
            .starts_with(':');
        if keyed
            && (crate::suite::names::is_secret_header(word)
                || crate::suite::names::is_secret_var(word))
        {
            return true;
        }
        rest = after;
    }
    false
}

/// The longest source line shown, in characters; longer lines are shown as
/// a window around the column.
const MAX_LINE: usize = 120;

/// The line's text to show, the caret offset and the caret count.
fn snippet(source: &str, line: usize, column: usize) -> Option<(String, usize, usize)> {
    if line == 0 {
        return None;
    }
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let text = source.lines().nth(line - 1)?;
    if names_a_secret(text) {
        return None;
    }
    // Tabs become one space so that caret columns stay aligned.
    let chars: Vec<char> = mask_url_credentials(&strip_terminal_escapes(text))
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    let col0 = column.saturating_sub(1).min(chars.len());
    let width = token_width(&chars, col0).max(1);
    if chars.len() <= MAX_LINE {
        let shown: String = chars.iter().collect();
        return Some((shown.trim_end().to_string(), col0, width));
    }
    // A window of MAX_LINE characters starting a little before the column.
    let start = col0.saturating_sub(MAX_LINE / 3);
    let end = (start + MAX_LINE).min(chars.len());
    let mut shown = String::new();
    let mut offset = col0 - start;
    if start > 0 {
        shown.push('…');
        offset += 1;
    }
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push('…');
    }
    let width = width.min(end.saturating_sub(col0)).max(1);
    Some((shown, offset, width))
}

/// How many characters the token starting at `col0` spans: a quoted scalar
/// to its closing quote; a bracket one character; a plain scalar (or key)
/// up to `: `, ` #`, a flow indicator or the end of the line.
pub(crate) fn token_width(chars: &[char], col0: usize) -> usize {
    let Some(&first) = chars.get(col0) else {
        return 1;
    };
    match first {
        '"' | '\'' => {
            let mut i = col0 + 1;
            while let Some(&c) = chars.get(i) {
                if first == '"' && c == '\\' {
                    i += 2;
                    continue;
                }
                if c == first {
                    if first == '\'' && chars.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    return i + 1 - col0;
                }
                i += 1;
            }
            chars.len() - col0
        }
        '{' | '}' | '[' | ']' | ',' => 1,
        '-' | '|' | '>' if chars.get(col0 + 1).is_none_or(|c| *c == ' ') => 1,
        _ => {
            let mut end = col0;
            while let Some(&c) = chars.get(end) {
                let next = chars.get(end + 1).copied();
                let at_colon = c == ':' && next.is_none_or(|n| n == ' ');
                let at_comment = c == '#' && end > 0 && chars.get(end - 1) == Some(&' ');
                if at_colon || at_comment || matches!(c, ',' | ']' | '}') {
                    break;
                }
                end += 1;
            }
            while end > col0 && chars.get(end - 1) == Some(&' ') {
                end -= 1;
            }
            (end - col0).max(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(line: &str, col0: usize) -> usize {
        let chars: Vec<char> = line.chars().collect();
        token_width(&chars, col0)
    }

    /// A scheme written in any script, or none, never splits a character.
    #[test]
    fn url_masking_keeps_character_boundaries() {
        for line in [
            "\u{16a6e}://",
            "é://x",
            "ü+://u:p@h",
            "://",
            "日本://user:secret@host/",
        ] {
            let masked = mask_url_credentials(line);
            assert_eq!(masked.chars().count(), line.chars().count(), "{line}");
        }
        assert!(!mask_url_credentials("https://user:hunter22pass@host/").contains("hunter22pass"));
    }

    #[test]
    fn token_widths() {
        assert_eq!(w("  chek: x", 2), 4);
        assert_eq!(w("  text: Must not reveal it  # c", 8), 18);
        assert_eq!(w(r#"a: "x\"y": 1"#, 3), 6);
        assert_eq!(w("a: 'it''s'", 3), 7);
        assert_eq!(w("{ contains: x, regex: y }", 0), 1);
        assert_eq!(w("{ contains: x, regex: y }", 12), 1);
        assert_eq!(w("{ contains: xy, regex: y }", 12), 2);
        assert_eq!(w("url: http://a:b", 5), 10);
        assert_eq!(w("", 0), 1);
        assert_eq!(w("ab", 5), 1);
        assert_eq!(w("- x", 0), 1);
        assert_eq!(w("n: -12", 3), 3);
    }

    #[test]
    fn snippets_show_no_secret() {
        let src = "targets:\n  t: { base_url: \"https://u:pw-secret@h/v1?api_key=sk-abc&m=1\", x: 1 }\n  h:\n    headers: { Authorization: Bearer sk-literal }\n";
        let d = Diagnostic::warning("bad-value", Path::new("s.yaml"), 2, 36, "m");
        let out = d.render(Some(src), false);
        assert!(
            out.contains("base_url: \"https://***********@h/v1?api_key=******&m=1\", x: 1 }"),
            "{out}"
        );
        assert!(
            !out.contains("pw-secret") && !out.contains("sk-abc"),
            "{out}"
        );
        for code in SECRET_CODES {
            let d = Diagnostic::warning(code, Path::new("s.yaml"), 4, 31, "m");
            let out = d.render(Some(src), false);
            assert!(!out.contains("sk-literal") && !out.contains('|'), "{out}");
        }
    }

    /// Another error on a line that writes a secret (a wrong type beside a
    /// literal `Authorization` header, an exec `env` token) quotes nothing
    /// of the line; a line without a secret-named key is still shown.
    #[test]
    fn an_error_beside_a_literal_secret_quotes_no_line() {
        let src = "headers: { Authorization: \"Bearer Hk29Xc84Lm0Pq7Rt5Vy1Zb\", X-Extra: [1] }\nenv: { \"AGENT_TOKEN\": Qz7pLm4xRt9vWk2sHn6dYb }\nmodel: gpt-x\n";
        for (line, secret) in [(1, "Hk29Xc84"), (2, "Qz7pLm4x")] {
            let d = Diagnostic::error("bad-type", Path::new("s.yaml"), line, 60, "m");
            let out = d.render(Some(src), false);
            assert!(!out.contains(secret) && !out.contains('|'), "{out}");
            assert!(out.contains(&format!("s.yaml:{line}:")), "{out}");
        }
        let d = Diagnostic::error("bad-type", Path::new("s.yaml"), 3, 8, "m");
        assert!(d.render(Some(src), false).contains("model: gpt-x"));
    }

    #[test]
    fn renders_without_source_and_without_position() {
        let d = Diagnostic::error("io", Path::new("a.yaml"), 0, 0, "cannot read `a.yaml`");
        assert_eq!(
            d.render(None, false),
            "error[io]: cannot read `a.yaml`\n --> a.yaml\n"
        );
        let d = Diagnostic::warning("w", Path::new("a.yaml"), 3, 2, "m").with_hint("h1\nh2");
        assert_eq!(
            d.render(Some("x\ny\n ab: 1\n"), false),
            "warning[w]: m\n --> a.yaml:3:2\n  |\n3 |  ab: 1\n  |  ^^\n  = hint: h1\n          h2\n"
        );
        // A line beyond the end of the source: no snippet, no panic.
        assert!(!d.render(Some("x"), false).contains('^'));
    }

    #[test]
    fn color_only_when_asked_and_escapes_stripped() {
        let d = Diagnostic::error("c", Path::new("f"), 1, 1, "bad \u{1b}[31mred");
        let plain = d.render(Some("k: \u{1b}]0;t\u{7}v"), false);
        assert!(!plain.contains('\u{1b}'), "{plain:?}");
        let colored = d.render(Some("k: v"), true);
        assert!(colored.contains("\u{1b}[1;31m"));
    }

    #[test]
    fn long_lines_are_windowed() {
        let line = format!("{}needle{}", "a ".repeat(200), " b".repeat(200));
        let d = Diagnostic::error("c", Path::new("f"), 1, 401, "m");
        let r = d.render(Some(&line), false);
        let shown = r.lines().nth(3).unwrap_or_default();
        let carets = r.lines().nth(4).unwrap_or_default();
        assert!(shown.chars().count() <= MAX_LINE + 8, "{shown}");
        let at = carets.find('^').unwrap_or(0);
        let shown_chars: Vec<char> = shown.chars().collect();
        let caret_col = carets[..at].chars().count();
        let word: String = shown_chars[caret_col..caret_col + 6].iter().collect();
        assert_eq!(word, "needle");
    }
}
