//! Is the file fit to be opened, and why did a write fail.
//!
//! * [`precheck`] reads the file's 100-byte header before SQLite touches it:
//!   a file that is not SQLite, or is shorter than its header says (a
//!   truncated copy), is refused with nothing written, not even a `-wal`.
//! * [`probe`] descends each table's and index's B-tree to its first and
//!   last entry: a few pages per object, whatever the store's size. It
//!   catches a damaged root or edge page before anything is written;
//!   damage deeper inside is reported when a read reaches it.
//! * [`explain`] names an SQLite failure: its extended result code, and
//!   the operating-system cause pactum can observe beside the file (a
//!   read-only mount, no free space, the process's file-size limit, or the
//!   errno of a small test write in the store's folder). SQLite keeps the
//!   errno of its own failed call private to its C API, so the cause is
//!   observed again rather than read back.

use std::fs;
use std::io::{Read, Write};
use std::path::Path;

use rusqlite::{ffi, Connection};

/// What a file's header says is wrong with it, or `None` when it is empty
/// (a new store) or looks sound.
pub(crate) fn precheck(path: &Path) -> Option<String> {
    let mut f = fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    if len == 0 {
        return None;
    }
    let mut header = [0u8; 100];
    let mut got = 0;
    while got < header.len() {
        match f.read(&mut header[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(_) => return None,
        }
    }
    if got < header.len() || &header[..16] != b"SQLite format 3\0" {
        return Some(
            "not an SQLite database: the file does not start with the SQLite header".into(),
        );
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536u64,
        n if n >= 512 && n.is_power_of_two() => u64::from(n),
        n => return Some(format!("damaged header: page size {n} is not valid")),
    };
    // With a write-ahead log (or a rollback journal) beside it, the file
    // may be mid-checkpoint: its header already counts pages that are still
    // only in the log (a checkpoint a full disk cut short leaves exactly
    // that). SQLite reads such a store correctly; the probe after opening
    // checks its pages instead.
    if has_content(path, "-wal") || has_content(path, "-journal") {
        return None;
    }
    let be32 = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    let (change_counter, pages, valid_for) = (be32(24), be32(28), be32(92));
    // The page count is only kept by SQLite ≥ 3.7.0, which marks it valid
    // by writing the change counter again at offset 92.
    if valid_for == change_counter && pages > 0 {
        let expected = u64::from(pages) * page_size;
        if len < expected {
            return Some(format!(
                "truncated: its header counts {pages} pages of {page_size} bytes ({expected} bytes), the file has {len}"
            ));
        }
    }
    if len % page_size != 0 {
        return Some(format!(
            "truncated: {len} bytes is not a whole number of {page_size}-byte pages"
        ));
    }
    None
}

/// The `user_version` (offset 60) and `application_id` (offset 68) the
/// file's header holds, read without SQLite — so a store made by a newer
/// pactum, or another program's database, is refused before SQLite creates
/// its `-wal` and `-shm` beside it. `None` for a file that is empty, not
/// SQLite, or has a log beside it (the header may then be stale: SQLite
/// reads the true values).
pub(crate) fn header_ids(path: &Path) -> Option<(i64, i32)> {
    if has_content(path, "-wal") || has_content(path, "-journal") {
        return None;
    }
    let mut header = [0u8; 100];
    fs::File::open(path).ok()?.read_exact(&mut header).ok()?;
    if &header[..16] != b"SQLite format 3\0" {
        return None;
    }
    let be = |at: usize| {
        i32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    Some((i64::from(be(60)), be(68)))
}

/// Whether the file `path` + `suffix` exists and is not empty.
fn has_content(path: &Path, suffix: &str) -> bool {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    fs::metadata(std::path::PathBuf::from(p)).is_ok_and(|m| m.len() > 0)
}

/// Reads the first and last entry of every table and index: why not, if a
/// page on the way is damaged.
pub(crate) fn probe(conn: &Connection) -> Option<String> {
    let objects: Vec<(String, String, String)> = match conn
        .prepare("SELECT type, name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        }) {
        Ok(o) => o,
        Err(e) => return Some(format!("its schema cannot be read: {e}")),
    };
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for (kind, name, table) in objects {
        let sqls: Vec<String> = if kind == "table" {
            ["ASC", "DESC"]
                .iter()
                .map(|d| format!("SELECT rowid FROM {} ORDER BY rowid {d} LIMIT 1", q(&name)))
                .collect()
        } else {
            let first: Option<String> = conn
                .query_row(&format!("PRAGMA index_info({})", q(&name)), [], |r| {
                    r.get(2)
                })
                .ok();
            let Some(col) = first else { continue };
            ["ASC", "DESC"]
                .iter()
                .map(|d| {
                    format!(
                        "SELECT {c} FROM {t} INDEXED BY {i} ORDER BY {c} {d} LIMIT 1",
                        c = q(&col),
                        t = q(&table),
                        i = q(&name)
                    )
                })
                .collect()
        };
        for sql in sqls {
            let read = conn
                .prepare(&sql)
                .and_then(|mut s| s.query([]).and_then(|mut rows| rows.next().map(|_| ())));
            if let Err(e) = read {
                return Some(format!(
                    "{kind} {name} cannot be read: {e}{}",
                    code_text(&e)
                ));
            }
        }
    }
    None
}

/// ` (SQLITE_IOERR_WRITE, code 778)` for an SQLite failure, or nothing.
pub(crate) fn code_text(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(f, _) => {
            format!(
                " ({}, code {})",
                code_name(f.extended_code),
                f.extended_code
            )
        }
        _ => String::new(),
    }
}

/// The name of an SQLite (extended) result code.
pub(crate) fn code_name(code: i32) -> &'static str {
    match code {
        ffi::SQLITE_FULL => "SQLITE_FULL",
        ffi::SQLITE_IOERR => "SQLITE_IOERR",
        ffi::SQLITE_IOERR_READ => "SQLITE_IOERR_READ",
        ffi::SQLITE_IOERR_SHORT_READ => "SQLITE_IOERR_SHORT_READ",
        ffi::SQLITE_IOERR_WRITE => "SQLITE_IOERR_WRITE",
        ffi::SQLITE_IOERR_FSYNC => "SQLITE_IOERR_FSYNC",
        ffi::SQLITE_IOERR_DIR_FSYNC => "SQLITE_IOERR_DIR_FSYNC",
        ffi::SQLITE_IOERR_TRUNCATE => "SQLITE_IOERR_TRUNCATE",
        ffi::SQLITE_IOERR_FSTAT => "SQLITE_IOERR_FSTAT",
        ffi::SQLITE_IOERR_UNLOCK => "SQLITE_IOERR_UNLOCK",
        ffi::SQLITE_IOERR_RDLOCK => "SQLITE_IOERR_RDLOCK",
        ffi::SQLITE_IOERR_DELETE => "SQLITE_IOERR_DELETE",
        ffi::SQLITE_IOERR_NOMEM => "SQLITE_IOERR_NOMEM",
        ffi::SQLITE_IOERR_ACCESS => "SQLITE_IOERR_ACCESS",
        ffi::SQLITE_IOERR_LOCK => "SQLITE_IOERR_LOCK",
        ffi::SQLITE_IOERR_CLOSE => "SQLITE_IOERR_CLOSE",
        ffi::SQLITE_IOERR_SHMOPEN => "SQLITE_IOERR_SHMOPEN",
        ffi::SQLITE_IOERR_SHMSIZE => "SQLITE_IOERR_SHMSIZE",
        ffi::SQLITE_IOERR_SHMMAP => "SQLITE_IOERR_SHMMAP",
        ffi::SQLITE_IOERR_SEEK => "SQLITE_IOERR_SEEK",
        ffi::SQLITE_IOERR_MMAP => "SQLITE_IOERR_MMAP",
        ffi::SQLITE_IOERR_CORRUPTFS => "SQLITE_IOERR_CORRUPTFS",
        ffi::SQLITE_CORRUPT => "SQLITE_CORRUPT",
        ffi::SQLITE_CORRUPT_INDEX => "SQLITE_CORRUPT_INDEX",
        ffi::SQLITE_CORRUPT_SEQUENCE => "SQLITE_CORRUPT_SEQUENCE",
        ffi::SQLITE_NOTADB => "SQLITE_NOTADB",
        ffi::SQLITE_READONLY => "SQLITE_READONLY",
        ffi::SQLITE_READONLY_RECOVERY => "SQLITE_READONLY_RECOVERY",
        ffi::SQLITE_READONLY_CANTLOCK => "SQLITE_READONLY_CANTLOCK",
        ffi::SQLITE_READONLY_ROLLBACK => "SQLITE_READONLY_ROLLBACK",
        ffi::SQLITE_READONLY_DBMOVED => "SQLITE_READONLY_DBMOVED",
        ffi::SQLITE_READONLY_CANTINIT => "SQLITE_READONLY_CANTINIT",
        ffi::SQLITE_READONLY_DIRECTORY => "SQLITE_READONLY_DIRECTORY",
        ffi::SQLITE_CANTOPEN => "SQLITE_CANTOPEN",
        ffi::SQLITE_CANTOPEN_ISDIR => "SQLITE_CANTOPEN_ISDIR",
        ffi::SQLITE_CANTOPEN_FULLPATH => "SQLITE_CANTOPEN_FULLPATH",
        ffi::SQLITE_BUSY => "SQLITE_BUSY",
        ffi::SQLITE_BUSY_SNAPSHOT => "SQLITE_BUSY_SNAPSHOT",
        ffi::SQLITE_LOCKED => "SQLITE_LOCKED",
        ffi::SQLITE_NOMEM => "SQLITE_NOMEM",
        ffi::SQLITE_CONSTRAINT => "SQLITE_CONSTRAINT",
        ffi::SQLITE_ERROR => "SQLITE_ERROR",
        c => match c & 0xff {
            ffi::SQLITE_IOERR => "SQLITE_IOERR (extended)",
            ffi::SQLITE_CORRUPT => "SQLITE_CORRUPT (extended)",
            ffi::SQLITE_READONLY => "SQLITE_READONLY (extended)",
            ffi::SQLITE_CANTOPEN => "SQLITE_CANTOPEN (extended)",
            _ => "an SQLite error",
        },
    }
}

/// What the operating system says about writing beside the store at
/// `path`, when something is wrong there; `None` when nothing is.
pub(crate) fn os_cause(path: &Path) -> Option<String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut causes = Vec::new();
    #[cfg(unix)]
    {
        if let Ok(v) = rustix::fs::statvfs(&dir) {
            if v.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
                causes.push(format!(
                    "the file system holding {} is mounted read-only (EROFS)",
                    dir.display()
                ));
            }
            let free = v.f_bavail.saturating_mul(v.f_frsize);
            if free < 1 << 20 {
                causes.push(format!(
                    "the file system holding {} has {free} bytes free: the disk is full (ENOSPC)",
                    dir.display()
                ));
            }
        }
        let limit = rustix::process::getrlimit(rustix::process::Resource::Fsize).current;
        if let Some(limit) = limit {
            let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            let wal = {
                let mut w = path.as_os_str().to_owned();
                w.push("-wal");
                fs::metadata(std::path::PathBuf::from(w))
                    .map(|m| m.len())
                    .unwrap_or(0)
            };
            if size.max(wal).saturating_add(1 << 16) >= limit {
                causes.push(format!(
                    "this process may write files of at most {limit} bytes (RLIMIT_FSIZE, `ulimit -f`) and the store is {size} bytes, its log {wal}: writes past the limit fail (EFBIG)"
                ));
            }
        }
    }
    if causes.is_empty() {
        // Nothing seen from outside: try a small write beside the store,
        // which meets the same refusal and names its errno.
        let attempt = tempfile::Builder::new()
            .prefix(".pactum-write-test.")
            .tempfile_in(&dir)
            .and_then(|mut f| {
                f.write_all(&[0u8; 65_536])?;
                f.as_file().sync_all()
            });
        if let Err(e) = attempt {
            causes.push(format!(
                "writing a test file beside the store fails: {e}{}",
                e.raw_os_error()
                    .map(|n| format!(" (errno {n})"))
                    .unwrap_or_default()
            ));
        }
    }
    (!causes.is_empty()).then(|| causes.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_tells_garbage_and_truncation_apart_from_a_store() {
        let d = tempfile::tempdir().expect("tmp");
        let p = d.path().join("s.db");
        fs::write(&p, b"").expect("write");
        assert_eq!(precheck(&p), None, "an empty file is a new store");
        fs::write(&p, b"runs:\n  - r1\n").expect("write");
        assert!(precheck(&p).expect("refused").starts_with("not an SQLite"));
        {
            let c = Connection::open(p.with_extension("ok")).expect("open");
            c.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (randomblob(20000));")
                .expect("fill");
        }
        let good = p.with_extension("ok");
        assert_eq!(precheck(&good), None);
        let bytes = fs::read(&good).expect("read");
        fs::write(&p, &bytes[..bytes.len() - 4096]).expect("truncate");
        assert!(precheck(&p).expect("refused").starts_with("truncated"));
        fs::write(&p, &bytes[..bytes.len() - 100]).expect("truncate");
        assert!(precheck(&p).expect("refused").starts_with("truncated"));
        // Mid-checkpoint (a log beside it): the header may run ahead of the
        // file, and SQLite reads it right; not refused here.
        let mut wal = p.as_os_str().to_owned();
        wal.push("-wal");
        fs::write(std::path::PathBuf::from(wal), b"x").expect("wal");
        assert_eq!(precheck(&p), None);
        assert_eq!(code_name(ffi::SQLITE_IOERR_WRITE), "SQLITE_IOERR_WRITE");
        assert_eq!(code_name(ffi::SQLITE_FULL), "SQLITE_FULL");
    }
}
