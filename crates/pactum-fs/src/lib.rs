//! # pactum-fs
//!
//! Which file a path names, whatever its spelling. pactum asks this in two
//! places, and both must answer alike:
//!
//! * a trace file given twice is graded twice (`repeated-input`,
//!   `pactum_trace::InputNotes`, docs/traces.md);
//! * a report path that is an input or the store would overwrite it, and is
//!   refused (`pactum_report::check_outputs`, docs/reports.md, "Where
//!   reports are written").
//!
//! [`FileId::of`] is the one answer: the path resolved by [`resolve`]
//! (symbolic links followed, `.` and `..` applied, a path that does not
//! exist yet resolved through its nearest existing folder), and for a file
//! that exists its device and inode, so hard links are one file too.
//!
//! The only crate of pactum below the reports and the importers that does
//! I/O; `pactum-core` stays pure.

use std::fs;
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Symbolic links followed while resolving one path before giving up (the
/// limit Linux applies).
const MAX_LINKS: u32 = 40;

/// The identity of the file a path names (see the crate docs).
///
/// Two `FileId`s are equal when they name one file: the same device and
/// inode for files that exist (on Unix; elsewhere the same resolved path),
/// the same resolved path for files that do not exist yet. Equality and
/// hashing agree, so a `FileId` can key a map.
#[derive(Debug, Clone)]
pub struct FileId {
    resolved: PathBuf,
    exists: bool,
    key: Key,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// Device and inode of a file that exists.
    #[cfg(unix)]
    Node(u64, u64),
    /// The resolved path of a file that does not exist (yet), or of any
    /// file where inodes are not available.
    Path(PathBuf),
}

impl FileId {
    /// The identity of the file `path` names, existing or not.
    ///
    /// # Errors
    /// As [`resolve`]: the current folder cannot be read, or more than 40
    /// symbolic links were followed (a loop).
    pub fn of(path: &Path) -> io::Result<FileId> {
        let resolved = resolve(path)?;
        let meta = fs::metadata(&resolved).ok();
        let key = match &meta {
            #[cfg(unix)]
            Some(m) => {
                use std::os::unix::fs::MetadataExt;
                Key::Node(m.dev(), m.ino())
            }
            _ => Key::Path(resolved.clone()),
        };
        Ok(FileId {
            exists: meta.is_some(),
            resolved,
            key,
        })
    }

    /// The absolute path it resolved to.
    pub fn resolved(&self) -> &Path {
        &self.resolved
    }

    /// Whether the file (or folder) existed when the identity was taken.
    pub fn exists(&self) -> bool {
        self.exists
    }
}

impl PartialEq for FileId {
    fn eq(&self, other: &FileId) -> bool {
        self.key == other.key
    }
}

impl Eq for FileId {}

impl Hash for FileId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

/// The absolute path of the file `p` names, with symbolic links followed
/// and `.`/`..` applied — also when `p`, or a link's target, does not
/// exist yet: its nearest existing folder is resolved and the rest
/// appended (the file writing `p` would create).
///
/// # Errors
/// The current folder cannot be read, or more than 40 links were followed.
pub fn resolve(p: &Path) -> io::Result<PathBuf> {
    resolve_hops(p, 0)
}

fn resolve_hops(p: &Path, hops: u32) -> io::Result<PathBuf> {
    if hops > MAX_LINKS {
        return Err(io::Error::other(format!(
            "more than {MAX_LINKS} symbolic links to follow"
        )));
    }
    let abs = std::path::absolute(p)?;
    if let Ok(c) = fs::canonicalize(&abs) {
        return Ok(c);
    }
    // A link whose target does not exist (yet): writing creates the target.
    if let Ok(m) = fs::symlink_metadata(&abs) {
        if m.file_type().is_symlink() {
            let target = fs::read_link(&abs)?;
            let target = match abs.parent() {
                Some(dir) if target.is_relative() => dir.join(target),
                _ => target,
            };
            return resolve_hops(&target, hops + 1);
        }
    }
    let Some(parent) = abs.parent() else {
        return Ok(abs);
    };
    match abs.components().next_back() {
        Some(Component::ParentDir) => {
            let up = resolve_hops(parent, hops)?;
            Ok(up.parent().map(Path::to_path_buf).unwrap_or(up))
        }
        Some(Component::CurDir) => resolve_hops(parent, hops),
        Some(Component::Normal(name)) => Ok(resolve_hops(parent, hops)?.join(name)),
        _ => Ok(abs),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn spellings_of_one_file_resolve_alike() {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        fs::create_dir(root.join("sub")).unwrap();
        fs::write(root.join("a"), "x").unwrap();
        let a = root.join("a");
        assert_eq!(resolve(&root.join("sub/../a")).unwrap(), a);
        assert_eq!(resolve(&root.join("./a")).unwrap(), a);
        assert_eq!(resolve(&root.join("sub/./../a")).unwrap(), a);
        // Not existing yet, under a linked folder.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("sub"), root.join("link")).unwrap();
            assert_eq!(
                resolve(&root.join("link/new.json")).unwrap(),
                root.join("sub/new.json")
            );
            // A dangling link resolves to the file writing would create.
            std::os::unix::fs::symlink("sub/later.json", root.join("dangling")).unwrap();
            assert_eq!(
                resolve(&root.join("dangling")).unwrap(),
                root.join("sub/later.json")
            );
            // A loop is an error, not a hang.
            std::os::unix::fs::symlink(root.join("loop2"), root.join("loop1")).unwrap();
            std::os::unix::fs::symlink(root.join("loop1"), root.join("loop2")).unwrap();
            assert!(resolve(&root.join("loop1")).is_err());
            assert!(FileId::of(&root.join("loop1")).is_err());
        }
        // Missing folders on the way.
        assert_eq!(
            resolve(&root.join("x/y/../z.json")).unwrap(),
            root.join("x/z.json")
        );
    }

    #[test]
    fn one_file_is_one_identity_whatever_its_spelling() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        fs::create_dir(root.join("sub")).unwrap();
        fs::write(root.join("a"), "x").unwrap();
        fs::write(root.join("b"), "x").unwrap();
        let id = |p: &str| FileId::of(&root.join(p)).unwrap();
        let a = id("a");
        assert!(a.exists());
        for same in ["./a", "sub/../a", "sub/./../a"] {
            assert_eq!(id(same), a, "{same}");
        }
        // Same content, another file.
        assert_ne!(id("b"), a);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("a"), root.join("soft")).unwrap();
            fs::hard_link(root.join("a"), root.join("hard")).unwrap();
            assert_eq!(id("soft"), a);
            // A hard link has its own path: only the inode tells.
            assert_eq!(id("hard"), a);
            assert_ne!(id("hard").resolved(), a.resolved());
            std::os::unix::fs::symlink(root.join("sub"), root.join("dir-link")).unwrap();
            assert_eq!(id("dir-link/new.json"), id("sub/new.json"));
        }
        // Files that do not exist yet are compared by resolved path.
        let new = id("sub/new.json");
        assert!(!new.exists());
        assert_eq!(id("sub/../sub/new.json"), new);
        assert_ne!(id("sub/other.json"), new);
        // Equality and hashing agree.
        let set: HashSet<FileId> = ["a", "./a", "b", "sub/new.json", "sub/./new.json"]
            .into_iter()
            .map(id)
            .collect();
        assert_eq!(set.len(), 3);
    }
}
