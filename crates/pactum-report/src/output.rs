//! Where reports go, and how they get there (`docs/reports.md`, "Where
//! reports are written").
//!
//! * [`check_outputs`] is the one answer to "is this output path safe":
//!   no report file or folder may be an input, the store (or its
//!   `-wal`/`-shm`/`-journal`), or another report of the same command.
//!   Files are compared, not spellings ([`pactum_fs::FileId`], shared
//!   with the importers' `repeated-input` note): symbolic links, `./a`
//!   and `a`, `..`, hard links, and a path that does not exist yet under a
//!   linked folder all resolve to the file they would touch.
//! * [`ReportFile`] writes a report to a temporary file in the destination's
//!   folder and renames it over the destination once complete, so a failed
//!   write never leaves half a report over an old one.
//! * [`OutputFolder`] writes a folder of files (strength artifacts) and
//!   keeps a manifest of what pactum wrote there: pactum replaces or
//!   deletes only files it listed, never anything else in the folder.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use pactum_fs::FileId;

use pactum_core::secret::Redactor;

use crate::ReportError;

/// The manifest an [`OutputFolder`] keeps: the names of the files pactum
/// wrote there, one per line.
pub const MANIFEST: &str = ".pactum-manifest";

/// A file pactum reads, or the store: no report may be written over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protected {
    what: String,
    path: PathBuf,
    store: bool,
    folder: bool,
}

impl Protected {
    /// An input file: `what` names its role in messages, e.g. `the trace
    /// file`, `the contract`, `the suite`.
    pub fn input(what: impl Into<String>, path: impl Into<PathBuf>) -> Protected {
        Protected {
            what: what.into(),
            path: path.into(),
            store: false,
            folder: false,
        }
    }

    /// An input folder read whole (an OpenProse run): no report may be
    /// written anywhere inside it, at any depth, since the next read of
    /// the folder would take the report for part of it.
    pub fn folder(what: impl Into<String>, path: impl Into<PathBuf>) -> Protected {
        Protected {
            what: what.into(),
            path: path.into(),
            store: false,
            folder: true,
        }
    }

    /// The store: its file, and the `-wal`, `-shm` and `-journal` files
    /// SQLite keeps beside it, whether they exist yet or not.
    pub fn store(path: impl Into<PathBuf>) -> Protected {
        Protected {
            what: "the store".into(),
            path: path.into(),
            store: true,
            folder: false,
        }
    }

    /// The paths to keep safe, each with what it is: the file, and for the
    /// store its companions, both beside the path as given and beside the
    /// file it resolves to (SQLite follows a linked store to its target).
    fn parts(&self) -> Vec<(PathBuf, String)> {
        let mut out = vec![(self.path.clone(), self.what.clone())];
        if self.store {
            let mut bases = vec![self.path.clone()];
            if let Ok(r) = pactum_fs::resolve(&self.path) {
                bases.push(r);
            }
            for base in bases {
                for (suffix, what) in [
                    ("-wal", "the store's write-ahead log"),
                    ("-shm", "the store's shared-memory index"),
                    ("-journal", "the store's rollback journal"),
                ] {
                    let mut name = base.as_os_str().to_owned();
                    name.push(suffix);
                    out.push((PathBuf::from(name), what.to_string()));
                }
            }
        }
        out
    }
}

/// Whether an output is one file or a folder of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// One report file (`--json`, `--junit`).
    File,
    /// A folder pactum writes files into (`strength --out`).
    Folder,
}

/// A path a command will write, named by the flag that asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    flag: String,
    path: PathBuf,
    kind: OutputKind,
    /// A store pactum opens (`--db`): an SQLite database there is its own.
    store: bool,
}

impl Output {
    /// A report file asked for by `flag` (e.g. `--json`). `-` (standard
    /// output) is never a file: it is only checked against another output
    /// to standard output.
    pub fn file(flag: impl Into<String>, path: impl Into<PathBuf>) -> Output {
        Output {
            flag: flag.into(),
            path: path.into(),
            kind: OutputKind::File,
            store: false,
        }
    }

    /// The store pactum will open, asked for by `flag` (`--db`): checked
    /// like a report file, and an SQLite database there is expected.
    pub fn store(flag: impl Into<String>, path: impl Into<PathBuf>) -> Output {
        Output {
            store: true,
            ..Output::file(flag, path)
        }
    }

    /// A folder of output files asked for by `flag` (e.g. `--out`).
    pub fn folder(flag: impl Into<String>, path: impl Into<PathBuf>) -> Output {
        Output {
            flag: flag.into(),
            path: path.into(),
            kind: OutputKind::Folder,
            store: false,
        }
    }

    fn is_stdout(&self) -> bool {
        self.kind == OutputKind::File && self.path.as_os_str() == "-"
    }
}

/// Refuses any output that would write over an input, the store, or
/// another output of the same command — before anything is written.
///
/// * A file output is refused when it is the same file as a protected path
///   (for the store also its `-wal`, `-shm` and `-journal`, existing or
///   not), or lies inside a protected folder ([`Protected::folder`]).
/// * A folder output is refused when a protected path lies inside it, at
///   any depth (the store's own folder among them).
/// * Two outputs are refused when they are the same file, or one file lies
///   inside a folder output, or both are standard output (`-`).
///
/// Paths are compared as the files they touch ([`pactum_fs::FileId::of`]):
/// both are resolved (symbolic links followed, `.` and `..` applied, a path that does not
/// exist yet resolved through its nearest existing folder), and two
/// existing paths are also compared by device and inode, which catches
/// hard links.
///
/// # Errors
/// [`ReportError::OutputIsInput`], [`ReportError::OutputIsStore`],
/// [`ReportError::OutputIsDatabase`],
/// [`ReportError::OutputFolderHolds`], [`ReportError::OutputsOverlap`],
/// [`ReportError::BothToStdout`], or
/// [`ReportError::Unresolved`] when a path cannot be resolved at all (a
/// loop of symbolic links).
pub fn check_outputs(outputs: &[Output], protected: &[Protected]) -> Result<(), ReportError> {
    let unresolved = |o: &Output, source| ReportError::Unresolved {
        flag: o.flag.clone(),
        path: o.path.clone(),
        source,
    };
    let mut to_stdout = outputs.iter().filter(|o| o.is_stdout());
    if let (Some(first), Some(second)) = (to_stdout.next(), to_stdout.next()) {
        return Err(ReportError::BothToStdout {
            first: first.flag.clone(),
            second: second.flag.clone(),
        });
    }
    let stdout_report = outputs.iter().find(|o| o.is_stdout());
    let stdout = stdout_report.and_then(|_| StdoutFile::read());
    let stdout_file = stdout.as_ref().map(|f| f.id);
    // Where `-` writes when standard output is a file (`>> run/vm.log.md`):
    // checked against the inputs and the store as a report's own path is.
    let stdout_as_file: Option<Output> = stdout_report.zip(stdout.as_ref()).and_then(|(s, f)| {
        f.path
            .clone()
            .map(|p| Output::file(format!("{} (standard output)", s.flag), p))
    });
    // A file standard output appends to may be a hard link to a file of a
    // folder read whole (a run's log): its other name is found there.
    if let (Some(s), Some(f)) = (stdout_report, &stdout) {
        if f.links > 1 {
            for p in protected.iter().filter(|p| p.folder) {
                if let Some(input) = file_in(&p.path, f.id, &mut 100_000) {
                    return Err(ReportError::OutputIsInput {
                        flag: format!("{} (standard output)", s.flag),
                        path: f.path.clone().unwrap_or_else(|| PathBuf::from("-")),
                        what: p.what.clone(),
                        input,
                    });
                }
            }
        }
    }
    let mut checked: Vec<(&Output, FileId)> = Vec::new();
    for o in outputs
        .iter()
        .filter(|o| !o.is_stdout())
        .chain(stdout_as_file.iter())
    {
        if let (Some(s), Some(out)) = (stdout_report, stdout_file) {
            if stdout_as_file.as_ref().is_none_or(|f| !std::ptr::eq(f, o))
                && existing_file(&o.path) == Some(out)
            {
                return Err(ReportError::PathIsStdout {
                    first: s.flag.clone(),
                    second: o.flag.clone(),
                    path: o.path.clone(),
                });
            }
        }
        let ro = FileId::of(&o.path).map_err(|e| unresolved(o, e))?;
        for p in protected {
            for (part, what) in p.parts() {
                // A protected path that cannot be resolved (a symlink loop)
                // cannot be written through either: an output spelled like
                // it fails to resolve above.
                let Ok(rp) = FileId::of(&part) else {
                    continue;
                };
                let inside = p.folder && ro.resolved().starts_with(rp.resolved());
                let clash = match o.kind {
                    OutputKind::File => ro == rp || inside,
                    OutputKind::Folder => {
                        rp.resolved().starts_with(ro.resolved()) || ro == rp || inside
                    }
                };
                if !clash {
                    continue;
                }
                if inside {
                    return Err(ReportError::OutputInsideInput {
                        flag: o.flag.clone(),
                        path: o.path.clone(),
                        what,
                        folder: part,
                    });
                }
                return Err(match (o.kind, p.store) {
                    (OutputKind::Folder, _) => ReportError::OutputFolderHolds {
                        flag: o.flag.clone(),
                        folder: o.path.clone(),
                        what,
                        path: part,
                    },
                    (OutputKind::File, true) => ReportError::OutputIsStore {
                        flag: o.flag.clone(),
                        path: o.path.clone(),
                        what,
                        store: p.path.clone(),
                    },
                    (OutputKind::File, false) => ReportError::OutputIsInput {
                        flag: o.flag.clone(),
                        path: o.path.clone(),
                        what,
                        input: part,
                    },
                });
            }
        }
        if o.kind == OutputKind::File && !o.store && is_database(&o.path) {
            return Err(ReportError::OutputIsDatabase {
                flag: o.flag.clone(),
                path: o.path.clone(),
            });
        }
        for (earlier, re) in &checked {
            let (rep, rop) = (re.resolved(), ro.resolved());
            let clash = match (earlier.kind, o.kind) {
                (OutputKind::File, OutputKind::File) => *re == ro,
                (OutputKind::Folder, OutputKind::Folder) => {
                    rop.starts_with(rep) || rep.starts_with(rop)
                }
                (OutputKind::Folder, OutputKind::File) => rop.starts_with(rep),
                (OutputKind::File, OutputKind::Folder) => rep.starts_with(rop),
            };
            if clash {
                return Err(ReportError::OutputsOverlap {
                    first: earlier.flag.clone(),
                    second: o.flag.clone(),
                    path: o.path.clone(),
                });
            }
        }
        checked.push((o, ro));
    }
    Ok(())
}

/// Why folders cannot be made up to `dir` when one of its ancestors is a
/// file: the system says "File exists", which points at the wrong thing.
fn not_a_folder(dir: &Path) -> Option<std::io::Error> {
    let file = dir
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .find(|a| fs::metadata(a).is_ok_and(|m| !m.is_dir()))?;
    Some(std::io::Error::new(
        std::io::ErrorKind::NotADirectory,
        format!("{} is a file, not a folder", file.display()),
    ))
}

/// The file standard output writes to, read once: its device and inode,
/// how many names it has, and, for a regular file, its path when the
/// system says where (`/proc/self/fd/1`).
struct StdoutFile {
    id: (u64, u64),
    links: u64,
    path: Option<PathBuf>,
}

impl StdoutFile {
    #[cfg(unix)]
    fn read() -> Option<StdoutFile> {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
        let meta = std::fs::File::from(fd).metadata().ok()?;
        let path = if cfg!(target_os = "linux") && meta.is_file() {
            std::fs::read_link("/proc/self/fd/1")
                .ok()
                .filter(|p| p.is_absolute())
        } else {
            None
        };
        Some(StdoutFile {
            id: (meta.dev(), meta.ino()),
            links: meta.nlink(),
            path,
        })
    }

    #[cfg(not(unix))]
    fn read() -> Option<StdoutFile> {
        None
    }
}

/// A file below `dir` (links not followed) that is the file `id` names
/// (device and inode), looking at `budget` entries at most.
#[cfg(unix)]
fn file_in(dir: &Path, id: (u64, u64), budget: &mut usize) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    for entry in fs::read_dir(dir).ok()?.flatten() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.is_dir() {
            if let Some(found) = file_in(&entry.path(), id, budget) {
                return Some(found);
            }
        } else if (meta.dev(), meta.ino()) == id {
            return Some(entry.path());
        }
    }
    None
}

#[cfg(not(unix))]
fn file_in(_dir: &Path, _id: (u64, u64), _budget: &mut usize) -> Option<PathBuf> {
    None
}

/// The device and inode of the file `path` names (through links), when
/// it exists.
#[cfg(unix)]
fn existing_file(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn existing_file(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// Whether `path` is a regular file (through links) that is part of an
/// SQLite database: it opens with the database header (`SQLite format
/// 3\0`), a write-ahead log's (`377f0682`/`377f0683`) or a rollback
/// journal's, or it is the `-wal`, `-shm` or `-journal` beside one.
fn is_database(path: &Path) -> bool {
    use std::io::Read;
    const JOURNAL: [u8; 8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    if read.is_ok()
        && (&head == b"SQLite format 3\0"
            || head[..4] == [0x37, 0x7f, 0x06, 0x82]
            || head[..4] == [0x37, 0x7f, 0x06, 0x83]
            || head[..8] == JOURNAL)
    {
        return true;
    }
    let name = path.to_string_lossy();
    ["-wal", "-shm", "-journal"].iter().any(|suffix| {
        name.strip_suffix(suffix)
            .is_some_and(|db| db != name && is_database(Path::new(db)))
    })
}

/// A report file written in full or not at all.
///
/// The bytes go to a temporary file beside the destination (`.NAME.XXXXXX.
/// pactum-tmp`, same folder so the rename stays on one file system);
/// [`ReportFile::commit`] syncs it and renames it over the destination.
/// Dropped without a commit (a failed write, a crash), the temporary file
/// is removed and the destination keeps its previous content. A
/// destination that is a symbolic link is written at its target; one that
/// is a device or a pipe (`/dev/null`, `/dev/stdout`) is written directly.
#[derive(Debug)]
pub struct ReportFile {
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    Temp {
        tmp: tempfile::NamedTempFile,
        dest: PathBuf,
        shown: PathBuf,
        keep: Option<fs::Permissions>,
    },
    /// A device, a pipe or standard output: the report is spooled to an
    /// anonymous temporary file (no name on disk) and copied to `dest` at
    /// the commit, so it can be redacted again first as a file is.
    Spool {
        spool: File,
        dest: Stream,
        shown: PathBuf,
    },
}

/// Where a spooled report goes in the end.
struct Stream(Box<dyn Write + Send>);

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stream")
    }
}

impl ReportFile {
    /// Prepares to write `path` (creating its folders): returns the report
    /// file and the handle to write the report's bytes to.
    ///
    /// # Errors
    /// [`ReportError::Create`] naming the path.
    pub fn create(path: &Path) -> Result<(ReportFile, File), ReportError> {
        let err = |source| ReportError::Create {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| err(not_a_folder(parent).unwrap_or(e)))?;
        }
        let dest = pactum_fs::resolve(path).map_err(err)?;
        Self::create_at(path, dest)
    }

    /// As [`ReportFile::create`], at `dest` exactly (a link there is
    /// replaced, not followed); `shown` names it in errors.
    fn create_at(shown: &Path, dest: PathBuf) -> Result<(ReportFile, File), ReportError> {
        let err = |source| ReportError::Create {
            path: shown.to_path_buf(),
            source,
        };
        let keep = match fs::metadata(&dest) {
            Ok(m) if m.is_dir() => {
                return Err(err(io::Error::other("it is a folder, not a file")));
            }
            Ok(m) if !m.is_file() => {
                let f = fs::OpenOptions::new()
                    .write(true)
                    .open(&dest)
                    .map_err(err)?;
                return Self::spooled(shown, Box::new(f));
            }
            Ok(m) => Some(m.permissions()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(err(e)),
        };
        let tmp = temp_beside(&dest).map_err(err)?;
        let handle = tmp.as_file().try_clone().map_err(err)?;
        Ok((
            ReportFile {
                inner: Inner::Temp {
                    tmp,
                    dest,
                    shown: shown.to_path_buf(),
                    keep,
                },
            },
            handle,
        ))
    }

    /// Whether the report is spooled for a device, a pipe or standard
    /// output (which keep nothing of a report that fails), not a file.
    pub fn is_spooled(&self) -> bool {
        matches!(self.inner, Inner::Spool { .. })
    }

    /// A report for standard output, spooled as a device's is.
    ///
    /// # Errors
    /// [`ReportError::Create`] when the spool cannot be created.
    pub fn stdout() -> Result<(ReportFile, File), ReportError> {
        Self::spooled(Path::new("-"), Box::new(io::stdout()))
    }

    fn spooled(
        shown: &Path,
        dest: Box<dyn Write + Send>,
    ) -> Result<(ReportFile, File), ReportError> {
        let err = |source| ReportError::Create {
            path: shown.to_path_buf(),
            source,
        };
        let spool = tempfile::tempfile().map_err(err)?;
        let handle = spool.try_clone().map_err(err)?;
        Ok((
            ReportFile {
                inner: Inner::Spool {
                    spool,
                    dest: Stream(dest),
                    shown: shown.to_path_buf(),
                },
            },
            handle,
        ))
    }

    /// Redacts `redactors`' secrets from every line written so far, into a
    /// new temporary file that replaces the first: for a key learnt after
    /// the lines that hold it were written (one found in a later trace).
    /// Line by line, so memory is the longest line. A line wholly inside
    /// `keep` (byte offsets: a part written under every secret) is copied
    /// as it is. Call it once every byte was written and flushed, before
    /// [`ReportFile::commit`].
    ///
    /// # Errors
    /// [`ReportError::Commit`]: the destination keeps its previous content.
    pub fn redact_again(
        &mut self,
        redactors: &[Redactor],
        keep: Option<Range<u64>>,
    ) -> Result<(), ReportError> {
        match &mut self.inner {
            Inner::Temp {
                tmp, dest, shown, ..
            } => {
                let err = |source| ReportError::Commit {
                    path: shown.clone(),
                    source,
                };
                let mut out = temp_beside(dest).map_err(err)?;
                let mut from = File::open(tmp.path()).map_err(err)?;
                redact_lines(&mut from, out.as_file_mut(), redactors, keep.clone()).map_err(err)?;
                *tmp = out;
            }
            Inner::Spool { spool, shown, .. } => {
                let err = |source| ReportError::Commit {
                    path: shown.clone(),
                    source,
                };
                let mut out = tempfile::tempfile().map_err(err)?;
                spool.seek(SeekFrom::Start(0)).map_err(err)?;
                redact_lines(spool, &mut out, redactors, keep.clone()).map_err(err)?;
                *spool = out;
            }
        }
        Ok(())
    }

    /// Syncs the complete report and renames it over the destination. Call
    /// it once every byte was written and flushed.
    ///
    /// # Errors
    /// [`ReportError::Commit`]: the destination keeps its previous content.
    pub fn commit(self) -> Result<(), ReportError> {
        let (tmp, dest, shown, keep) = match self.inner {
            Inner::Temp {
                tmp,
                dest,
                shown,
                keep,
            } => (tmp, dest, shown, keep),
            Inner::Spool {
                mut spool,
                mut dest,
                shown,
            } => {
                let err = |source| ReportError::Commit {
                    path: shown.clone(),
                    source,
                };
                spool.seek(SeekFrom::Start(0)).map_err(err)?;
                let destination = if shown.as_os_str() == "-" {
                    "standard output".to_string()
                } else {
                    shown.display().to_string()
                };
                let write = |e| ReportError::write(&destination, e);
                io::copy(&mut spool, &mut dest.0).map_err(write)?;
                dest.0.flush().map_err(write)?;
                return Ok(());
            }
        };
        let err = |source| ReportError::Commit {
            path: shown.clone(),
            source,
        };
        tmp.as_file().sync_all().map_err(err)?;
        if let Some(p) = keep {
            tmp.as_file().set_permissions(p).map_err(err)?;
        }
        tmp.persist(&dest).map_err(|e| err(e.error))?;
        Ok(())
    }
}

/// Copies `from` to `to` line by line, each line with `redactors`'
/// secrets redacted but those wholly inside `keep` (byte offsets), and
/// those that are not UTF-8, copied as they are.
fn redact_lines(
    from: &mut impl io::Read,
    to: &mut impl Write,
    redactors: &[Redactor],
    keep: Option<Range<u64>>,
) -> io::Result<()> {
    let mut lines = BufReader::new(from);
    let mut w = BufWriter::new(to);
    let mut line = Vec::new();
    let mut at = 0u64;
    loop {
        line.clear();
        let n = lines.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        let start = at;
        at += n as u64;
        if keep
            .as_ref()
            .is_some_and(|k| k.start <= start && at <= k.end)
        {
            w.write_all(&line)?;
            continue;
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            w.write_all(&line)?;
            continue;
        };
        let mut text = Cow::Borrowed(text);
        for r in redactors {
            let changed = match r.redact(&text) {
                Cow::Owned(o) => Some(o),
                Cow::Borrowed(_) => None,
            };
            if let Some(o) = changed {
                text = Cow::Owned(o);
            }
        }
        w.write_all(text.as_bytes())?;
    }
    w.flush()
}

/// A new temporary file beside `dest` (`.NAME.XXXXXX.pactum-tmp`), with
/// the usual 0666 less the umask, not a temporary file's owner-only mode.
fn temp_beside(dest: &Path) -> io::Result<tempfile::NamedTempFile> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".pactum-tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(&dir)
}

/// A folder of output files (strength artifacts) that pactum shares with
/// whatever else the user keeps there.
///
/// The folder's [`MANIFEST`] lists the files pactum wrote. A new run may
/// replace or delete only files the manifest lists; a file it would
/// replace that the manifest does not list is refused before anything is
/// written. Each file is written whole ([`ReportFile`]). Between
/// [`OutputFolder::prepare`] and [`OutputFolder::finish`] the manifest
/// lists the old and the new files together, so a run killed half-way
/// leaves nothing pactum would later mistake for someone else's.
#[derive(Debug)]
pub struct OutputFolder {
    dir: PathBuf,
    old: BTreeSet<String>,
    new: BTreeSet<String>,
}

impl OutputFolder {
    /// Prepares `dir` (creating it) to receive files named `names`.
    ///
    /// # Errors
    /// [`ReportError::NotAFolder`]; [`ReportError::BadName`] for a name
    /// that is not a plain file name; [`ReportError::ForeignFile`] when a
    /// file to write is already there and pactum did not write it;
    /// [`ReportError::Create`] / [`ReportError::Commit`] for I/O failures.
    pub fn prepare(dir: &Path, names: BTreeSet<String>) -> Result<OutputFolder, ReportError> {
        if let Some(bad) = names.iter().find(|n| !plain_name(n)) {
            return Err(ReportError::BadName {
                folder: dir.to_path_buf(),
                name: bad.clone(),
            });
        }
        if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return Err(ReportError::NotAFolder {
                path: dir.to_path_buf(),
            });
        }
        fs::create_dir_all(dir).map_err(|source| ReportError::Create {
            path: dir.to_path_buf(),
            source,
        })?;
        let old = read_manifest(dir)?;
        for n in &names {
            let p = dir.join(n);
            if fs::symlink_metadata(&p).is_ok() && !old.contains(n) {
                return Err(ReportError::ForeignFile {
                    folder: dir.to_path_buf(),
                    file: p,
                });
            }
        }
        let folder = OutputFolder {
            dir: dir.to_path_buf(),
            old,
            new: names,
        };
        let both: BTreeSet<&String> = folder.old.iter().chain(&folder.new).collect();
        folder.write_manifest(both)?;
        Ok(folder)
    }

    /// The files the manifest of `dir` lists (what pactum wrote there), or
    /// `None` when the folder has no manifest.
    ///
    /// # Errors
    /// [`ReportError::Create`] when the manifest exists but cannot be read.
    pub fn listed(dir: &Path) -> Result<Option<BTreeSet<String>>, ReportError> {
        if fs::symlink_metadata(dir.join(MANIFEST)).is_err() {
            return Ok(None);
        }
        read_manifest(dir).map(Some)
    }

    /// Writes one declared file, whole. Safe to call from several threads.
    ///
    /// # Errors
    /// [`ReportError::BadName`] for a name not given to `prepare`;
    /// [`ReportError::Create`], [`ReportError::Commit`] naming the file.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        if !self.new.contains(name) {
            return Err(ReportError::BadName {
                folder: self.dir.clone(),
                name: name.to_string(),
            });
        }
        write_whole(&self.dir.join(name), bytes)
    }

    /// Deletes the files a previous run wrote that this one did not
    /// rewrite (only those: they are in the manifest), and leaves the
    /// manifest listing this run's files.
    ///
    /// # Errors
    /// [`ReportError::Create`] naming a file that could not be deleted,
    /// [`ReportError::Commit`] for the manifest.
    pub fn finish(self) -> Result<(), ReportError> {
        for n in self.old.difference(&self.new) {
            let p = self.dir.join(n);
            match fs::symlink_metadata(&p) {
                // A folder is never pactum's: leave it.
                Ok(m) if m.is_dir() => {}
                Ok(_) => fs::remove_file(&p).map_err(|source| ReportError::Create {
                    path: p.clone(),
                    source,
                })?,
                Err(_) => {}
            }
        }
        self.write_manifest(self.new.iter().collect())
    }

    fn write_manifest(&self, names: BTreeSet<&String>) -> Result<(), ReportError> {
        let mut text = String::from(
            "# Files pactum wrote in this folder. pactum replaces or deletes only the files listed here.\n",
        );
        for n in names {
            text.push_str(n);
            text.push('\n');
        }
        write_whole(&self.dir.join(MANIFEST), text.as_bytes())
    }
}

/// A file name with no folder part, not `.`/`..`, not the manifest.
fn plain_name(n: &str) -> bool {
    !n.is_empty()
        && n != "."
        && n != ".."
        && n != MANIFEST
        && !n.starts_with('#')
        && !n.contains(['/', '\\', '\n', '\r', '\0'])
}

/// The names a folder's manifest lists (none when it has no manifest).
fn read_manifest(dir: &Path) -> Result<BTreeSet<String>, ReportError> {
    let path = dir.join(MANIFEST);
    match fs::read_to_string(&path) {
        Ok(text) => Ok(text
            .lines()
            .filter(|l| plain_name(l))
            .map(str::to_string)
            .collect()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(BTreeSet::new()),
        Err(source) => Err(ReportError::Create { path, source }),
    }
}

/// Writes `bytes` to `path` whole (temporary file, then rename); a link at
/// `path` is replaced, not followed.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let dest = match path.parent() {
        Some(dir) => pactum_fs::resolve(dir)
            .map(|d| d.join(path.file_name().unwrap_or_default()))
            .map_err(|source| ReportError::Create {
                path: path.to_path_buf(),
                source,
            })?,
        None => path.to_path_buf(),
    };
    let (file, mut handle) = ReportFile::create_at(path, dest)?;
    handle
        .write_all(bytes)
        .and_then(|()| handle.flush())
        .map_err(|source| ReportError::Commit {
            path: path.to_path_buf(),
            source,
        })?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// Lines wholly inside the kept range are copied as they are; a line
    /// that starts before it or ends after it is redacted.
    #[test]
    fn lines_are_redacted_again_but_those_kept_whole() {
        let key = "sk-kept-0123456789abcdef";
        let r = Redactor::new([key]).expect("key");
        let lines: Vec<String> = (0..5).map(|i| format!("line {i} {key}\n")).collect();
        let text = lines.concat();
        let at = |i: usize| lines[..i].iter().map(String::len).sum::<usize>() as u64;
        let again = |keep: Option<Range<u64>>| {
            let mut out = Vec::new();
            redact_lines(
                &mut text.as_bytes(),
                &mut out,
                std::slice::from_ref(&r),
                keep,
            )
            .expect("redact");
            String::from_utf8(out).expect("utf-8")
        };
        let shown = |out: &str| -> Vec<bool> { out.lines().map(|l| l.contains(key)).collect() };
        assert_eq!(shown(&again(None)), [false; 5]);
        assert_eq!(
            shown(&again(Some(at(1)..at(4)))),
            [false, true, true, true, false]
        );
        // A bound inside a line redacts that line.
        assert_eq!(
            shown(&again(Some(at(1) + 1..at(4) - 1))),
            [false, false, true, false, false]
        );
        assert_eq!(shown(&again(Some(0..at(5)))), [true; 5]);
    }

    /// A report never replaces an SQLite database it was not told is the
    /// store (another pactum store, any database): its header says what
    /// it is.
    #[test]
    fn a_report_over_an_sqlite_database_is_refused() {
        let d = tempfile::tempdir().expect("tmp");
        let db = d.path().join("other.db");
        let mut bytes = b"SQLite format 3\0".to_vec();
        bytes.extend([0u8; 84]);
        fs::write(&db, &bytes).expect("write");
        let out = [Output::file("--json", &db)];
        assert!(matches!(
            check_outputs(&out, &[]),
            Err(ReportError::OutputIsDatabase { .. })
        ));
        // Its write-ahead log and shared memory are part of it.
        let wal = d.path().join("other.db-wal");
        fs::write(
            &wal,
            [0x37, 0x7f, 0x06, 0x82, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        )
        .expect("write");
        let shm = d.path().join("other.db-shm");
        fs::write(&shm, [0u8; 32]).expect("write");
        for part in [&wal, &shm] {
            assert!(matches!(
                check_outputs(&[Output::file("--json", part)], &[]),
                Err(ReportError::OutputIsDatabase { .. })
            ));
        }
        // A file of any other kind is replaced as ever.
        fs::write(&db, "{}").expect("write");
        assert!(check_outputs(&out, &[]).is_ok());
    }

    #[test]
    fn an_output_on_an_input_the_store_or_another_output_is_refused() {
        let d = tempfile::tempdir().expect("tmp");
        let root = d.path();
        fs::write(root.join("t.jsonl"), "{}").expect("write");
        fs::create_dir(root.join("store")).expect("mkdir");
        fs::write(root.join("store/p.db"), "db").expect("write");
        let protected = [
            Protected::input("the trace file", root.join("t.jsonl")),
            Protected::store(root.join("store/p.db")),
        ];
        let ok = |o: Vec<Output>| check_outputs(&o, &protected);
        assert!(ok(vec![Output::file("--json", root.join("r.json"))]).is_ok());
        assert!(ok(vec![Output::file("--json", "-")]).is_ok());
        assert!(ok(vec![Output::file("--junit", "-")]).is_ok());
        assert!(ok(vec![
            Output::file("--json", "-"),
            Output::file("--junit", root.join("r.xml"))
        ])
        .is_ok());
        let both = ok(vec![
            Output::file("--json", "-"),
            Output::file("--junit", "-"),
        ]);
        assert_eq!(
            both.expect_err("refused").to_string(),
            "--json and --junit both write to standard output (`-`); one report can go there, give the other a file: nothing was written"
        );
        let refused = [
            Output::file("--json", root.join("t.jsonl")),
            Output::file("--json", root.join("store/../t.jsonl")),
            Output::file("--json", root.join("store/p.db")),
            Output::file("--json", root.join("store/p.db-wal")),
            Output::file("--junit", root.join("store/p.db-shm")),
            Output::folder("--out", root.join("store")),
            Output::folder("--out", root),
        ];
        for o in refused {
            assert!(ok(vec![o.clone()]).is_err(), "{o:?} was let through");
        }
        assert!(ok(vec![Output::folder("--out", root.join("artifacts"))]).is_ok());
        #[cfg(unix)]
        {
            fs::hard_link(root.join("t.jsonl"), root.join("hard")).expect("ln");
            std::os::unix::fs::symlink(root.join("t.jsonl"), root.join("soft")).expect("ln");
            std::os::unix::fs::symlink(root.join("store"), root.join("sl")).expect("ln");
            for p in ["hard", "soft", "sl/p.db", "sl/p.db-wal"] {
                let e = ok(vec![Output::file("--json", root.join(p))]);
                assert!(e.is_err(), "{p} was let through");
            }
        }
        let twice = ok(vec![
            Output::file("--json", root.join("r.json")),
            Output::file("--junit", root.join("./r.json")),
        ]);
        assert!(
            matches!(twice, Err(ReportError::OutputsOverlap { .. })),
            "{twice:?}"
        );
        let msg = ok(vec![Output::file("--json", root.join("store/p.db"))])
            .expect_err("refused")
            .to_string();
        assert!(msg.contains("--json") && msg.contains("the store"), "{msg}");
    }

    #[test]
    fn a_report_replaces_its_destination_only_when_complete() {
        let d = tempfile::tempdir().expect("tmp");
        let dest = d.path().join("out/r.json");
        fs::create_dir_all(d.path().join("out")).expect("mkdir");
        fs::write(&dest, "old").expect("write");
        {
            let (_file, mut h) = ReportFile::create(&dest).expect("create");
            h.write_all(b"half").expect("write");
            // Dropped without commit: the old report stays.
        }
        assert_eq!(fs::read_to_string(&dest).expect("read"), "old");
        let left: Vec<_> = fs::read_dir(d.path().join("out"))
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(left.len(), 1, "a temporary file was left: {left:?}");
        let (file, mut h) = ReportFile::create(&dest).expect("create");
        h.write_all(b"new").expect("write");
        file.commit().expect("commit");
        assert_eq!(fs::read_to_string(&dest).expect("read"), "new");
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_report_is_written_at_its_target_and_a_device_directly() {
        let d = tempfile::tempdir().expect("tmp");
        let target = d.path().join("target.json");
        fs::write(&target, "old").expect("write");
        let link = d.path().join("latest.json");
        std::os::unix::fs::symlink(&target, &link).expect("ln");
        let (file, mut h) = ReportFile::create(&link).expect("create");
        h.write_all(b"new").expect("write");
        file.commit().expect("commit");
        assert!(fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&target).expect("read"), "new");
        let (file, mut h) = ReportFile::create(Path::new("/dev/null")).expect("create");
        h.write_all(b"gone").expect("write");
        file.commit().expect("commit");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata("/dev/null")
            .expect("meta")
            .file_type()
            .is_char_device());
    }

    #[test]
    fn a_folder_keeps_what_pactum_did_not_write() {
        let d = tempfile::tempdir().expect("tmp");
        let dir = d.path().join("art");
        fs::create_dir(&dir).expect("mkdir");
        fs::write(dir.join("notes.json"), "mine").expect("write");
        let f = OutputFolder::prepare(&dir, names(&["a.json", "b.json"])).expect("prepare");
        f.write("a.json", b"1").expect("write");
        f.write("b.json", b"2").expect("write");
        assert!(f.write("notes.json", b"x").is_err(), "undeclared name");
        f.finish().expect("finish");
        // A second run drops b.json: pactum's own file goes, the user's stays.
        let f = OutputFolder::prepare(&dir, names(&["a.json"])).expect("prepare");
        f.write("a.json", b"3").expect("write");
        f.finish().expect("finish");
        assert!(!dir.join("b.json").exists());
        assert_eq!(
            fs::read_to_string(dir.join("notes.json")).expect("r"),
            "mine"
        );
        assert_eq!(fs::read_to_string(dir.join("a.json")).expect("r"), "3");
        // A file pactum would replace but did not write is refused.
        let e = OutputFolder::prepare(&dir, names(&["notes.json"])).expect_err("refused");
        assert!(matches!(e, ReportError::ForeignFile { .. }), "{e:?}");
        assert_eq!(
            fs::read_to_string(dir.join("notes.json")).expect("r"),
            "mine"
        );
        for bad in ["../x.json", "a/b.json", "..", MANIFEST, ""] {
            assert!(
                OutputFolder::prepare(&dir, names(&[bad])).is_err(),
                "{bad:?} accepted"
            );
        }
        // A manifest naming a path outside the folder deletes nothing there.
        fs::write(d.path().join("outside.json"), "keep").expect("write");
        fs::write(dir.join(MANIFEST), "../outside.json\na.json\n").expect("write");
        OutputFolder::prepare(&dir, names(&["c.json"]))
            .expect("prepare")
            .finish()
            .expect("finish");
        assert!(d.path().join("outside.json").exists());
        assert!(!dir.join("a.json").exists());
    }
}
