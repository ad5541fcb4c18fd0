//! The crate's one error type.

use std::io;
use std::path::PathBuf;

/// Why a report could not be written.
///
/// A broken pipe (`pactum grade | head`) stays reachable through
/// [`ReportError::is_broken_pipe`] and [`ReportError::io_error`], so the CLI
/// can exit quietly.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Writing to the report's destination failed.
    #[error("cannot write {destination}")]
    Write {
        /// What was being written: a path, or e.g. `standard output`.
        destination: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A report's temporary spool file failed (JUnit spools its test
    /// cases; HTML and Markdown spool the JSON report they render).
    #[error("cannot use the {report} spool file in {dir}")]
    Spool {
        /// Which report's spool: `junit`, `html`, `markdown`.
        report: &'static str,
        /// The temporary directory the spool file lives in.
        dir: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A report file would be an input file (the same file, whatever the
    /// spelling): refused before anything is written.
    #[error("{flag} {}: that is {what} {} (the same file); a report never overwrites an input: nothing was written", .path.display(), .input.display())]
    OutputIsInput {
        /// The flag that named the output, e.g. `--json`.
        flag: String,
        /// The output path as given.
        path: PathBuf,
        /// The input's role, e.g. `the trace file`.
        what: String,
        /// The input's path as given.
        input: PathBuf,
    },
    /// A report file or folder would lie inside an input folder that is
    /// read whole (an OpenProse run): the next read would take it for
    /// part of the input.
    #[error("{flag} {}: that is inside {what} {}, which is read whole: a report there would be read as part of it next time; write it outside that folder: nothing was written", .path.display(), .folder.display())]
    OutputInsideInput {
        /// The flag that named the output, e.g. `--json`.
        flag: String,
        /// The output path as given.
        path: PathBuf,
        /// The folder's role, e.g. `the OpenProse run`.
        what: String,
        /// The folder's path as given.
        folder: PathBuf,
    },
    /// A report file would be the store or one of its companion files.
    #[error("{flag} {}: that is {what} ({}); writing a report there would destroy every stored run and the cache: nothing was written", .path.display(), .store.display())]
    OutputIsStore {
        /// The flag that named the output.
        flag: String,
        /// The output path as given.
        path: PathBuf,
        /// Which part: `the store`, `the store's write-ahead log`, ….
        what: String,
        /// The store's path as given.
        store: PathBuf,
    },
    /// A report file would replace an SQLite database (a pactum store not
    /// named by `--db`, or any other): a report never destroys one.
    #[error("{flag} {}: the file is an SQLite database (a pactum store?); writing a report there would destroy it: nothing was written", .path.display())]
    OutputIsDatabase {
        /// The flag that named the output.
        flag: String,
        /// The output path as given.
        path: PathBuf,
    },
    /// An output folder holds an input or the store.
    #[error("{flag} {}: the folder holds {what} {}; an output folder may not hold an input or the store: nothing was written", .folder.display(), .path.display())]
    OutputFolderHolds {
        /// The flag that named the folder, e.g. `--out`.
        flag: String,
        /// The folder as given.
        folder: PathBuf,
        /// What it holds, e.g. `the contract`.
        what: String,
        /// That file's path as given.
        path: PathBuf,
    },
    /// Two outputs of one command are the same file, or one lies inside
    /// the other.
    #[error("{first} and {second} both write {} (the same file or folder); give each its own: nothing was written", .path.display())]
    OutputsOverlap {
        /// The first flag.
        first: String,
        /// The second flag.
        second: String,
        /// The second output's path as given.
        path: PathBuf,
    },
    /// Two reports of one command were both sent to standard output
    /// (`-`): they would interleave into something no reader can parse.
    #[error("{first} and {second} both write to standard output (`-`); one report can go there, give the other a file: nothing was written")]
    BothToStdout {
        /// The first flag.
        first: String,
        /// The second flag.
        second: String,
    },
    /// A report's path is the file standard output already goes to (a
    /// shell's `> PATH`, `/dev/stdout`) while another report is sent to
    /// standard output (`-`): one would replace the other.
    #[error("{second} {}: that is where standard output goes, and {first} writes there (`-`); give one of them another place: nothing was written", .path.display())]
    PathIsStdout {
        /// The flag sending its report to standard output.
        first: String,
        /// The flag naming the path.
        second: String,
        /// The path as given.
        path: PathBuf,
    },
    /// An output path could not be resolved to a file (a loop of symbolic
    /// links).
    #[error("{flag} {}: cannot tell which file this is", .path.display())]
    Unresolved {
        /// The flag that named the output.
        flag: String,
        /// The path as given.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An output file or folder could not be created.
    #[error("{}: cannot create it", .path.display())]
    Create {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A complete report could not be put in place; the destination keeps
    /// its previous content.
    #[error("{}: cannot put the finished report in place (it keeps its previous content)", .path.display())]
    Commit {
        /// The destination.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An output folder path is a file.
    #[error("{}: not a folder", .path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// A file pactum would replace in an output folder was not written by
    /// pactum (the folder's manifest does not list it).
    #[error("{}: the folder already holds {}, which pactum did not write (its {} does not list it); pactum never replaces or deletes a file it did not write: choose another folder, or move that file", .folder.display(), .file.display(), crate::output::MANIFEST)]
    ForeignFile {
        /// The folder.
        folder: PathBuf,
        /// The file.
        file: PathBuf,
    },
    /// A name given for an output folder's file is not a plain file name,
    /// or was not declared.
    #[error("{}: {name:?} is not a file name pactum may write there", .folder.display())]
    BadName {
        /// The folder.
        folder: PathBuf,
        /// The name.
        name: String,
    },
    /// A secret could not be redacted from an event (it does not read back
    /// after redaction): the event is left out rather than shown.
    #[error("cannot redact the secrets from {what}; it is left out of the report")]
    Redaction {
        /// What the event was.
        what: &'static str,
    },
    /// The caller broke the event order (`begin`, events, `finish` once).
    #[error("`{call}` called {problem}")]
    Protocol {
        /// The offending call.
        call: &'static str,
        /// What was wrong, e.g. `before begin`.
        problem: &'static str,
    },
}

impl ReportError {
    /// The I/O error underneath, if any.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            ReportError::Write { source, .. }
            | ReportError::Spool { source, .. }
            | ReportError::Unresolved { source, .. }
            | ReportError::Create { source, .. }
            | ReportError::Commit { source, .. } => Some(source),
            _ => None,
        }
    }

    /// Whether the destination was closed by its reader
    /// ([`io::ErrorKind::BrokenPipe`]); the CLI then exits quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ReportError::Write { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }

    pub(crate) fn write(destination: &str, source: io::Error) -> Self {
        ReportError::Write {
            destination: destination.to_string(),
            source,
        }
    }

    pub(crate) fn spool(report: &'static str, source: io::Error) -> Self {
        ReportError::Spool {
            report,
            dir: std::env::temp_dir().display().to_string(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipe_is_detectable_and_messages_name_the_destination() {
        let e = ReportError::write("report.json", io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(e.is_broken_pipe());
        assert_eq!(e.to_string(), "cannot write report.json");
        assert_eq!(
            e.io_error().map(io::Error::kind),
            Some(io::ErrorKind::BrokenPipe)
        );
        let other = ReportError::write("x", io::Error::from(io::ErrorKind::PermissionDenied));
        assert!(!other.is_broken_pipe());
        // A spool failure is not the destination's reader going away.
        let spool = ReportError::spool("junit", io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!spool.is_broken_pipe());
        assert!(spool
            .to_string()
            .starts_with("cannot use the junit spool file in "));
        let p = ReportError::Protocol {
            call: "result",
            problem: "before begin",
        };
        assert_eq!(p.to_string(), "`result` called before begin");
        assert!(p.io_error().is_none());
    }
}
