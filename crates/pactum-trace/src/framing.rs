//! Framing: cutting a file into records, one at a time, without ever
//! holding more than one record in memory.
//!
//! * [`LineFrames`]: JSONL, one record per non-blank line. A broken line
//!   costs only that line.
//! * [`JsonFrames`]: a JSON document: the elements of the top-level array,
//!   or of the array at a records pointer, or each top-level value
//!   (a single object, or concatenated values). A structural scanner finds
//!   each element's bytes and start line; serde parses them afterwards.
//!
//! Both hand out [`Frame`]s borrowing an internal buffer that is reused for
//! the next record.

use std::io::{self, BufRead, Read};

/// The largest record the importers hold in memory, in bytes. A longer
/// record is reported as an error and skipped, so one runaway line cannot
/// exhaust memory.
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// One record cut from the input, or a place where the input is broken.
#[derive(Debug)]
pub(crate) enum Frame<'a> {
    /// A record's raw JSON bytes.
    Record {
        /// 1-based line where the record starts.
        line: u64,
        /// 1-based index within its array, for array elements.
        ordinal: Option<u64>,
        /// The record's bytes (not yet parsed).
        bytes: &'a [u8],
    },
    /// A place the framing could not read as a record.
    Broken {
        /// 1-based line of the problem.
        line: u64,
        /// What is wrong, as a lowercase fragment. When nothing after
        /// this point can be framed, it says so and framing ends.
        message: String,
    },
}

/// Skips a UTF-8 byte order mark at the very start of the input.
pub(crate) fn skip_bom<R: BufRead>(r: &mut R) -> io::Result<()> {
    let buf = r.fill_buf()?;
    if buf.starts_with(b"\xEF\xBB\xBF") {
        r.consume(3);
    }
    Ok(())
}

/// JSONL framing: each non-blank line is one record.
pub(crate) struct LineFrames<R> {
    r: R,
    buf: Vec<u8>,
    line: u64,
    limit: usize,
}

impl<R: BufRead> LineFrames<R> {
    /// Frames `r`, holding at most `limit` bytes of one line.
    pub(crate) fn new(mut r: R, limit: usize) -> io::Result<Self> {
        skip_bom(&mut r)?;
        Ok(Self {
            r,
            buf: Vec::new(),
            line: 0,
            limit,
        })
    }

    /// The next record, `None` at the end of the input.
    pub(crate) fn next_frame(&mut self) -> io::Result<Option<Frame<'_>>> {
        loop {
            self.buf.clear();
            let cap = u64::try_from(self.limit)
                .unwrap_or(u64::MAX)
                .saturating_add(1);
            let n = self.r.by_ref().take(cap).read_until(b'\n', &mut self.buf)?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let ended = self.buf.last() == Some(&b'\n');
            if !ended && self.buf.len() > self.limit {
                self.r.skip_until(b'\n')?;
                self.buf.clear();
                return Ok(Some(Frame::Broken {
                    line: self.line,
                    message: format!("line is longer than {} bytes", self.limit),
                }));
            }
            if self.buf.trim_ascii().is_empty() {
                continue;
            }
            // Leading blanks stay, so a parser's column is the line's column.
            return Ok(Some(Frame::Record {
                line: self.line,
                ordinal: None,
                bytes: self.buf.trim_ascii_end(),
            }));
        }
    }
}

/// Why a structural scan stopped.
#[derive(Debug)]
pub(crate) enum ScanError {
    /// Reading the file failed.
    Io(io::Error),
    /// The bytes are not JSON at this point; `line` is where it was noticed.
    Syntax { line: u64, message: String },
}

impl From<io::Error> for ScanError {
    fn from(e: io::Error) -> Self {
        ScanError::Io(e)
    }
}

/// How a captured value ended.
enum Captured {
    /// The whole value is in the buffer.
    Whole,
    /// The value was longer than the limit: it was skipped, the buffer is empty.
    TooLong,
}

/// A byte-level JSON structure scanner over a buffered reader. It tracks
/// nesting, strings and line numbers; it does not validate scalars (serde
/// does that on the captured bytes).
struct Scanner<R> {
    r: R,
    /// 1-based line of the next unread byte.
    line: u64,
}

impl<R: BufRead> Scanner<R> {
    fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(self.r.fill_buf()?.first().copied())
    }

    fn bump(&mut self) -> io::Result<()> {
        if let Some(b) = self.peek()? {
            if b == b'\n' {
                self.line += 1;
            }
            self.r.consume(1);
        }
        Ok(())
    }

    /// Skips whitespace; returns the next byte without consuming it.
    fn skip_ws(&mut self) -> io::Result<Option<u8>> {
        loop {
            let buf = self.r.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            let mut newlines = 0;
            let mut n = 0;
            let mut next = None;
            for &b in buf {
                match b {
                    b'\n' => newlines += 1,
                    b' ' | b'\t' | b'\r' => {}
                    _ => {
                        next = Some(b);
                        break;
                    }
                }
                n += 1;
            }
            self.line += newlines;
            self.r.consume(n);
            if next.is_some() {
                return Ok(next);
            }
        }
    }

    fn syntax(&self, message: impl Into<String>) -> ScanError {
        ScanError::Syntax {
            line: self.line,
            message: message.into(),
        }
    }

    /// Consumes `want` (after whitespace) or fails naming what was found.
    fn expect(&mut self, want: u8, what: &str) -> Result<(), ScanError> {
        match self.skip_ws()? {
            Some(b) if b == want => {
                self.bump()?;
                Ok(())
            }
            Some(b) => Err(self.syntax(format!("expected {what}, found `{}`", char::from(b)))),
            None => Err(self.syntax(format!("expected {what}, found the end of the file"))),
        }
    }

    /// Scans one value starting at the next non-whitespace byte. With
    /// `out`, its bytes are appended there until `limit` is exceeded, after
    /// which the rest is skipped and [`Captured::TooLong`] returned.
    fn value(
        &mut self,
        mut out: Option<&mut Vec<u8>>,
        limit: usize,
    ) -> Result<Captured, ScanError> {
        let first = match self.skip_ws()? {
            Some(b) => b,
            None => return Err(self.syntax("expected a value, found the end of the file")),
        };
        if matches!(first, b',' | b':' | b']' | b'}') {
            return Err(self.syntax(format!("expected a value, found `{}`", char::from(first))));
        }
        let scalar = !matches!(first, b'{' | b'[' | b'"');
        let mut depth: u64 = 0;
        let mut in_string = false;
        let mut escaped = false;
        let mut too_long = false;
        let mut started = false;
        loop {
            let buf = self.r.fill_buf()?;
            if buf.is_empty() {
                if scalar && started {
                    break;
                }
                return Err(self.syntax("unexpected end of file inside a value"));
            }
            let mut n = 0;
            let mut done = false;
            let mut newlines = 0;
            for &b in buf {
                if b == b'\n' {
                    newlines += 1;
                }
                if scalar {
                    if started
                        && matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}' | b':')
                    {
                        if b == b'\n' {
                            newlines -= 1; // not consumed
                        }
                        done = true;
                        break;
                    }
                    started = true;
                } else if in_string {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                        if depth == 0 {
                            n += 1;
                            done = true;
                            break;
                        }
                    }
                } else {
                    match b {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                n += 1;
                                done = true;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                n += 1;
            }
            if let Some(o) = out.as_deref_mut() {
                if !too_long {
                    if o.len().saturating_add(n) > limit {
                        too_long = true;
                        o.clear();
                    } else {
                        o.extend_from_slice(buf.get(..n).unwrap_or_default());
                    }
                }
            }
            self.line += newlines;
            self.r.consume(n);
            if done {
                break;
            }
        }
        Ok(if too_long {
            Captured::TooLong
        } else {
            Captured::Whole
        })
    }

    /// Reads an object key (a JSON string) and decodes it.
    fn key(&mut self, scratch: &mut Vec<u8>) -> Result<String, ScanError> {
        match self.skip_ws()? {
            Some(b'"') => {}
            Some(b) => {
                return Err(self.syntax(format!("expected a key, found `{}`", char::from(b))))
            }
            None => return Err(self.syntax("expected a key, found the end of the file")),
        }
        scratch.clear();
        let line = self.line;
        if let Captured::TooLong = self.value(Some(scratch), 1 << 20)? {
            return Err(ScanError::Syntax {
                line,
                message: "object key longer than 1 MiB".into(),
            });
        }
        serde_json::from_slice::<String>(scratch).map_err(|e| ScanError::Syntax {
            line,
            message: format!("invalid object key: {}", crate::error::serde_message(&e)),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between top-level values.
    TopLevel,
    /// Inside a records array: `count` elements read so far.
    InArray { count: u64 },
    /// Nothing more to read.
    Done,
}

/// One container on the way down a records pointer, kept so the rest of
/// the document can be read after the records (see [`JsonFrames::close`]).
#[derive(Debug)]
enum Level {
    /// An object, with every key read in it so far.
    Object(std::collections::HashSet<String>),
    /// An array.
    Array,
}

/// JSON document framing (see the module docs).
pub(crate) struct JsonFrames<R> {
    sc: Scanner<R>,
    buf: Vec<u8>,
    state: State,
    /// A records pointer was followed: the document ends with its array.
    nested: bool,
    /// The containers the pointer went through, outermost first.
    trail: Vec<Level>,
    limit: usize,
}

/// Why a records pointer could not be followed.
#[derive(Debug)]
pub(crate) enum NavigateError {
    /// Reading failed.
    Io(io::Error),
    /// The document is not JSON before the records start.
    Syntax { line: u64, message: String },
    /// Nothing at the pointer, or not an array.
    NotFound { line: u64, found: &'static str },
}

impl From<ScanError> for NavigateError {
    fn from(e: ScanError) -> Self {
        match e {
            ScanError::Io(e) => NavigateError::Io(e),
            ScanError::Syntax { line, message } => NavigateError::Syntax { line, message },
        }
    }
}

impl From<io::Error> for NavigateError {
    fn from(e: io::Error) -> Self {
        NavigateError::Io(e)
    }
}

impl<R: BufRead> JsonFrames<R> {
    /// Frames `r`. With `records` (decoded JSON pointer tokens), the
    /// records are the elements of the array found there; otherwise the
    /// elements of a top-level array, or each top-level value.
    pub(crate) fn new(
        mut r: R,
        records: Option<&[String]>,
        limit: usize,
    ) -> Result<Self, NavigateError> {
        skip_bom(&mut r)?;
        let mut me = Self {
            sc: Scanner { r, line: 1 },
            buf: Vec::new(),
            state: State::TopLevel,
            nested: false,
            trail: Vec::new(),
            limit,
        };
        if let Some(tokens) = records {
            me.navigate(tokens)?;
            me.nested = true;
            me.state = State::InArray { count: 0 };
        }
        Ok(me)
    }

    /// Walks down to the array at `tokens` and consumes its `[`.
    fn navigate(&mut self, tokens: &[String]) -> Result<(), NavigateError> {
        for token in tokens {
            match self.sc.skip_ws()? {
                Some(b'{') => {
                    self.sc.bump()?;
                    let mut keys = std::collections::HashSet::new();
                    loop {
                        if self.sc.skip_ws()? == Some(b'}') {
                            return Err(self.not_found("no such member"));
                        }
                        if !keys.is_empty() {
                            self.sc.expect(b',', "`,` or `}`")?;
                        }
                        let key = self.sc.key(&mut self.buf)?;
                        if !keys.insert(key.clone()) {
                            return Err(self.repeated(&key).into());
                        }
                        self.sc.expect(b':', "`:`")?;
                        if &key == token {
                            break;
                        }
                        self.sc.value(None, 0)?;
                    }
                    self.trail.push(Level::Object(keys));
                }
                Some(b'[') => {
                    let Ok(want) = token.parse::<u64>() else {
                        return Err(self.not_found("an array where the pointer names a member"));
                    };
                    self.sc.bump()?;
                    let mut i = 0;
                    loop {
                        if self.sc.skip_ws()? == Some(b']') {
                            return Err(self.not_found("no such array element"));
                        }
                        if i > 0 {
                            self.sc.expect(b',', "`,` or `]`")?;
                        }
                        if i == want {
                            break;
                        }
                        self.sc.value(None, 0)?;
                        i += 1;
                    }
                    self.trail.push(Level::Array);
                }
                Some(_) => return Err(self.not_found("a scalar")),
                None => return Err(self.not_found("the end of the file")),
            }
        }
        match self.sc.skip_ws()? {
            Some(b'[') => {
                self.sc.bump()?;
                Ok(())
            }
            Some(b'{') => Err(self.not_found("an object, not an array")),
            Some(_) => Err(self.not_found("a scalar, not an array")),
            None => Err(self.not_found("the end of the file")),
        }
    }

    /// A key repeated in an object on the way to the records: which copy
    /// holds the records is ambiguous (SPEC §4), so neither is trusted.
    fn repeated(&self, key: &str) -> ScanError {
        self.sc.syntax(format!(
            "the key `{}` is repeated in an object on the way to the records: which copy holds them is ambiguous",
            pactum_core::text::one_line(key, 80)
        ))
    }

    /// After the records array: reads the rest of the document, closing
    /// every container the pointer went through, so a repeated key on the
    /// way (a second copy of the records) or a syntax error after the
    /// records is reported, never taken for a complete file.
    fn close(&mut self) -> Result<(), ScanError> {
        while let Some(level) = self.trail.pop() {
            match level {
                Level::Object(mut keys) => loop {
                    if self.sc.skip_ws()? == Some(b'}') {
                        self.sc.bump()?;
                        break;
                    }
                    self.sc.expect(b',', "`,` or `}`")?;
                    let key = self.sc.key(&mut self.buf)?;
                    if !keys.insert(key.clone()) {
                        return Err(self.repeated(&key));
                    }
                    self.sc.expect(b':', "`:`")?;
                    self.sc.value(None, 0)?;
                },
                Level::Array => loop {
                    if self.sc.skip_ws()? == Some(b']') {
                        self.sc.bump()?;
                        break;
                    }
                    self.sc.expect(b',', "`,` or `]`")?;
                    self.sc.value(None, 0)?;
                },
            }
        }
        match self.sc.skip_ws()? {
            None => Ok(()),
            Some(_) => Err(self.sc.syntax("data after the end of the document")),
        }
    }

    fn not_found(&self, found: &'static str) -> NavigateError {
        NavigateError::NotFound {
            line: self.sc.line,
            found,
        }
    }

    fn broken(&mut self, e: ScanError) -> io::Result<Option<Frame<'_>>> {
        self.state = State::Done;
        match e {
            ScanError::Io(e) => Err(e),
            ScanError::Syntax { line, message } => Ok(Some(Frame::Broken {
                line,
                message: format!("{message}; the rest of the file cannot be read"),
            })),
        }
    }

    /// Captures the value at the cursor as a record.
    fn capture(&mut self, ordinal: Option<u64>) -> io::Result<Option<Frame<'_>>> {
        self.sc.skip_ws()?;
        let line = self.sc.line;
        self.buf.clear();
        match self.sc.value(Some(&mut self.buf), self.limit) {
            Ok(Captured::Whole) => Ok(Some(Frame::Record {
                line,
                ordinal,
                bytes: &self.buf,
            })),
            Ok(Captured::TooLong) => Ok(Some(Frame::Broken {
                line,
                message: format!("record is longer than {} bytes", self.limit),
            })),
            Err(e) => self.broken(e),
        }
    }

    /// The next record, `None` at the end of the input.
    pub(crate) fn next_frame(&mut self) -> io::Result<Option<Frame<'_>>> {
        loop {
            match self.state {
                State::Done => return Ok(None),
                State::TopLevel => match self.sc.skip_ws()? {
                    None => {
                        self.state = State::Done;
                        return Ok(None);
                    }
                    Some(b'[') => {
                        self.sc.bump()?;
                        self.state = State::InArray { count: 0 };
                    }
                    Some(_) => return self.capture(None),
                },
                State::InArray { count } => {
                    match self.sc.skip_ws()? {
                        Some(b']') => {
                            self.sc.bump()?;
                            if self.nested {
                                if let Err(e) = self.close() {
                                    return self.broken(e);
                                }
                                self.state = State::Done;
                            } else {
                                self.state = State::TopLevel;
                            }
                            continue;
                        }
                        None => {
                            let e = self
                                .sc
                                .syntax("unexpected end of file inside the records array");
                            return self.broken(e);
                        }
                        Some(_) => {}
                    }
                    if count > 0 {
                        if let Err(e) = self.sc.expect(b',', "`,` or `]` after an element") {
                            return self.broken(e);
                        }
                    }
                    self.state = State::InArray { count: count + 1 };
                    return self.capture(Some(count + 1));
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn lines(input: &str, limit: usize) -> Vec<String> {
        let mut f = LineFrames::new(input.as_bytes(), limit).unwrap();
        let mut out = Vec::new();
        while let Some(frame) = f.next_frame().unwrap() {
            out.push(show(&frame));
        }
        out
    }

    fn show(frame: &Frame<'_>) -> String {
        match frame {
            Frame::Record {
                line,
                ordinal,
                bytes,
            } => {
                format!(
                    "{line}{}:{}",
                    ordinal.map(|o| format!("#{o}")).unwrap_or_default(),
                    String::from_utf8_lossy(bytes)
                )
            }
            Frame::Broken { line, message } => format!("{line}:BROKEN {message}"),
        }
    }

    fn docs(input: &str, records: Option<&[String]>, limit: usize) -> Vec<String> {
        // Small reader buffers exercise values that straddle refills.
        let reader = io::BufReader::with_capacity(3, input.as_bytes());
        let mut f = match JsonFrames::new(reader, records, limit) {
            Ok(f) => f,
            Err(e) => return vec![format!("{e:?}")],
        };
        let mut out = Vec::new();
        while let Some(frame) = f.next_frame().unwrap() {
            out.push(show(&frame));
        }
        out
    }

    #[test]
    fn lines_skip_blanks_bom_and_crlf() {
        let got = lines("\u{feff}{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}", 100);
        assert_eq!(got, ["1:{\"a\":1}", "4:{\"b\":2}", "5:{\"c\":3}"]);
    }

    #[test]
    fn overlong_line_is_reported_and_skipped() {
        let got = lines("{\"a\":1}\n0123456789abcdef\n{\"b\":2}\n", 8);
        assert_eq!(
            got,
            [
                "1:{\"a\":1}",
                "2:BROKEN line is longer than 8 bytes",
                "3:{\"b\":2}"
            ]
        );
        // Exactly at the limit is fine.
        assert_eq!(lines("12345678", 8), ["1:12345678"]);
        assert_eq!(
            lines("123456789", 8),
            ["1:BROKEN line is longer than 8 bytes"]
        );
    }

    #[test]
    fn array_elements_with_lines_and_ordinals() {
        let input = "[\n {\"a\": \"x]}\\\"\"},\n\n {\"b\": [1, {\"c\": 2}]},\n 3 , \"s\\\"\"\n]\n";
        let got = docs(input, None, 1000);
        assert_eq!(
            got,
            [
                "2#1:{\"a\": \"x]}\\\"\"}",
                "4#2:{\"b\": [1, {\"c\": 2}]}",
                "5#3:3",
                "5#4:\"s\\\"\"",
            ]
        );
    }

    #[test]
    fn single_object_and_concatenated_values() {
        assert_eq!(docs("{\n\"a\": 1\n}\n", None, 1000), ["1:{\n\"a\": 1\n}"]);
        assert_eq!(
            docs("{\"a\":1}\n{\"b\":2}", None, 1000),
            ["1:{\"a\":1}", "2:{\"b\":2}"]
        );
        assert_eq!(docs("", None, 1000), Vec::<String>::new());
        assert_eq!(docs("[]", None, 1000), Vec::<String>::new());
    }

    #[test]
    fn records_pointer_navigates_without_loading() {
        let input = r#"{"parameters": {"x": [1, 2, {"jailbreaks": []}]}, "jailbreaks": [{"p": 1}, {"p": 2}], "after": "ignored"}"#;
        let ptr = vec!["jailbreaks".to_string()];
        assert_eq!(
            docs(input, Some(&ptr), 1000),
            ["1#1:{\"p\": 1}", "1#2:{\"p\": 2}"]
        );
        let nested = vec!["a".to_string(), "1".to_string(), "r".to_string()];
        assert_eq!(
            docs(r#"{"a": [{"r": [9]}, {"r": [7, 8]}]}"#, Some(&nested), 1000),
            ["1#1:7", "1#2:8"]
        );
        let esc = vec!["a/b".to_string()];
        assert_eq!(docs(r#"{"a\/b": [true]}"#, Some(&esc), 1000), ["1#1:true"]);
    }

    /// A second copy of the records, or anything broken after them, is
    /// reported: a file read only up to its first copy must not pass as
    /// complete.
    #[test]
    fn the_rest_of_the_document_is_read_after_the_records() {
        let ptr = vec!["r".to_string()];
        let twice = docs(r#"{"r": [1], "x": {"r": 5}, "r": [2]}"#, Some(&ptr), 1000);
        assert_eq!(twice[0], "1#1:1");
        assert!(
            twice[1].starts_with("1:BROKEN the key `r` is repeated"),
            "{twice:?}"
        );
        let before = docs(r#"{"x": 1, "x": 2, "r": [1]}"#, Some(&ptr), 1000);
        assert!(before[0].contains("the key `x` is repeated"), "{before:?}");
        let garbage = docs("{\"r\": [1], \"s\": [1, {{{\n", Some(&ptr), 1000);
        assert_eq!(garbage.len(), 2, "{garbage:?}");
        assert!(garbage[1].contains("BROKEN"), "{garbage:?}");
        let trailing = docs(r#"{"r": [1]} {"r": [2]}"#, Some(&ptr), 1000);
        assert!(
            trailing[1].contains("data after the end of the document"),
            "{trailing:?}"
        );
        let nested = vec!["a".to_string(), "1".to_string(), "r".to_string()];
        assert_eq!(
            docs(
                r#"{"a": [{"r": [9]}, {"r": [7]}, {"r": [3]}], "b": 1}"#,
                Some(&nested),
                1000
            ),
            ["1#1:7"]
        );
    }

    #[test]
    fn records_pointer_not_found() {
        let ptr = vec!["missing".to_string()];
        let got = docs(r#"{"a": []}"#, Some(&ptr), 1000);
        assert!(
            got[0].contains("NotFound") && got[0].contains("no such member"),
            "{got:?}"
        );
        let ptr = vec!["a".to_string()];
        let got = docs(r#"{"a": {"b": 1}}"#, Some(&ptr), 1000);
        assert!(got[0].contains("an object, not an array"), "{got:?}");
        let ptr = vec!["a".to_string(), "x".to_string()];
        let got = docs(r#"{"a": [1]}"#, Some(&ptr), 1000);
        assert!(got[0].contains("names a member"), "{got:?}");
    }

    #[test]
    fn broken_structure_is_fatal_and_overlong_record_is_not() {
        let got = docs("[{\"a\":1} {\"b\":2}]", None, 1000);
        assert_eq!(got.len(), 2);
        assert!(
            got[1].starts_with("1:BROKEN expected `,` or `]` after an element"),
            "{got:?}"
        );
        let got = docs("[{\"a\":1},\n{\"b\":", None, 1000);
        assert_eq!(
            got[1],
            "2:BROKEN unexpected end of file inside a value; the rest of the file cannot be read"
        );
        let got = docs("[{\"a\":\"0123456789\"}, {\"b\":2}]", None, 10);
        assert_eq!(
            got,
            ["1:BROKEN record is longer than 10 bytes", "1#2:{\"b\":2}"]
        );
        let got = docs("[1,]", None, 100);
        assert_eq!(
            got[1],
            "1:BROKEN expected a value, found `]`; the rest of the file cannot be read"
        );
    }
}
