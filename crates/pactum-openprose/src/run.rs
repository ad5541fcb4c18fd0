//! The run-directory importer: a completed OpenProse run → the contracts
//! it declared, the bindings it produced, its errors and its inputs.
//!
//! Layouts read (OpenProse v0.12–v0.15, "legacy"):
//!
//! * a system: `forme.manifest.json` wires the services (`graph`), each
//!   node's contract comes from its source snapshot in `sources/` (a node
//!   id `{file}.{section}` names an inline `## section` service), and the
//!   root contract is graded too, over the outputs the caller receives
//!   (`caller.returns`);
//! * a single service or a function (no manifest): the root contract,
//!   its outputs under `bindings/{name}/`;
//! * nested runs under `imports/{handle}--{slug}/`, the same tree.
//!
//! The current layout (`compiled-intent.json`, `world-model/`,
//! `receipts/`) is detected and refused ([`ImportError::UnsupportedLayout`]):
//! never guessed at. Every path a manifest names must stay inside the run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use regex::Regex;
use serde::Deserialize;

use crate::contract::{binding_key, name_key, output_name, parse_file, ParsedContract, ParsedFile};
use crate::error::ImportError;
use crate::rendered;

/// The largest binding, input or contract file read, in bytes: a larger
/// one is an error, never silently cut.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The longest error text kept from `__error.md` or a log line, in
/// characters (SPEC §4: untrusted text is bounded).
pub const MAX_ERROR_CHARS: usize = 2000;

/// Nested imports deeper than this are refused.
pub const MAX_IMPORT_DEPTH: usize = 8;

/// The largest `forme.manifest.json` read, in bytes; a larger one is
/// refused naming the file and this limit.
pub const MAX_MANIFEST_BYTES: usize = 1024 * 1024;

/// The most nodes a manifest's `graph` may hold; more is refused naming
/// the file, the field `graph` and this limit.
pub const MAX_MANIFEST_NODES: usize = 2000;

/// How deep below a service's `workspace/{svc}/` folder pactum looks for
/// an `__error.md`; a deeper folder is refused, never skipped.
pub const MAX_WORKSPACE_DEPTH: usize = 16;

/// How many entries one service's workspace folder may hold, all levels
/// together; more is refused, never skipped.
pub const MAX_WORKSPACE_ENTRIES: usize = 100_000;

/// How the run's contracts were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// A multi-service system wired by `forme.manifest.json`.
    System,
    /// A single service, no manifest.
    Service,
    /// A `kind: function` run, no manifest.
    Function,
}

/// A bound value: a caller input or a declared output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The input or output name.
    pub name: String,
    /// Its path, relative to the run directory (`bindings/svc/name.md`).
    pub path: String,
    /// Its content (header stripped); `None` when no file exists, which is
    /// the evidence that the output was not produced.
    pub content: Option<String>,
    /// Whether the file is `.json`.
    pub json: bool,
}

/// An error the run recorded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunError {
    /// The service (node id) that failed, or the system's name for a
    /// run-level `---error`.
    pub service: String,
    /// The error's name (`search-failed`).
    pub name: String,
    /// Its text, as recorded.
    pub message: String,
    /// Where it was read: `workspace/svc/__error.md` or `vm.log.md:N`.
    pub source: String,
    /// Whether it is the run's own `---error` end line: the run did not
    /// end cleanly, which no conditional clause answers. Not in reports
    /// (its `source` says where it was read).
    #[serde(skip)]
    pub ends_run: bool,
}

/// One contract of the run, with what it produced.
#[derive(Debug, Clone)]
pub struct RunContract {
    /// Its name in the report: the node id (a nested run's contracts are
    /// prefixed `{handle}--{slug}/`).
    pub name: String,
    /// The file its clauses were read from, relative to the run.
    pub source: String,
    /// That file's text: an output that only copies it (its own program)
    /// says nothing of its own (SPEC §3.4).
    pub source_text: Arc<str>,
    /// Whether it is the root contract of a system.
    pub is_system: bool,
    /// The declared clauses and errors.
    pub declared: ParsedContract,
    /// Its outputs, declared (manifest, clauses) or found in its bindings
    /// folder, by name.
    pub outputs: Vec<Binding>,
    /// What it was given: caller inputs and upstream outputs.
    pub inputs: Vec<Binding>,
    /// The errors recorded for it.
    pub errors: Vec<RunError>,
    /// Whether the run shows it finished: a `✓` log line, or a workspace
    /// folder without `__error.md`. `None`: nothing says either way.
    pub completed: Option<bool>,
}

impl RunContract {
    /// The binding of output `name`, if declared or found.
    pub fn output(&self, name: &str) -> Option<&Binding> {
        self.outputs.iter().find(|b| b.name == name)
    }
}

/// An imported run.
#[derive(Debug, Clone)]
pub struct Run {
    /// The directory as given.
    pub dir: PathBuf,
    /// The run id: the log header's, else the folder name.
    pub id: String,
    /// The system's (or the root contract's) name.
    pub system: String,
    /// How its contracts were found.
    pub layout: Layout,
    /// Its contracts, then those of its nested runs.
    pub contracts: Vec<RunContract>,
    /// The caller's inputs.
    pub inputs: Vec<Binding>,
    /// Every error the run recorded.
    pub errors: Vec<RunError>,
}

impl Run {
    /// Every text read from the run that a report may quote or name: the
    /// contents of every binding (outputs and inputs), every recorded
    /// error, every declared clause, every contract's source file, and
    /// every name and path a report shows (the run's folder and id, the
    /// system's and contracts' names, the bindings' names and paths, where
    /// each error was recorded). The pipeline finds the keys written in a
    /// run here, to redact them (SPEC §4): a key used as a run id, an
    /// input's name or a file's name is redacted like one in a binding.
    pub fn texts(&self) -> impl Iterator<Item = &str> + '_ {
        let names = [self.id.as_str(), self.system.as_str()]
            .into_iter()
            .chain(self.dir.to_str())
            .chain(self.contracts.iter().flat_map(|c| {
                [c.name.as_str(), c.source.as_str()].into_iter().chain(
                    c.outputs
                        .iter()
                        .chain(&c.inputs)
                        .flat_map(|b| [b.name.as_str(), b.path.as_str()]),
                )
            }))
            .chain(
                self.inputs
                    .iter()
                    .flat_map(|b| [b.name.as_str(), b.path.as_str()]),
            )
            .chain(
                self.errors
                    .iter()
                    .chain(self.contracts.iter().flat_map(|c| &c.errors))
                    .flat_map(|e| [e.service.as_str(), e.source.as_str()]),
            );
        let bindings = self
            .inputs
            .iter()
            .chain(
                self.contracts
                    .iter()
                    .flat_map(|c| c.outputs.iter().chain(&c.inputs)),
            )
            .filter_map(|b| b.content.as_deref());
        let errors = self
            .errors
            .iter()
            .chain(self.contracts.iter().flat_map(|c| &c.errors))
            .flat_map(|e| [e.name.as_str(), e.message.as_str()]);
        let clauses = self.contracts.iter().flat_map(|c| {
            c.declared.clauses.iter().flat_map(|d| {
                std::iter::once(d.text.as_str()).chain(d.sub.iter().map(String::as_str))
            })
        });
        let sources = self.contracts.iter().map(|c| &*c.source_text);
        bindings
            .chain(errors)
            .chain(clauses)
            .chain(sources)
            .chain(names)
    }
}

impl Run {
    /// The keys a reader sees once [`Self::texts`] render as Markdown but
    /// that are not written as key-shaped tokens (split by a tag, a
    /// character reference or a link), and the source each renders from
    /// ([`crate::keys::shown_keys`]): the pipeline redacts both.
    pub fn shown_keys(&self) -> crate::keys::ShownKeys {
        let mut out = crate::keys::ShownKeys::default();
        let mut seen = std::collections::HashSet::new();
        for t in self.texts() {
            let found = crate::keys::shown_keys(t);
            for k in found.keys {
                if seen.insert(k.clone()) {
                    out.keys.push(k);
                }
            }
            for s in found.sources {
                if seen.insert(s.clone()) {
                    out.sources.push(s);
                }
            }
        }
        out
    }
}

/// Whether `dir` looks like an OpenProse run: a folder holding
/// `root.prose.md`, or, with it missing, something only a run holds
/// (`forme.manifest.json`, `vm.log.md`, `compiled-intent.json`, a
/// `bindings/` folder), so that a run without its root is reported as
/// `missing-root` rather than read as something else.
pub fn is_run_dir(dir: &Path) -> bool {
    dir.is_dir()
        && (dir.join("root.prose.md").is_file()
            || dir.join("forme.manifest.json").is_file()
            || dir.join("vm.log.md").is_file()
            || dir.join("compiled-intent.json").is_file()
            || dir.join("bindings").is_dir())
}

/// Imports the run in `dir` (see the module docs for the layouts).
///
/// # Errors
/// In this order: [`ImportError::Io`] (not a readable folder),
/// [`ImportError::UnsupportedLayout`], [`ImportError::MissingRoot`],
/// [`ImportError::MissingManifest`], [`ImportError::NoOutputs`]; then a
/// malformed or contradicting manifest ([`ImportError::Manifest`]), a
/// contract file that cannot be read ([`ImportError::Contract`]), a
/// malformed run file ([`ImportError::RunFile`]).
pub fn import_run(dir: &Path) -> Result<Run, ImportError> {
    import_at(dir, "", 0)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn import_at(dir: &Path, prefix: &str, depth: usize) -> Result<Run, ImportError> {
    let meta = std::fs::metadata(dir).map_err(io(dir))?;
    if !meta.is_dir() {
        return Err(ImportError::Io {
            path: dir.display().to_string(),
            source: std::io::Error::other("not a folder"),
        });
    }
    let shown = dir.display().to_string();
    if depth == 0 {
        only_files_and_folders(dir)?;
    }
    for marker in ["compiled-intent.json", "world-model", "receipts"] {
        if dir.join(marker).exists() {
            return Err(ImportError::UnsupportedLayout {
                dir: shown,
                found: marker.into(),
            });
        }
    }
    let ctx = Ctx {
        dir,
        declared: std::cell::RefCell::default(),
    };
    let root_path = dir.join("root.prose.md");
    if !root_path.is_file() {
        return Err(ImportError::MissingRoot { dir: shown });
    }
    let imports = imports_folder(dir)?;
    no_unread_runs(dir, imports.as_deref())?;
    let root_text = ctx.read(&root_path)?;
    let root = parse_file(&root_path, &root_text)?;
    let manifest_path = dir.join("forme.manifest.json");
    let has_manifest = manifest_path.is_file();
    if !has_manifest {
        let why = if root.kind.eq_ignore_ascii_case("system") {
            Some("`kind: system`".to_string())
        } else if root.inline.len() >= 2 {
            Some(format!(
                "it declares {} services inline: {}",
                root.inline.len(),
                root.inline
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(ImportError::MissingManifest { dir: shown, why });
        }
    }
    if !has_outputs(dir)? {
        return Err(ImportError::NoOutputs { dir: shown });
    }
    no_lookalike_folders(&dir.join("bindings"))?;
    let inputs = ctx.caller_inputs()?;
    let log = ctx.read_log()?;
    let id = log
        .as_ref()
        .and_then(|l| l.id.clone())
        .unwrap_or_else(|| folder_name(dir));

    let (system, layout, mut contracts, owners) = if has_manifest {
        ctx.system(
            &manifest_path,
            (&root, &root_text),
            &inputs,
            prefix,
            log.as_ref(),
        )?
    } else {
        let layout = if root.kind.eq_ignore_ascii_case("function") {
            Layout::Function
        } else {
            Layout::Service
        };
        // Its own clauses and an inline service's too: which one the run
        // is cannot be told, and the other's clauses would go ungraded.
        if let (true, Some(svc)) = (root.main.has_commitments, root.inline.first()) {
            return Err(ImportError::Contract {
                file: root_path.display().to_string(),
                line: svc.line,
                message: format!(
                    "the file declares its own clauses and those of an inline service `{}`: without forme.manifest.json pactum cannot tell which one the run is (move the service to its own file, or add the manifest)",
                    svc.name
                ),
            });
        }
        // A file whose one service sits in an inline section: that section.
        let declared = if !root.main.has_commitments && root.inline.len() == 1 {
            root.inline[0].clone()
        } else {
            root.main.clone()
        };
        let name = root.name.clone();
        // Its snapshot, when kept, must be the root: a clause only in one
        // of the two would never be graded.
        ctx.single_snapshots(&name, &root_text)?;
        let folder = format!("bindings/{name}");
        let outputs = ctx.outputs_in(&folder, &declared, &BTreeMap::new())?;
        let c = RunContract {
            name: format!("{prefix}{name}"),
            source: "root.prose.md".into(),
            source_text: Arc::from(root_text.as_str()),
            is_system: false,
            declared,
            outputs,
            inputs: inputs.clone(),
            errors: Vec::new(),
            completed: None,
        };
        (name, layout, vec![c], None)
    };

    // The log of this program: a header naming another one is another
    // run's log, whatever its `root:` line says.
    if let Some((line, program)) = log.as_ref().and_then(|l| l.program.as_ref()) {
        if *program != system && *program != root.name {
            return Err(ImportError::RunFile {
                file: dir.join("vm.log.md").display().to_string(),
                line: *line,
                message: format!(
                    "the log's header names the program `{}`, not `{}`: it is another run's log",
                    pactum_core::text::truncate_chars(program, 80),
                    pactum_core::text::truncate_chars(&system, 80)
                ),
            });
        }
    }

    // Errors: each service's __error.md, the log's ✗ lines, a run-level
    // ---error.
    let mut errors = ctx.workspace_errors(owners.as_deref())?;
    // What the run reads as its own parts; any other file is looked at.
    let mut known: BTreeSet<String> = ["root.prose.md", "forme.manifest.json", "vm.log.md"]
        .map(String::from)
        .into();
    known.extend(inputs.iter().map(|b| b.path.clone()));
    known.extend(ctx.declared.borrow().iter().cloned());
    let sources = dir.join("sources");
    if sources.is_dir() {
        known.extend(
            sorted_entries(&sources)?
                .iter()
                .filter(|p| p.is_file())
                .map(|p| ctx.rel(p)),
        );
    }
    ctx.no_stray_error_files(owners.as_deref(), &known)?;
    // A single service's or function's other binding folders, once a
    // stray error file among them has been named.
    if layout != Layout::System {
        no_unread_folders(&dir.join("bindings"), &root.name)?;
    }
    if let Some(l) = &log {
        errors.extend(l.errors.iter().cloned());
        if let Some((line, msg)) = &l.run_error {
            let name = msg
                .split(|c: char| c == ':' || c.is_whitespace())
                .next()
                .unwrap_or_default()
                .to_string();
            errors.push(RunError {
                service: system.clone(),
                name,
                message: msg.clone(),
                source: format!("vm.log.md:{line}"),
                ends_run: true,
            });
        }
    }
    // A single service or function is the run's only contract: an error
    // recorded for another service is no error of it, and nothing else of
    // the run could answer for it.
    if layout != Layout::System {
        if let Some(e) = errors.iter().find(|e| e.service != system) {
            let (file, line) = match e.source.split_once(':') {
                Some((f, n)) => (dir.join(f), n.parse().unwrap_or(0)),
                None => (dir.join(&e.source), 1),
            };
            return Err(ImportError::RunFile {
                file: file.display().to_string(),
                line,
                message: format!(
                    "an error of `{}`, which is not this run's service `{system}`: the run does not say whose error it is",
                    e.service
                ),
            });
        }
    }
    // Without its log, whether the run finished, and which steps failed,
    // cannot be told: a green from its bindings alone could be a run cut
    // short.
    if log.is_none() {
        return Err(ImportError::RunFile {
            file: dir.join("vm.log.md").display().to_string(),
            line: 0,
            message: "the run has no vm.log.md: whether it finished, and which of its steps failed, cannot be told, so it is not graded".into(),
        });
    }
    // Sets and groups, not scans per contract: a system of many nodes is
    // read in n log n.
    let workspaces: BTreeSet<String> = ctx.workspace_folders()?.into_iter().collect();
    let logged: BTreeSet<&str> = log
        .as_ref()
        .map(|l| l.ok.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let mut by_service: BTreeMap<&str, Vec<RunError>> = BTreeMap::new();
    for e in &errors {
        by_service.entry(&e.service).or_default().push(e.clone());
    }
    for c in &mut contracts {
        let local = c.name.strip_prefix(prefix).unwrap_or(&c.name).to_string();
        // A single service or function is the run's only contract: every
        // error of the run is its own.
        c.errors = if c.is_system || layout != Layout::System {
            errors.clone()
        } else {
            by_service.get(local.as_str()).cloned().unwrap_or_default()
        };
        let logged_ok = logged.contains(local.as_str());
        let workspace_ok = workspaces.contains(&local) && c.errors.is_empty();
        c.completed = if !c.errors.is_empty() {
            Some(false)
        } else if logged_ok || workspace_ok {
            Some(true)
        } else {
            None
        };
    }

    // The system finished when every service did.
    if contracts.iter().any(|c| c.is_system) {
        let services: Vec<Option<bool>> = contracts
            .iter()
            .filter(|c| !c.is_system)
            .map(|c| c.completed)
            .collect();
        for c in contracts.iter_mut().filter(|c| c.is_system) {
            if c.errors.is_empty() {
                c.completed = if services.iter().all(|s| *s == Some(true)) {
                    Some(true)
                } else {
                    None
                };
            }
        }
    }

    // Nested runs.
    if let Some(imports) = imports {
        if depth >= MAX_IMPORT_DEPTH {
            return Err(ImportError::RunFile {
                file: imports.display().to_string(),
                line: 0,
                message: format!("imports nested deeper than {MAX_IMPORT_DEPTH} levels"),
            });
        }
        for entry in sorted_entries(&imports)? {
            let name = folder_name(&entry);
            if !entry.is_dir() || !name.contains("--") {
                return Err(ImportError::RunFile {
                    file: entry.display().to_string(),
                    line: 0,
                    message: "an entry of imports/ that is not a `{handle}--{slug}/` run folder"
                        .into(),
                });
            }
            ctx.check_real_inside(&entry)?;
            let nested = import_at(&entry, &format!("{prefix}{name}/"), depth + 1)?;
            errors.extend(nested.errors);
            contracts.extend(nested.contracts);
        }
    }
    // The root may name any output of the run: its own, a node's, a
    // nested run's, a binding held beside the declared ones.
    ctx.no_commitment_outside("root.prose.md", &root, &contracts)?;
    Ok(Run {
        dir: dir.to_path_buf(),
        id,
        system,
        layout,
        contracts,
        inputs,
        errors,
    })
}

/// The files whose presence makes a folder a run of its own: a folder
/// holding one (any case of its name) outside `imports/` is refused by
/// [`no_unread_runs`].
const RUN_FILES: [&str; 4] = [
    "root.prose.md",
    "vm.log.md",
    "forme.manifest.json",
    "compiled-intent.json",
];

/// The run's `imports/` folder, its name in any case (`Imports/`: on a
/// file system that ignores case it *is* `imports/`). Two of them
/// (`imports/` and `Imports/`) are refused: which nested runs are the
/// run's cannot be told.
fn imports_folder(dir: &Path) -> Result<Option<PathBuf>, ImportError> {
    let found: Vec<PathBuf> = sorted_entries(dir)?
        .into_iter()
        .filter(|p| folder_name(p).eq_ignore_ascii_case("imports") && p.is_dir())
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        [first, second, ..] => Err(ImportError::RunFile {
            file: second.display().to_string(),
            line: 0,
            message: format!(
                "two imports folders, {} and {}: a file system that ignores case holds one, so which nested runs are this run's cannot be told",
                shown(&folder_name(first)),
                shown(&folder_name(second))
            ),
        }),
    }
}

/// Refuses any folder of the run but its root and its `imports` folder
/// (`imports`, read as nested runs of their own) that holds a
/// [`RUN_FILES`] file (but a snapshot `sources/root.prose.md`): a whole run (`runs/`, `import/`, `imports.old/`,
/// `workspace/svc/run/`) that pactum would never read, whose failed steps
/// no contract would answer for. Links to folders are not followed.
fn no_unread_runs(dir: &Path, imports: Option<&Path>) -> Result<(), ImportError> {
    walk_run(
        dir,
        "the run's folders cannot all be checked for a nested run",
        |d, e, level| {
            let path = e.path();
            let ft = e.file_type().map_err(io(&path))?;
            if ft.is_dir() {
                return Ok(level < MAX_WALK_DEPTH && (level > 0 || Some(path.as_path()) != imports));
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if level == 0 {
                // A second log or root beside the one read (`VM.log.md`,
                // `vm.log.old.md`, `run.log.md`, `Root.prose.md`): which steps ran,
                // and which contract was invoked, cannot be told.
                let squashed: String = {
                    use unicode_normalization::UnicodeNormalization;
                    name.nfkc()
                        .filter(|c| c.is_alphanumeric())
                        .flat_map(char::to_lowercase)
                        .collect()
                };
                // Any log at all (`run.log.md`, `log.md`, `ｖｍ.log.md`).
                let like = squashed.starts_with("rootprose") || squashed.contains("log");
                if like && !matches!(name.as_str(), "vm.log.md" | "root.prose.md") {
                    return Err(ImportError::RunFile {
                        file: path.display().to_string(),
                        line: 0,
                        message: format!(
                            "{} is named like the run's log or its root contract but is not `vm.log.md` or `root.prose.md`: which one tells the run cannot be told",
                            shown(&name)
                        ),
                    });
                }
                return Ok(false);
            }
            // A snapshot of the root in `sources/` is read as one.
            let snapshot = level == 1
                && d == dir.join("sources")
                && name.eq_ignore_ascii_case("root.prose.md");
            if !snapshot && RUN_FILES.iter().any(|m| name.eq_ignore_ascii_case(m)) {
                return Err(ImportError::RunFile {
                    file: d.display().to_string(),
                    line: 0,
                    message: format!(
                        "a folder {} holding {}, a run of its own: pactum reads a nested run only at `imports/{{handle}}--{{slug}}/`, and this one would never be graded",
                        shown(&folder_name(d)),
                        shown(&name),
                    ),
                });
            }
            Ok(false)
        },
    )
}

/// Walks the entries under `dir`, at most [`MAX_WALK_ENTRIES`] of them
/// (past that the run is refused: `unchecked` says what could not be
/// checked). `visit` is given each entry's folder, the entry and its
/// depth (0 for `dir`'s own entries), and answers whether to go into
/// it.
fn walk_run(
    dir: &Path,
    unchecked: &str,
    mut visit: impl FnMut(&Path, &std::fs::DirEntry, usize) -> Result<bool, ImportError>,
) -> Result<(), ImportError> {
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((d, level)) = stack.pop() {
        for e in std::fs::read_dir(&d).map_err(io(&d))? {
            let e = e.map_err(io(&d))?;
            seen += 1;
            if seen > MAX_WALK_ENTRIES {
                return Err(ImportError::RunFile {
                    file: dir.display().to_string(),
                    line: 0,
                    message: format!("more than {MAX_WALK_ENTRIES} entries: {unchecked}"),
                });
            }
            if visit(&d, &e, level)? {
                stack.push((e.path(), level + 1));
            }
        }
    }
    Ok(())
}

/// The most entries [`only_files_and_folders`] looks at.
const MAX_WALK_ENTRIES: usize = 1_000_000;
/// The deepest folder [`only_files_and_folders`] looks into.
const MAX_WALK_DEPTH: usize = 64;

/// Refuses a run holding anything but folders, regular files and links
/// to them — a FIFO, a socket, a device, anywhere in it: reading one
/// could block, and it is no output. Types are read without opening
/// anything (`lstat`, then `stat` for a link).
fn only_files_and_folders(dir: &Path) -> Result<(), ImportError> {
    let refuse = |p: &Path, message: String| ImportError::RunFile {
        file: p.display().to_string(),
        line: 0,
        message,
    };
    walk_run(
        dir,
        "the run's files cannot all be checked",
        |_, e, level| {
            let path = e.path();
            let ft = e.file_type().map_err(io(&path))?;
            let kind = if ft.is_symlink() {
                match std::fs::metadata(&path) {
                    Ok(m) => m.file_type(),
                    // A link to nothing: reading it fails where it is used.
                    Err(_) => return Ok(false),
                }
            } else {
                ft
            };
            if kind.is_dir() {
                if ft.is_symlink() {
                    return Ok(false);
                }
                if level + 1 > MAX_WALK_DEPTH {
                    return Err(refuse(
                        &path,
                        format!("folders nested deeper than {MAX_WALK_DEPTH} levels"),
                    ));
                }
                return Ok(true);
            }
            if !kind.is_file() {
                return Err(refuse(
                &path,
                "not a regular file (a FIFO, socket or device): a run holds only folders and files".into(),
            ));
            }
            Ok(false)
        },
    )
}

fn folder_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// The entries of `dir`, sorted, without OS metadata files
/// ([`is_os_metadata`]): every folder of a run is listed through here.
fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let e = e.map_err(io(dir))?;
        let is_dir = e.file_type().map_err(io(dir))?.is_dir();
        if !is_dir && is_os_metadata(&e.file_name().to_string_lossy()) {
            continue;
        }
        v.push(e.path());
    }
    v.sort();
    Ok(v)
}

/// Whether a file named `name` is metadata an OS, a file manager or an
/// editor leaves in any folder rather than part of the run: a name that
/// starts with `.` (`.DS_Store`, `._x`, `.gitkeep`), `Thumbs.db`,
/// `desktop.ini`. Listing a folder skips such a file: it is never taken
/// for an output, an input, a snapshot or an import, nor refused as one.
/// A folder is never metadata: a hidden folder is read like any other.
pub fn is_os_metadata(name: &str) -> bool {
    name.starts_with('.')
        || name.eq_ignore_ascii_case("Thumbs.db")
        || name.eq_ignore_ascii_case("desktop.ini")
}

/// The entries of `dir`, sorted, with every hidden file but the metadata
/// an OS or editor is known to leave ([`is_known_metadata`]): the folders
/// looked through for error reports are listed through here, so a hidden
/// `.__error.md` is read like any other file.
fn entries_with_hidden(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let e = e.map_err(io(dir))?;
        let is_dir = e.file_type().map_err(io(dir))?.is_dir();
        if !is_dir
            && is_known_metadata(&e.file_name().to_string_lossy())
            && (!e.file_name().to_string_lossy().starts_with("._") || is_apple_double(&e.path()))
        {
            continue;
        }
        v.push(e.path());
    }
    v.sort();
    Ok(v)
}

/// Whether a file `._x` holds what macOS writes there (AppleDouble): a
/// hidden `.__error.md` is named alike but is no metadata.
fn is_apple_double(p: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(p)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == [0x00, 0x05, 0x16, 0x07]
}

/// Whether a file named `name` is metadata an OS, a file manager or an
/// editor is known to leave in any folder: `.DS_Store`, an AppleDouble
/// `._x`, `.gitkeep`, `.keep`, `.localized`, `.directory`, `Thumbs.db`,
/// `desktop.ini`. Only these are passed over when a run is looked
/// through for error reports (a `._x` only when it holds what macOS
/// writes there); any other hidden file is read.
pub fn is_known_metadata(name: &str) -> bool {
    name.starts_with("._")
        || [".DS_Store", ".gitkeep", ".keep", ".localized", ".directory"].contains(&name)
        || name.eq_ignore_ascii_case("Thumbs.db")
        || name.eq_ignore_ascii_case("desktop.ini")
}

/// Refuses two folders of `bindings/` whose names only look different
/// (`svc` and `SVC`, `s\u{200B}vc`, fullwidth `ｓｖｃ`): which one holds a
/// service's outputs cannot be told.
fn no_lookalike_folders(b: &Path) -> Result<(), ImportError> {
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for f in sorted_entries(b)?.into_iter().filter(|p| p.is_dir()) {
        let name = folder_name(&f);
        if let Some(first) = seen.insert(binding_key(&name), f.clone()) {
            return Err(ImportError::RunFile {
                file: first.display().to_string(),
                line: 0,
                message: format!(
                    "two binding folders for one service: {} and {} (names that only look different)",
                    shown(&folder_name(&first)),
                    shown(&name)
                ),
            });
        }
    }
    Ok(())
}

/// The files in the folders below `dir` (not `dir`'s own files), at most
/// [`MAX_WORKSPACE_DEPTH`] levels and [`MAX_WORKSPACE_ENTRIES`] entries
/// down: more is refused, never skipped.
fn files_below(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, usize)> = sorted_entries(dir)?
        .into_iter()
        .filter(|p| p.is_dir())
        .map(|p| (p, 1))
        .collect();
    let mut seen = 0usize;
    let refuse = |at: &Path, why: String| ImportError::RunFile {
        file: at.display().to_string(),
        line: 0,
        message: why,
    };
    while let Some((d, depth)) = stack.pop() {
        if depth > MAX_WORKSPACE_DEPTH {
            return Err(refuse(
                &d,
                format!("folders nested deeper than {MAX_WORKSPACE_DEPTH} levels in an output folder: pactum cannot look through them for a second binding of an output"),
            ));
        }
        for e in sorted_entries(&d)? {
            seen += 1;
            if seen > MAX_WORKSPACE_ENTRIES {
                return Err(refuse(
                    dir,
                    format!("more than {MAX_WORKSPACE_ENTRIES} entries below an output folder: pactum cannot look through them for a second binding of an output"),
                ));
            }
            if e.is_dir() {
                stack.push((e, depth + 1));
            } else if e.is_file() {
                out.push(e);
            }
        }
    }
    Ok(out)
}

/// In a run of one service (or function) whose outputs are in
/// `bindings/{name}/`, refuses any other folder of `bindings/` but the
/// caller's, and any folder inside the service's own, that holds
/// anything: its outputs would never be graded.
fn no_unread_folders(b: &Path, name: &str) -> Result<(), ImportError> {
    if !b.is_dir() {
        return Ok(());
    }
    let own = b.join(name);
    if own.is_dir() {
        if let Some(f) = sorted_entries(&own)?
            .into_iter()
            .filter(|p| p.is_dir())
            .find(|p| sorted_entries(p).is_ok_and(|e| !e.is_empty()))
        {
            return Err(ImportError::RunFile {
                file: f.display().to_string(),
                line: 0,
                message: format!(
                    "a folder {} inside the service's binding folder `{}`: a run of one service reads its outputs from that folder alone, and these would never be graded",
                    shown(&folder_name(&f)),
                    shown(name)
                ),
            });
        }
    }
    for f in sorted_entries(b)?.into_iter().filter(|p| p.is_dir()) {
        let folder = folder_name(&f);
        if folder == "caller" || folder == name || sorted_entries(&f)?.is_empty() {
            continue;
        }
        return Err(ImportError::RunFile {
            file: f.display().to_string(),
            line: 0,
            message: format!(
                "a binding folder {} beside the service's `{}`: a run of one service has no other outputs, and these would never be graded",
                shown(&folder),
                shown(name)
            ),
        });
    }
    Ok(())
}

/// Whether `bindings/` holds any file outside `bindings/caller/`.
fn has_outputs(dir: &Path) -> Result<bool, ImportError> {
    let b = dir.join("bindings");
    if !b.is_dir() {
        return Ok(false);
    }
    for svc in sorted_entries(&b)? {
        if folder_name(&svc) == "caller" || !svc.is_dir() {
            continue;
        }
        if sorted_entries(&svc)?.iter().any(|f| f.is_file()) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Reads one file of the run as UTF-8 text, its line endings (`\r\n`, or
/// a bare `\r`) made `\n` so that every reader sees the lines a Markdown
/// renderer shows.
///
/// # Errors
/// [`ImportError::RunFile`] naming the file: not a regular file (a FIFO,
/// a socket, a device: checked before it is opened, so it never blocks),
/// too large, not UTF-8.
fn read_text(path: &Path) -> Result<String, ImportError> {
    let meta = std::fs::metadata(path).map_err(io(path))?;
    if !meta.is_file() {
        return Err(ImportError::RunFile {
            file: path.display().to_string(),
            line: 0,
            message:
                "not a regular file (a FIFO, socket or device): a run holds only folders and files"
                    .into(),
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ImportError::RunFile {
            file: path.display().to_string(),
            line: 0,
            message: format!(
                "{} bytes, more than the {MAX_FILE_BYTES} bytes pactum reads from one file",
                meta.len()
            ),
        });
    }
    let bytes = std::fs::read(path).map_err(io(path))?;
    let text = String::from_utf8(bytes).map_err(|_| ImportError::RunFile {
        file: path.display().to_string(),
        line: 0,
        message: "not UTF-8 text".into(),
    })?;
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    })
}

/// Whether a relative path (components joined by `/`) is a file in a
/// folder of `bindings/`: `bindings/{folder}/…/{file}`, spelled exactly.
fn under_bindings(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    parts.len() >= 3 && parts[0] == "bindings"
}

/// A relative path a run file names, checked to stay inside the run:
/// no absolute path, no `..`.
fn inside(rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    if rel.is_empty() || p.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// The log's content that grading uses.
struct Log {
    id: Option<String>,
    /// The program the header names, and its line: `# run:{id} {name}`.
    program: Option<(usize, String)>,
    ok: Vec<String>,
    errors: Vec<RunError>,
    run_error: Option<(usize, String)>,
    /// Every step line: (1-based line, service).
    steps: Vec<(usize, String)>,
}

/// A system's name, layout and contracts, and where each node's
/// workspace is (folder → node id).
type SystemContracts = (
    String,
    Layout,
    Vec<RunContract>,
    Option<Vec<(PathBuf, String)>>,
);

struct Ctx<'a> {
    dir: &'a Path,
    /// The bindings the contracts or the manifest declare (outputs a
    /// clause or the manifest names, caller returns, node inputs),
    /// relative to the run: any other file under `bindings/` is read for
    /// an error report.
    declared: std::cell::RefCell<BTreeSet<String>>,
}

/// `bindings/caller/{input}.md`: `# name`, `key: value` lines, `---`,
/// then the value.
fn parse_caller(file: &str, text: &str) -> Result<(String, String), ImportError> {
    let bad = |line: usize, m: &str| ImportError::RunFile {
        file: file.to_string(),
        line,
        message: m.to_string(),
    };
    let mut lines = text.lines().enumerate();
    let name = match lines.next() {
        Some((_, l)) if l.starts_with("# ") => l[2..].trim().to_string(),
        _ => return Err(bad(1, "a caller binding starts with `# {name}`")),
    };
    for (i, l) in lines.by_ref() {
        let l = l.trim_end();
        if l == "---" {
            let rest: Vec<&str> = text.lines().skip(i + 1).collect();
            return Ok((name, rest.join("\n").trim().to_string()));
        }
        if !l.is_empty() && !l.contains(':') {
            return Err(bad(
                i + 1,
                "expected `key: value` header lines (`binding: input`, `source: caller`) then `---`",
            ));
        }
    }
    Err(bad(0, "the header is never closed by `---`"))
}

/// An output binding's content without the header OpenProse writes:
/// `# {name}` (the output's own name), then only `binding: output|input`
/// and `source: {folder}` lines (the node that wrote it, the binding's
/// `folder`; at least one; blank lines allowed), then `---`, within the first
/// eight lines. Anything else — a title of another name, other `key:
/// value` lines — is the output's own content and kept whole: it is never
/// dropped as a header.
fn strip_output_header(name: &str, folder: &str, text: &str) -> String {
    // A byte order mark before the header is no content.
    let lines: Vec<&str> = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .lines()
        .collect();
    let own_title = lines
        .first()
        .and_then(|l| l.strip_prefix("# "))
        .is_some_and(|t| t.trim().trim_matches('`').eq_ignore_ascii_case(name.trim()));
    if own_title {
        if let Some(end) = lines.iter().take(8).position(|l| l.trim_end() == "---") {
            let header = &lines[1..end];
            // `binding: output|input` and `source: {node}`, as OpenProse
            // writes them; another value is content.
            let known = |l: &str| {
                l.split_once(':').is_some_and(|(k, v)| {
                    let v = v.trim();
                    match k.trim().to_ascii_lowercase().as_str() {
                        "binding" => matches!(v, "output" | "input"),
                        // The node that wrote it: the binding's folder.
                        "source" => v.eq_ignore_ascii_case(folder),
                        _ => false,
                    }
                })
            };
            if header.iter().any(|l| known(l))
                && header.iter().all(|l| l.trim().is_empty() || known(l))
            {
                return lines[end + 1..].join("\n").trim().to_string();
            }
        }
    }
    text.to_string()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawManifest {
    /// The run's id: the log's header must name the same run.
    #[serde(default)]
    id: Option<String>,
    system_name: String,
    #[serde(default)]
    source_path: Option<String>,
    #[serde(default)]
    caller: Option<RawCaller>,
    graph: Vec<RawNode>,
}

#[derive(Deserialize)]
struct RawCaller {
    #[serde(default)]
    returns: Vec<RawReturn>,
}

#[derive(Deserialize)]
struct RawReturn {
    name: String,
    source: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawNode {
    id: String,
    #[serde(default)]
    source_path: Option<String>,
    #[serde(default)]
    workspace_path: Option<String>,
    #[serde(default)]
    inputs: Vec<RawInput>,
    #[serde(default)]
    outputs: Vec<RawOutput>,
}

#[derive(Deserialize)]
struct RawInput {
    name: String,
    #[serde(default)]
    path: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawOutput {
    name: String,
    #[serde(default)]
    binding_path: Option<String>,
}

impl Ctx<'_> {
    fn rel(&self, p: &Path) -> String {
        p.strip_prefix(self.dir)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }

    fn caller_inputs(&self) -> Result<Vec<Binding>, ImportError> {
        let folder = self.dir.join("bindings/caller");
        if !folder.is_dir() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for f in sorted_entries(&folder)? {
            if !f.is_file() {
                continue;
            }
            let text = self.read(&f)?;
            let (name, value) = parse_caller(&f.display().to_string(), &text)?;
            out.push(Binding {
                name,
                path: self.rel(&f),
                content: Some(value),
                json: false,
            });
        }
        Ok(out)
    }

    /// The outputs of a contract whose bindings are in `folder`: every
    /// output its clauses name, every file found there, and the
    /// manifest's declared outputs (`declared`: name → binding path).
    fn outputs_in(
        &self,
        folder: &str,
        contract: &ParsedContract,
        declared: &BTreeMap<String, String>,
    ) -> Result<Vec<Binding>, ImportError> {
        let mut names: Vec<String> = declared.keys().cloned().collect();
        // A set beside the list: a node of many outputs stays n log n.
        let mut known: BTreeSet<String> = names.iter().cloned().collect();
        // A sentence's label (`Format: …`) is an output only where a file
        // or the manifest says so.
        for c in contract.clauses.iter().filter(|c| !c.label) {
            if let Some(o) = &c.output {
                if known.insert(o.clone()) {
                    names.push(o.clone());
                }
            }
        }
        // Files found beside these are no declared part of the run.
        let asked_count = names.len();
        let dir = self.dir.join(folder);
        if dir.is_dir() {
            // Two files that could bind one output (`out.md` and `out.txt`,
            // `out.MD`, `résumé` in NFC and NFD, `o\u{200B}ut.md`): which
            // was meant cannot be told, so the run is refused.
            let mut seen: BTreeMap<String, String> = BTreeMap::new();
            // An output the manifest binds elsewhere, with a file at its
            // default place too: which one the caller received cannot be
            // told.
            let bound: Vec<(String, &String, &String)> = declared
                .iter()
                .map(|(n, p)| (binding_key(n), n, p))
                .collect();
            // The outputs the contract names: a file named like one of
            // them and more (`out.final.md`, `out (1).md`, `out_v2.md`)
            // is another version of it, and which one the caller
            // received cannot be told.
            let asked: Vec<(String, String)> =
                names.iter().map(|n| (binding_key(n), n.clone())).collect();
            for f in sorted_entries(&dir)? {
                if !f.is_file() {
                    continue;
                }
                if let Some(stem) = f.file_stem().map(|s| output_name(&s.to_string_lossy())) {
                    let rel = self.rel(&f);
                    let key = binding_key(&stem);
                    if let Some((_, n, p)) = bound.iter().find(|(k, _, p)| *k == key && **p != rel)
                    {
                        return Err(ImportError::RunFile {
                            file: self.dir.join(&rel).display().to_string(),
                            line: 0,
                            message: format!(
                                "output `{n}` is bound twice: the manifest binds it at {p}, and {rel} is where it is written by default (one output, one file)"
                            ),
                        });
                    }
                    if !asked.iter().any(|(k, _)| *k == key)
                        && !declared.values().any(|p| *p == rel)
                    {
                        if let Some((_, n)) = asked.iter().find(|(k, _)| {
                            key.strip_prefix(k.as_str()).is_some_and(|rest| {
                                rest.starts_with(['.', '_', '-', '(', '~', '['])
                            })
                        }) {
                            return Err(ImportError::RunFile {
                                file: self.dir.join(&rel).display().to_string(),
                                line: 0,
                                message: format!(
                                    "{rel} is named like output `{n}` and more: another version of it beside its binding, so which one the caller received cannot be told"
                                ),
                            });
                        }
                    }
                    // Read as a reader tells names apart: a zero-width
                    // space, a soft hyphen or lookalike letters make no
                    // other output.
                    if let Some(first) = seen.insert(key, rel.clone()) {
                        return Err(ImportError::RunFile {
                            file: self.dir.join(&first).display().to_string(),
                            line: 0,
                            message: format!(
                                "output `{stem}` is bound twice: {first} and {rel} (one output, one file)"
                            ),
                        });
                    }
                    if known.insert(stem.clone()) {
                        names.push(stem);
                    }
                }
            }
            // A file in a folder below named like an output (`sub/out.md`,
            // `.old/out.md`) is that output bound twice, unless it is the
            // binding the manifest names.
            let keys: Vec<(String, &String)> = names.iter().map(|n| (binding_key(n), n)).collect();
            for f in files_below(&dir)? {
                let rel = self.rel(&f);
                let Some(stem) = f.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                    continue;
                };
                let key = binding_key(&stem);
                if let Some((_, n)) = keys
                    .iter()
                    .find(|(k, n)| *k == key && declared.get(*n) != Some(&rel))
                {
                    return Err(ImportError::RunFile {
                        file: self.dir.join(&rel).display().to_string(),
                        line: 0,
                        message: format!(
                            "output `{n}` is bound twice: {folder}/ and {rel}, in a folder below it (one output, one file)"
                        ),
                    });
                }
            }
        }
        let bindings: Vec<Binding> = names
            .into_iter()
            .map(|n| match declared.get(&n) {
                Some(p) => self.binding_at(&n, p),
                None => self.binding_in(&n, folder),
            })
            .collect::<Result<_, _>>()?;
        self.declared
            .borrow_mut()
            .extend(bindings[..asked_count].iter().map(|b| b.path.clone()));
        Ok(bindings)
    }

    /// Output `name` in `folder`: `name.md` or `name.json` (both is an
    /// error: which one was meant cannot be told).
    fn binding_in(&self, name: &str, folder: &str) -> Result<Binding, ImportError> {
        let md = format!("{folder}/{name}.md");
        let json = format!("{folder}/{name}.json");
        let (has_md, has_json) = (self.dir.join(&md).is_file(), self.dir.join(&json).is_file());
        if has_md && has_json {
            return Err(ImportError::RunFile {
                file: self.dir.join(&md).display().to_string(),
                line: 0,
                message: format!("output `{name}` is bound twice: {md} and {json}"),
            });
        }
        if has_json {
            return self.binding_at(name, &json);
        }
        // Another extension (`name.txt`) is read as it is.
        if !has_md {
            if let Some(other) = self.other_extension(folder, name)? {
                return self.binding_at(name, &other);
            }
        }
        self.binding_at(name, &md)
    }

    fn other_extension(&self, folder: &str, name: &str) -> Result<Option<String>, ImportError> {
        let dir = self.dir.join(folder);
        if !dir.is_dir() {
            return Ok(None);
        }
        for f in sorted_entries(&dir)? {
            if f.is_file()
                && f.file_stem()
                    .is_some_and(|s| output_name(&s.to_string_lossy()) == output_name(name))
            {
                return Ok(Some(self.rel(&f)));
            }
        }
        Ok(None)
    }

    fn binding_at(&self, name: &str, rel: &str) -> Result<Binding, ImportError> {
        let path = self.dir.join(rel);
        let json = rel.ends_with(".json");
        let content = if path.is_file() {
            self.check_is_output(name, &path)?;
            let text = self.read(&path)?;
            Some(if json {
                text
            } else {
                let folder = Path::new(rel)
                    .parent()
                    .and_then(Path::file_name)
                    .map_or(String::new(), |f| f.to_string_lossy().into_owned());
                strip_output_header(name, &folder, &text)
            })
        } else {
            None
        };
        Ok(Binding {
            name: name.to_string(),
            path: rel.to_string(),
            content,
            json,
        })
    }

    /// The text of a file of the run: it must resolve inside the run (a
    /// link leading outside is refused), then [`read_text`]'s bounds.
    /// Refuses a snapshot `sources/{file}` of the root (of a `what`:
    /// system or service) that differs from `root.prose.md`: a clause in
    /// only one of the two would never be graded. No snapshot is fine.
    fn snapshot_is_root(
        &self,
        file: impl AsRef<Path>,
        root_text: &str,
        what: &str,
    ) -> Result<(), ImportError> {
        let snap = self.dir.join("sources").join(file);
        if snap.is_file() && self.read(&snap)?.trim_end() != root_text.trim_end() {
            return Err(ImportError::RunFile {
                file: snap.display().to_string(),
                line: 0,
                message: format!(
                    "the {what}'s source snapshot differs from root.prose.md: which contract the run kept cannot be told"
                ),
            });
        }
        Ok(())
    }

    /// In a run without a manifest, refuses a file of `sources/` that a
    /// reader takes for the snapshot of the service `name` but that
    /// differs from `root.prose.md`: named like it in any case and with
    /// any extensions (`SVC.prose.MD`, `svc.md`, `svc`), named `root`, or
    /// any file whose frontmatter `name` is the service's. A file there
    /// that is no contract (no frontmatter naming one), or a folder, is
    /// refused too: which contract it snapshots cannot be told. Another
    /// contract's snapshot (a function the service used) is not graded.
    fn single_snapshots(&self, name: &str, root_text: &str) -> Result<(), ImportError> {
        let dir = self.dir.join("sources");
        if !dir.is_dir() {
            return Ok(());
        }
        let own = snapshot_key(name);
        for f in sorted_entries(&dir)? {
            let refuse = |message: String| ImportError::RunFile {
                file: f.display().to_string(),
                line: 0,
                message,
            };
            if std::fs::symlink_metadata(&f).map_err(io(&f))?.is_dir() {
                return Err(refuse(
                    "a folder in sources/: a snapshot is a contract file, and what this one holds cannot be told".into(),
                ));
            }
            let text = self.read(&f)?;
            let key = snapshot_key(&folder_name(&f));
            let names_it = key == own || key == snapshot_key("root");
            let declares_it = match crate::contract::parse_file(&f, &text) {
                Ok(parsed) => snapshot_key(&parsed.name) == own,
                Err(_) if names_it => true,
                Err(_) => {
                    return Err(refuse(
                        "a file in sources/ that is no contract (no frontmatter naming one): which contract it snapshots cannot be told".into(),
                    ))
                }
            };
            if (names_it || declares_it) && text.trim_end() != root_text.trim_end() {
                return Err(refuse(
                    "the service's source snapshot differs from root.prose.md: which contract the run kept cannot be told".into(),
                ));
            }
        }
        Ok(())
    }

    fn read(&self, path: &Path) -> Result<String, ImportError> {
        self.check_real_inside(path)?;
        read_text(path)
    }

    /// A binding must be an output: followed through any link, a file
    /// under `bindings/` that is no `__error.md`, never the root, the
    /// manifest, the log, a `sources/` snapshot or a workspace file; and
    /// its own file: a link to another binding (a caller input, another
    /// output) would grade that binding as this one.
    fn check_is_output(&self, name: &str, path: &Path) -> Result<(), ImportError> {
        let root = std::fs::canonicalize(self.dir).map_err(io(self.dir))?;
        let real = std::fs::canonicalize(path).map_err(io(path))?;
        let real_rel = real.strip_prefix(&root).ok();
        let ok = real_rel.is_some_and(|r| r.starts_with("bindings") && !is_error_file(r));
        let shown_real =
            real_rel.map_or_else(|| real.display().to_string(), |r| r.display().to_string());
        if !ok {
            return Err(ImportError::RunFile {
                file: path.display().to_string(),
                line: 0,
                message: format!(
                    "the binding of output `{name}` leads to {shown_real}, which is no output: a binding is a file under bindings/, never the manifest, root.prose.md, a sources/ snapshot, vm.log.md, a workspace or error file"
                ),
            });
        }
        // Its own file: the path as named, no link on the way.
        if path
            .strip_prefix(self.dir)
            .is_ok_and(|r| root.join(r) == real)
        {
            return Ok(());
        }
        Err(ImportError::RunFile {
            file: path.display().to_string(),
            line: 0,
            message: format!(
                "the binding of output `{name}` is a link to {shown_real}, another binding: a caller input, another output or another service's would be graded as this output, so an output's binding is its own file"
            ),
        })
    }

    /// A file or folder reached through a link must still be inside the
    /// run.
    fn check_real_inside(&self, path: &Path) -> Result<(), ImportError> {
        let root = std::fs::canonicalize(self.dir).map_err(io(self.dir))?;
        let real = std::fs::canonicalize(path).map_err(io(path))?;
        if real.starts_with(&root) {
            Ok(())
        } else {
            Err(ImportError::RunFile {
                file: path.display().to_string(),
                line: 0,
                message: "a link that leads outside the run directory".into(),
            })
        }
    }

    fn system(
        &self,
        manifest_path: &Path,
        (root, root_text): (&ParsedFile, &str),
        inputs: &[Binding],
        prefix: &str,
        log: Option<&Log>,
    ) -> Result<SystemContracts, ImportError> {
        let file = manifest_path.display().to_string();
        let text = self.read(manifest_path)?;
        if text.len() > MAX_MANIFEST_BYTES {
            return Err(ImportError::Manifest {
                file,
                field: "(root)".into(),
                message: format!(
                    "{} bytes, more than the {MAX_MANIFEST_BYTES} bytes pactum reads from a manifest",
                    text.len()
                ),
            });
        }
        let de = &mut serde_json::Deserializer::from_str(&text);
        let m: RawManifest = serde_path_to_error::deserialize(de).map_err(|e| {
            let field = e.path().to_string();
            ImportError::Manifest {
                file: file.clone(),
                field: if field == "." { "(root)".into() } else { field },
                message: e.into_inner().to_string(),
            }
        })?;
        let bad = |field: String, message: String| ImportError::Manifest {
            file: file.clone(),
            field,
            message,
        };
        // The log is this run's: a header naming another run id (of the
        // same program) records another run's steps and end.
        if let (Some(run), Some(l)) = (&m.id, log) {
            if let Some(logged) = l.id.as_ref().filter(|logged| *logged != run) {
                return Err(ImportError::RunFile {
                    file: self.dir.join("vm.log.md").display().to_string(),
                    line: l.program.as_ref().map_or(1, |(line, _)| *line),
                    message: format!(
                        "the log's header names the run `{}`, the manifest `{}`: it is another run's log",
                        pactum_core::text::truncate_chars(logged, 80),
                        pactum_core::text::truncate_chars(run, 80)
                    ),
                });
            }
        }
        // The system's own snapshot must be the root: a clause only in one
        // of the two would never be graded.
        if let Some(name) = m
            .source_path
            .as_deref()
            .and_then(|s| Path::new(s).file_name())
        {
            self.snapshot_is_root(name, root_text, "system")?;
        }
        let mut files: BTreeMap<String, (ParsedFile, Arc<str>)> = BTreeMap::new();
        let mut contracts = Vec::new();
        let mut node_outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        if m.graph.len() > MAX_MANIFEST_NODES {
            return Err(bad(
                "graph".into(),
                format!(
                    "{} nodes, more than the {MAX_MANIFEST_NODES} services pactum grades in one system",
                    m.graph.len()
                ),
            ));
        }
        check_names(&m.graph).map_err(|(field, message)| bad(field, message))?;
        // Binding file → the output field that claimed it first.
        let mut bound: BTreeMap<String, String> = BTreeMap::new();
        for (i, node) in m.graph.iter().enumerate() {
            let field = |f: &str| format!("graph[{i}].{f}");
            let Some(src) = node.source_path.as_deref().filter(|s| !s.trim().is_empty()) else {
                return Err(bad(
                    field("sourcePath"),
                    format!("node `{}` has no source contract", node.id),
                ));
            };
            let snapshot = self.snapshot_of(src, m.source_path.as_deref()).ok_or_else(|| {
                bad(
                    field("sourcePath"),
                    format!(
                        "node `{}`: its source `{src}` has no snapshot in sources/ (nor is it the root)",
                        node.id
                    ),
                )
            })?;
            if !files.contains_key(&snapshot) {
                let p = self.dir.join(&snapshot);
                let text = self.read(&p)?;
                files.insert(snapshot.clone(), (parse_file(&p, &text)?, Arc::from(text)));
            }
            let (parsed, source_text) = &files[&snapshot];
            let declared = node_contract(parsed, &node.id).ok_or_else(|| {
                bad(
                    field("id"),
                    format!(
                        "node `{}` names a section its source {snapshot} does not declare",
                        node.id
                    ),
                )
            })?;
            let mut outs = BTreeMap::new();
            for (j, o) in node.outputs.iter().enumerate() {
                let rel = match &o.binding_path {
                    Some(p) => inside(p).ok_or_else(|| {
                        bad(
                            format!("graph[{i}].outputs[{j}].bindingPath"),
                            format!("`{p}` is outside the run directory"),
                        )
                    })?,
                    None => PathBuf::from(format!("bindings/{}/{}.md", node.id, o.name)),
                };
                let rel = rel.to_string_lossy().replace('\\', "/");
                // Without a bindingPath the file may be `.json`.
                let rel = if o.binding_path.is_none()
                    && !self.dir.join(&rel).is_file()
                    && self
                        .dir
                        .join(format!("bindings/{}/{}.json", node.id, o.name))
                        .is_file()
                {
                    format!("bindings/{}/{}.json", node.id, o.name)
                } else {
                    rel
                };
                let at = format!(
                    "graph[{i}].outputs[{j}].{}",
                    if o.binding_path.is_some() {
                        "bindingPath"
                    } else {
                        "name"
                    }
                );
                // A binding lives under `bindings/{folder}/`: a path to
                // the manifest, the root, a source snapshot, the log or an
                // error file would grade the run's own program or records
                // as the output.
                if o.binding_path.is_some() && !under_bindings(&rel) {
                    return Err(bad(
                        at,
                        format!(
                            "`{}` is not under bindings/: an output's binding is a file bindings/{{node}}/{{name}}, never the manifest, root.prose.md, a sources/ snapshot, vm.log.md or a workspace file",
                            shown(&rel)
                        ),
                    ));
                }
                if folder_of(&rel, "bindings").as_deref() == Some("caller") {
                    return Err(bad(
                        at,
                        format!(
                            "`{}` is a caller input, not an output of node `{}`",
                            shown(&rel),
                            shown(&node.id)
                        ),
                    ));
                }
                if let Some(first) = bound.get(&rel) {
                    return Err(bad(
                        at,
                        format!(
                            "`{}` is also the binding of {first}: one file cannot be the evidence of two outputs",
                            shown(&rel)
                        ),
                    ));
                }
                bound.insert(
                    rel.clone(),
                    format!("graph[{i}].outputs[{j}] (`{}`)", shown(&o.name)),
                );
                outs.insert(o.name.clone(), rel);
            }
            if let Some(w) = &node.workspace_path {
                if inside(w).is_none() {
                    return Err(bad(
                        field("workspacePath"),
                        format!("`{w}` is outside the run directory"),
                    ));
                }
            }
            let mut node_inputs = Vec::new();
            for (j, inp) in node.inputs.iter().enumerate() {
                if let Some(p) = &inp.path {
                    let rel = inside(p).ok_or_else(|| {
                        bad(
                            format!("graph[{i}].inputs[{j}].path"),
                            format!("`{p}` is outside the run directory"),
                        )
                    })?;
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    let b = self.binding_at(&inp.name, &rel)?;
                    self.declared.borrow_mut().insert(b.path.clone());
                    if b.content.is_some() {
                        node_inputs.push(b);
                    }
                }
            }
            let outputs = self.outputs_in(&format!("bindings/{}", node.id), &declared, &outs)?;
            node_outputs.insert(node.id.clone(), outs);
            contracts.push(RunContract {
                name: format!("{prefix}{}", node.id),
                source_text: Arc::clone(source_text),
                source: snapshot,
                is_system: false,
                declared,
                outputs,
                inputs: node_inputs,
                errors: Vec::new(),
                completed: None,
            });
        }
        // The system contract: the root's own clauses over what the caller
        // receives. A run that ended in error (`---error`) has one even
        // when the root declares no clause: the error is the system's, and
        // something must answer for it.
        let mut returns = Vec::new();
        if let Some(caller) = &m.caller {
            let mut return_keys: BTreeMap<String, usize> = BTreeMap::new();
            for (k, r) in caller.returns.iter().enumerate() {
                if !is_one_name(&r.name) {
                    return Err(bad(
                        format!("caller.returns[{k}].name"),
                        format!(
                            "`{}` is not an output name: it may not be empty, hold `/`, `\\` or a control character, or be `.` or `..`",
                            shown(&r.name)
                        ),
                    ));
                }
                // Two returns of one name: which one the caller received
                // cannot be told, and grading the first would let the
                // list's order decide the verdict.
                if let Some(first) = return_keys.insert(binding_key(&r.name), k) {
                    return Err(bad(
                        format!("caller.returns[{k}].name"),
                        format!(
                            "two caller returns named `{}` (caller.returns[{first}] and [{k}]): which one the caller received cannot be told",
                            shown(&r.name)
                        ),
                    ));
                }
                let Some(outs) = node_outputs.get(&r.source) else {
                    return Err(bad(
                        format!("caller.returns[{k}].source"),
                        format!("`{}` is not a node of the graph", r.source),
                    ));
                };
                let rel = match outs.get(&r.name) {
                    Some(p) => p.clone(),
                    None => format!("bindings/{}/{}.md", r.source, r.name),
                };
                self.declared.borrow_mut().insert(rel.clone());
                returns.push(self.binding_at(&r.name, &rel)?);
            }
        }
        // (A node named like the system already answers for it.)
        let ended_in_error = log.is_some_and(|l| l.run_error.is_some())
            && !m.graph.iter().any(|n| n.id == m.system_name);
        if root.main.has_commitments || !root.main.clauses.is_empty() || ended_in_error {
            if let Some(i) = m.graph.iter().position(|n| n.id == m.system_name) {
                return Err(bad(
                    "systemName".into(),
                    format!(
                        "`{}` is also the id of graph[{i}]: the system's contract and that node's would share one name and one trace id",
                        shown(&m.system_name)
                    ),
                ));
            }
            let mut outputs = returns;
            for c in &root.main.clauses {
                if let Some(o) = &c.output {
                    if !outputs.iter().any(|b| &b.name == o) {
                        outputs.push(Binding {
                            name: o.clone(),
                            path: format!("(the caller's `{o}`: not in caller.returns)"),
                            content: None,
                            json: false,
                        });
                    }
                }
            }
            contracts.insert(
                0,
                RunContract {
                    name: format!("{prefix}{}", m.system_name),
                    source: "root.prose.md".into(),
                    source_text: Arc::from(root_text),
                    is_system: true,
                    declared: root.main.clone(),
                    outputs,
                    inputs: inputs.to_vec(),
                    errors: Vec::new(),
                    completed: None,
                },
            );
        }
        // Every inline service of the root, and of each snapshot a node's
        // contract was read from, is a node: one the graph leaves out
        // would never be graded.
        let system_snap = m
            .source_path
            .as_deref()
            .and_then(|s| Path::new(s).file_name())
            .map(|n| format!("sources/{}", n.to_string_lossy()));
        let same_file = |a: &str, b: &str| {
            a == b
                || [a, b].contains(&"root.prose.md")
                    && [a, b].contains(&system_snap.as_deref().unwrap_or("root.prose.md"))
        };
        for (rel, parsed) in std::iter::once(("root.prose.md", root))
            .chain(files.iter().map(|(f, (p, _))| (f.as_str(), p)))
        {
            for svc in &parsed.inline {
                let graded = contracts.iter().any(|c| {
                    same_file(&c.source, rel)
                        && c.declared.name == svc.name
                        && c.declared.line == svc.line
                });
                if !graded {
                    return Err(bad(
                        "graph".into(),
                        format!(
                            "{rel}:{} declares the inline service `{}`, not a node of the graph: the manifest does not account for it, and its clauses would never be graded",
                            svc.line,
                            shown(&svc.name)
                        ),
                    ));
                }
            }
        }
        self.accounted_for(&file, &m, &contracts, log)?;
        for (rel, parsed) in std::iter::once(("root.prose.md", root))
            .chain(files.iter().map(|(f, (p, _))| (f.as_str(), p)))
        {
            self.no_commitment_outside(rel, parsed, &contracts)?;
        }
        // Where each node's workspace is: `workspace/{id}/`, and the
        // folder its `workspacePath` names.
        let mut owners: Vec<(PathBuf, String)> = Vec::new();
        for node in &m.graph {
            owners.push((Path::new("workspace").join(&node.id), node.id.clone()));
            if let Some(w) = node.workspace_path.as_deref().and_then(inside) {
                if !owners.contains(&(w.clone(), node.id.clone())) {
                    owners.push((w, node.id.clone()));
                }
            }
        }
        Ok((m.system_name, Layout::System, contracts, Some(owners)))
    }

    /// Refuses a line of `file` (at `rel`) outside every section of
    /// clauses that names an output of the run ([`crate::contract::Outside`]):
    /// another node's, a caller return, a nested run's, or a binding the
    /// run holds beside the declared ones. It reads as a commitment no
    /// clause would grade.
    fn no_commitment_outside(
        &self,
        rel: &str,
        file: &ParsedFile,
        contracts: &[RunContract],
    ) -> Result<(), ImportError> {
        if file.outside.is_empty() {
            return Ok(());
        }
        let mut outputs: Vec<(&str, &str)> = Vec::new();
        for c in contracts {
            let declared = c.declared.clauses.iter().filter(|k| !k.label);
            for name in c
                .outputs
                .iter()
                .map(|b| &b.name)
                .chain(declared.filter_map(|k| k.output.as_ref()))
            {
                outputs.push((name, c.name.as_str()));
            }
        }
        // What the file's own clauses declare: a label inside a clause's
        // item naming one of these is graded as a clause on it.
        let own: Vec<&String> = std::iter::once(&file.main)
            .chain(file.inline.iter())
            .flat_map(|c| c.clauses.iter().filter(|k| !k.label))
            .filter_map(|k| k.output.as_ref())
            .collect();
        for o in &file.outside {
            let found = outputs.iter().find(|(name, _)| {
                o.names(name)
                    && !(o.inside && own.iter().any(|d| binding_key(d) == binding_key(name)))
            });
            if let Some((name, owner)) = found {
                return Err(ImportError::Contract {
                    file: self.dir.join(rel).display().to_string(),
                    line: o.line,
                    message: format!(
                        "a line naming `{}`, an output of `{}` in this run, in a section that holds no clause: it reads as a commitment on it that would never be graded; move it under the `Ensures` (or `Returns`, `Maintains`) of the contract that produces it, or write it without a count or a quote of the output",
                        shown(name),
                        shown(owner)
                    ),
                });
            }
        }
        Ok(())
    }

    /// Refuses a manifest that does not account for the folder: a folder
    /// under `bindings/` (besides `caller`) or `workspace/`, a snapshot in
    /// `sources/`, or a log step, of a service that is not a node of
    /// `graph` (that service would otherwise never be graded).
    fn accounted_for(
        &self,
        file: &str,
        m: &RawManifest,
        contracts: &[RunContract],
        log: Option<&Log>,
    ) -> Result<(), ImportError> {
        let unaccounted = |what: String| ImportError::Manifest {
            file: file.to_string(),
            field: "graph".into(),
            message: format!(
                "{what}, not a node of the graph: the manifest does not account for it"
            ),
        };
        let ids: BTreeSet<&str> = m.graph.iter().map(|n| n.id.as_str()).collect();
        let mut bindings: BTreeSet<String> = ids.iter().map(|s| s.to_string()).collect();
        bindings.extend(
            contracts
                .iter()
                .flat_map(|c| &c.outputs)
                .filter_map(|b| folder_of(&b.path, "bindings")),
        );
        bindings.insert("caller".into());
        let mut workspaces: BTreeSet<String> = ids.iter().map(|s| s.to_string()).collect();
        workspaces.extend(
            m.graph
                .iter()
                .filter_map(|n| n.workspace_path.as_deref())
                .filter_map(|w| folder_of(w, "workspace")),
        );
        for (top, known) in [("bindings", &bindings), ("workspace", &workspaces)] {
            let d = self.dir.join(top);
            if !d.is_dir() {
                continue;
            }
            for f in sorted_entries(&d)? {
                let name = folder_name(&f);
                if f.is_dir() && !known.contains(&name) {
                    return Err(unaccounted(format!(
                        "{top}/{name}/ holds the files of `{name}`"
                    )));
                }
            }
        }
        let sources = self.dir.join("sources");
        if sources.is_dir() {
            let mut used: BTreeSet<String> = contracts.iter().map(|c| c.source.clone()).collect();
            if let Some(name) = m
                .source_path
                .as_deref()
                .and_then(|s| Path::new(s).file_name())
            {
                used.insert(format!("sources/{}", name.to_string_lossy()));
            }
            for f in sorted_entries(&sources)? {
                let rel = self.rel(&f);
                if !used.contains(&rel) {
                    return Err(unaccounted(format!(
                        "{rel} is a source snapshot of no node (`{}`)",
                        folder_name(&f)
                    )));
                }
            }
        }
        if let Some(l) = log {
            for (line, svc) in &l.steps {
                if !ids.contains(&svc.as_str()) {
                    return Err(unaccounted(format!(
                        "vm.log.md:{line} logs a step of `{svc}`"
                    )));
                }
            }
            // A log that lists steps lists every service that produced an
            // output: one missing may never have run to its end.
            if !l.steps.is_empty() {
                let stepped: BTreeSet<&str> = l.steps.iter().map(|(_, s)| s.as_str()).collect();
                let produced: BTreeSet<String> = contracts
                    .iter()
                    .flat_map(|c| &c.outputs)
                    .filter(|b| b.content.is_some())
                    .filter_map(|b| folder_of(&b.path, "bindings"))
                    .filter(|f| ids.contains(f.as_str()))
                    .collect();
                if let Some(svc) = produced.iter().find(|f| !stepped.contains(f.as_str())) {
                    return Err(ImportError::RunFile {
                        file: self.dir.join("vm.log.md").display().to_string(),
                        line: 0,
                        message: format!("`{svc}` produced outputs but the log has no step line for it (`N→ {svc} ✓`): whether it ran to its end cannot be told"),
                    });
                }
            }
        }
        Ok(())
    }

    /// Where a node's source snapshot is: `sources/{file name}`, or the
    /// root itself when it is the system's own file.
    fn snapshot_of(&self, src: &str, system_source: Option<&str>) -> Option<String> {
        let name = Path::new(src).file_name()?.to_string_lossy().into_owned();
        let snap = format!("sources/{name}");
        if self.dir.join(&snap).is_file() {
            return Some(snap);
        }
        let root_name = system_source
            .and_then(|s| Path::new(s).file_name())
            .map(|s| s.to_string_lossy().into_owned());
        (root_name.as_deref() == Some(name.as_str())).then(|| "root.prose.md".to_string())
    }

    fn read_log(&self) -> Result<Option<Log>, ImportError> {
        let path = self.dir.join("vm.log.md");
        if !path.is_file() {
            return Ok(None);
        }
        let text = self.read(&path)?;
        parse_log(&path.display().to_string(), &text).map(Some)
    }

    /// Folder names under `workspace/`.
    fn workspace_folders(&self) -> Result<Vec<String>, ImportError> {
        let w = self.dir.join("workspace");
        if !w.is_dir() {
            return Ok(Vec::new());
        }
        Ok(sorted_entries(&w)?
            .into_iter()
            .filter(|p| p.is_dir())
            .map(|p| folder_name(&p))
            .collect())
    }

    /// Every `__error.md` under `workspace/` (any case of the name), and,
    /// in a system, under each folder the manifest names as a node's
    /// workspace (`owners`: folder → node id, the default
    /// `workspace/{id}` among them), each an error of the service whose
    /// folder holds it, however deep (`workspace/svc/sub/__error.md` is
    /// `svc`'s). In a system the node whose folder is the nearest holds
    /// it (every node naming that folder); one in no node's folder is
    /// refused. Without a manifest the folder right under `workspace/`
    /// names the service; one right under `workspace/` belongs to no
    /// service and is refused.
    fn workspace_errors(
        &self,
        owners: Option<&[(PathBuf, String)]>,
    ) -> Result<Vec<RunError>, ImportError> {
        let mut out = Vec::new();
        let mut files: Vec<PathBuf> = Vec::new();
        let w = self.dir.join("workspace");
        if w.is_dir() {
            for p in entries_with_hidden(&w)?.into_iter().filter(|p| !p.is_dir()) {
                if is_error_file(&p) {
                    files.push(p);
                } else {
                    self.no_error_report(&p)?;
                }
            }
            for svc in self.workspace_folders()? {
                let mut seen = 0usize;
                self.error_files_in(&w.join(&svc), 0, &mut seen, &mut |f| files.push(f))?;
            }
        }
        for (rel, _) in owners.unwrap_or_default() {
            let d = self.dir.join(rel);
            // A folder under `workspace/` was looked through above.
            if d.is_dir() && !rel.starts_with("workspace") {
                self.check_real_inside(&d)?;
                let mut seen = 0usize;
                self.error_files_in(&d, 0, &mut seen, &mut |f| files.push(f))?;
            }
        }
        let mut read: BTreeSet<String> = BTreeSet::new();
        let mut found: Vec<(String, PathBuf)> = Vec::new();
        for f in files {
            let rel = self.rel(&f);
            if !read.insert(rel.clone()) {
                continue;
            }
            let no_owner = |message: &str| ImportError::RunFile {
                file: f.display().to_string(),
                line: 0,
                message: message.into(),
            };
            match owners {
                Some(owners) => {
                    let at = Path::new(&rel);
                    let nearest = owners
                        .iter()
                        .filter(|(o, _)| at.starts_with(o))
                        .map(|(o, _)| o.components().count())
                        .max()
                        .ok_or_else(|| no_owner("an error file in no node's workspace (`workspace/{node id}/`, or the node's workspacePath): whose error it is cannot be told"))?;
                    for (o, id) in owners {
                        if at.starts_with(o) && o.components().count() == nearest {
                            found.push((id.clone(), f.clone()));
                        }
                    }
                }
                None => {
                    let svc = folder_of(&rel, "workspace")
                        .filter(|_| Path::new(&rel).components().count() > 2)
                        .ok_or_else(|| no_owner("an error file right under workspace/ names no service: it belongs in workspace/{service}/"))?;
                    found.push((svc, f.clone()));
                }
            }
        }
        for (svc, f) in found {
            let text = self.read(&f)?;
            let recorded =
                read_error_file(&text).map_err(|(line, message)| ImportError::RunFile {
                    file: f.display().to_string(),
                    line,
                    message,
                })?;
            for (name, message) in recorded {
                out.push(RunError {
                    service: svc.clone(),
                    name: pactum_core::text::truncate_chars(&name, 200),
                    message: pactum_core::text::truncate_chars(message.trim(), MAX_ERROR_CHARS),
                    source: self.rel(&f),
                    ends_run: false,
                });
            }
        }
        Ok(out)
    }

    /// Refuses an `__error.md` (any case of the name) outside every
    /// folder [`Ctx::workspace_errors`] reads — the run's root,
    /// `bindings/`, an output folder, `sources/`: an error recorded
    /// there is never ignored. Every other file there that no part of the
    /// run reads (`known`: relative paths of the root, the manifest, the
    /// log, the snapshots, the inputs and the declared outputs) is read
    /// for an error report ([`Ctx::no_error_report`]), hidden files too.
    /// `workspace/` and `imports/` (read as runs of their own) are not
    /// looked through here; links to folders are not followed.
    fn no_stray_error_files(
        &self,
        owners: Option<&[(PathBuf, String)]>,
        known: &BTreeSet<String>,
    ) -> Result<(), ImportError> {
        let owned = |rel: &Path| {
            owners
                .unwrap_or_default()
                .iter()
                .any(|(o, _)| rel.starts_with(o))
        };
        let mut stack = vec![(self.dir.to_path_buf(), 0usize)];
        let mut seen = 0usize;
        while let Some((d, level)) = stack.pop() {
            for p in entries_with_hidden(&d)? {
                seen += 1;
                if seen > MAX_WALK_ENTRIES {
                    return Err(ImportError::RunFile {
                        file: self.dir.display().to_string(),
                        line: 0,
                        message: format!("more than {MAX_WALK_ENTRIES} entries: the run's files cannot all be checked for an __error.md"),
                    });
                }
                let rel = PathBuf::from(self.rel(&p));
                if level == 0
                    && (rel == Path::new("workspace")
                        || rel.to_string_lossy().eq_ignore_ascii_case("imports"))
                {
                    continue;
                }
                if owned(&rel) {
                    continue;
                }
                let ft = std::fs::symlink_metadata(&p).map_err(io(&p))?.file_type();
                if is_error_file(&p) {
                    return Err(ImportError::RunFile {
                        file: p.display().to_string(),
                        line: 0,
                        message: "an error file outside every service's workspace (`workspace/{service}/`, or a node's workspacePath): whose error it is cannot be told, and it is never ignored".into(),
                    });
                }
                if ft.is_dir() {
                    if level < MAX_WALK_DEPTH {
                        stack.push((p, level + 1));
                    }
                } else if !known.contains(&self.rel(&p)) {
                    self.no_error_report(&p)?;
                }
            }
        }
        Ok(())
    }

    /// Calls `found` with each error file below `dir`, sorted, the
    /// service folder's own first. Deeper than [`MAX_WORKSPACE_DEPTH`]
    /// folders, or more than [`MAX_WORKSPACE_ENTRIES`] entries in one
    /// service folder, is refused: an error file there could not be seen.
    fn error_files_in(
        &self,
        dir: &Path,
        depth: usize,
        seen: &mut usize,
        found: &mut dyn FnMut(PathBuf),
    ) -> Result<(), ImportError> {
        let entries = entries_with_hidden(dir)?;
        *seen += entries.len();
        if *seen > MAX_WORKSPACE_ENTRIES {
            return Err(ImportError::RunFile {
                file: dir.display().to_string(),
                line: 0,
                message: format!(
                    "more than {MAX_WORKSPACE_ENTRIES} entries in one service's workspace folder: pactum cannot look through it for an __error.md"
                ),
            });
        }
        for p in entries.iter().filter(|p| !p.is_dir()) {
            if is_error_file(p) {
                found(p.clone());
            } else {
                self.no_error_report(p)?;
            }
        }
        for p in entries.iter().filter(|p| p.is_dir()) {
            if is_error_file(p) {
                return Err(ImportError::RunFile {
                    file: p.display().to_string(),
                    line: 0,
                    message: "a folder named __error.md: an error file is a file starting `# Error: {error-name}`".into(),
                });
            }
            if depth + 1 > MAX_WORKSPACE_DEPTH {
                return Err(ImportError::RunFile {
                    file: p.display().to_string(),
                    line: 0,
                    message: format!(
                        "folders nested deeper than {MAX_WORKSPACE_DEPTH} levels in a service's workspace: pactum cannot look through them for an __error.md"
                    ),
                });
            }
            self.check_real_inside(p)?;
            self.error_files_in(p, depth + 1, seen, found)?;
        }
        Ok(())
    }
}

impl Ctx<'_> {
    /// Refuses a file `p` that no part of the run reads (a workspace
    /// file, a scratch file anywhere, a hidden file) when it reads as an
    /// error report ([`error_report_in`]): a reader takes it for the
    /// service's error, so whether the service failed cannot be told.
    /// Up to [`MAX_FILE_BYTES`] are read, as UTF-8 or (with a byte-order
    /// mark) UTF-16, invalid bytes replaced: a scratch file is never
    /// refused for its encoding. A compressed file, or a larger one
    /// showing no text in all that is read, cannot be looked at and is
    /// refused.
    fn no_error_report(&self, p: &Path) -> Result<(), ImportError> {
        use std::io::Read;
        self.check_real_inside(p)?;
        let meta = std::fs::metadata(p).map_err(io(p))?;
        if !meta.is_file() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        std::fs::File::open(p)
            .map_err(io(p))?
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io(p))?;
        let refuse = |line: usize, message: String| ImportError::RunFile {
            file: p.display().to_string(),
            line,
            message,
        };
        if let Some(format) = compressed_format(&bytes) {
            return Err(refuse(0, format!("a {format}-compressed file pactum cannot read: it may be an error report, so whether the service failed cannot be told (keep notes and logs in a run as text)")));
        }
        let cut = bytes.len() as u64 > MAX_FILE_BYTES;
        bytes.truncate(usize::try_from(MAX_FILE_BYTES).unwrap_or(usize::MAX));
        match error_report_in(&sniffed_text(&bytes), names_report(p)) {
            Sniffed::Report(line, why) => Err(refuse(line + 1, format!("{why}, but the file is no `__error.md`: a reader takes it for the service's error, so whether the service failed cannot be told"))),
            Sniffed::NoText if cut => Err(refuse(0, format!("no text in its first {MAX_FILE_BYTES} bytes, the most pactum reads from one file: whether it is an error report cannot be told"))),
            Sniffed::NoText | Sniffed::Text => Ok(()),
        }
    }
}

/// What [`error_report_in`] found in a file's text.
enum Sniffed {
    /// A line (0-based) that makes it an error report, and why.
    Report(usize, String),
    /// No text at all: blank, invisible characters or comments only.
    NoText,
    /// Text, none of it an error report.
    Text,
}

/// Whether `text` (a file no part of the run reads) is an error report:
/// its opening (its first line of text, or its first heading, with and
/// without HTML comments) reads like one ([`opens_like_error_report`]);
/// any line outside code states an error ([`states_error`]); or, for a
/// file named like a report (`named`: [`names_report`]), any line reads
/// like an error at all. A JSON file is read as JSON: it is a report
/// when its object has an `error`-like key holding something.
fn error_report_in(text: &str, named: bool) -> Sniffed {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}')) {
        return match v {
            serde_json::Value::String(s) => error_report_in(&s, named),
            serde_json::Value::Object(o) => {
                let report = o.iter().find(|(k, v)| {
                    let k = k.to_lowercase();
                    REPORT_KEYS.contains(&k.trim_matches(|c: char| !c.is_alphanumeric()))
                        && !match v {
                            serde_json::Value::Null | serde_json::Value::Bool(false) => true,
                            serde_json::Value::String(s) => s.trim().is_empty(),
                            serde_json::Value::Array(a) => a.is_empty(),
                            serde_json::Value::Object(o) => o.is_empty(),
                            serde_json::Value::Number(n) => n.as_f64() == Some(0.0),
                            serde_json::Value::Bool(true) => false,
                        }
                });
                match report {
                    Some((k, _)) => {
                        let quoted = format!("\"{k}\"");
                        let line = text.lines().position(|l| l.contains(&quoted)).unwrap_or(0);
                        Sniffed::Report(
                            line,
                            format!("a JSON object with an `{}` key holding a value", shown(k)),
                        )
                    }
                    // A status saying the work failed, as an output's is
                    // read (`"status": "failed"`, `"ok": false`).
                    None if o.iter().any(|(k, v)| {
                        crate::grade::failed_status(&k.to_lowercase(), v)
                    }) =>
                    {
                        Sniffed::Report(
                        0,
                        "a JSON object reporting a failed status (`\"status\": \"failed\"`, `\"ok\": false`)".into(),
                        )
                    }
                    None => Sniffed::Text,
                }
            }
            _ => Sniffed::Text,
        };
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let blanked = comments_blanked(text);
    let shown_lines: Vec<&str> = blanked.split('\n').collect();
    let has_text = |l: &&str| !l.trim().is_empty() && !visible(l).trim().is_empty();
    let is_heading = |l: &&str| l.contains('#') && visible(l).trim_start().starts_with('#');
    let opening = [
        lines.iter().position(has_text),
        lines.iter().position(is_heading),
        shown_lines.iter().position(has_text),
        shown_lines.iter().position(is_heading),
    ];
    for at in opening.into_iter().flatten() {
        for l in [lines[at], shown_lines.get(at).copied().unwrap_or_default()] {
            if (reads_like_error(l) || opens_like_error_report(l)) && !states_no_error(l) {
                return Sniffed::Report(at, "it opens like an error report".into());
            }
        }
    }
    let mut fence: Option<(char, usize)> = None;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.is_empty() {
            continue;
        }
        let mark = t.chars().next().filter(|c| matches!(c, '`' | '~'));
        if let Some(c) = mark {
            let n = t.chars().take_while(|x| *x == c).count();
            if n >= 3 {
                match fence {
                    None => fence = Some((c, n)),
                    Some((open, len)) if open == c && n >= len && t[n..].trim().is_empty() => {
                        fence = None;
                    }
                    Some(_) => {}
                }
                continue;
            }
        }
        if named
            && (reads_like_error(l) || opens_like_error_report(l) || mentions_error(l))
            && !states_no_error(l)
        {
            return Sniffed::Report(
                i,
                "it is named like an error or status report and holds a line that reads like an error"
                    .into(),
            );
        }
        if fence.is_none() && states_error(l) {
            return Sniffed::Report(
                i,
                "it holds, outside code, a line that states an error (`Error: x`, a traceback, a panic)"
                    .into(),
            );
        }
    }
    if shown_lines.iter().any(has_text) {
        Sniffed::Text
    } else {
        Sniffed::NoText
    }
}

/// Keys of a JSON object that hold an error report when they hold
/// anything (`"error": null` holds nothing).
const REPORT_KEYS: [&str; 7] = [
    "error",
    "errors",
    "exception",
    "traceback",
    "stacktrace",
    "fatal",
    "panic",
];

/// `text` with each HTML comment's characters made spaces, its line
/// breaks kept: the text a reader sees, line for line.
fn comments_blanked(text: &str) -> String {
    use std::sync::LazyLock;
    static COMMENT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?s)<!--.*?(?:-->|\z)").unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    COMMENT
        .replace_all(text, |c: &regex::Captures| {
            c[0].chars()
                .map(|ch| if ch == '\n' { '\n' } else { ' ' })
                .collect::<String>()
        })
        .into_owned()
}

/// A line as it reads once rendered, its opening marks (heading, quote,
/// list, a log's brackets) dropped: what [`states_error`] and
/// [`opens_like_error_report`] look at.
fn bare_line(line: &str) -> String {
    let shown = inline_marks_removed(&visible(line));
    let t = shown.trim_start_matches(|c: char| {
        matches!(c, '#' | '>' | '-' | '+' | '*') || c.is_whitespace()
    });
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let t = if digits > 0 && t[digits..].starts_with(['.', ')']) {
        t[digits + 1..].trim_start()
    } else {
        t
    };
    t.to_string()
}

/// Whether a line, anywhere outside code, states an error: `Error: x`,
/// `Fatal: x`, `Exception: x`, `Failure: x` (not `Error: none`), a
/// language's error line (`RuntimeError: x`,
/// `java.lang.NullPointerException: x`), a Python traceback's first line
/// or a Rust panic's.
fn states_error(line: &str) -> bool {
    use std::sync::LazyLock;
    static STATES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"^(?:(?i:errors?|fatal|panic|exception|failure)\s*:\s*\S",
            r"|(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$]?[\w$]*(?:Error|Exception)\s*:",
            r"|(?i:traceback \(most recent call last\))",
            r"|thread '[^']*' panicked)",
        ))
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let bare = bare_line(line);
    STATES.is_match(&bare) && !states_no_error(line)
}

/// Whether a line that opens a file reads like an error report in any
/// reader's words: what [`states_error`] takes, a level word opening it
/// (`FATAL: x`, `Failed: x`, `panic: x`, `FATAL x`, `[PANIC] x`) or a
/// log line's time then a level word (`2026-12-01T10:15:31Z error x`).
pub(crate) fn opens_like_error_report(line: &str) -> bool {
    use std::sync::LazyLock;
    static LEVEL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"^(?:(?i:fatal|panic|failed|failure|crashed|aborted)\s*[:\-\u{2013}\u{2014}]",
            r"|(?:FATAL|PANIC|FAILED|FAILURE|EXCEPTION|TRACEBACK)\b)",
        ))
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    static LOGGED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"^\[?(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\d{2}:\d{2}:\d{2})",
            r"(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s+[\[(<]?",
            r"(?i:errors?|err|fatal|panic|critical|crit|emerg|emergency|alert|failed|failure|exception)\b",
        ))
        .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let bare = bare_line(line);
    let shown = visible(line);
    states_error(line) || LEVEL.is_match(&bare) || LOGGED.is_match(shown.trim_start())
}

/// Whether a line names an error with a colon anywhere in it (`step 3
/// failed: Error: timeout`), or says the work failed (`Status: FAILED`,
/// `search crashed`): in a file named like a report, such a line is its
/// error.
fn mentions_error(line: &str) -> bool {
    use std::sync::LazyLock;
    static MENTION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:errors?|fatal|panic|exception|traceback)\b\s*:|\b(?:failed|failure|crashed|aborted|killed)\b")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    MENTION.is_match(&inline_marks_removed(&visible(line)))
}

/// Whether a line labelled as an error says there is none: `Errors:
/// none`, `Error: 0`, `Failures: n/a`.
fn states_no_error(line: &str) -> bool {
    let bare = bare_line(line);
    let Some((label, value)) = bare.split_once(':') else {
        return false;
    };
    let label = label.trim().to_lowercase();
    let value = value.trim().trim_end_matches('.').to_lowercase();
    label.split_whitespace().count() <= 3
        && [
            "error",
            "errors",
            "failure",
            "failures",
            "exception",
            "exceptions",
        ]
        .iter()
        .any(|w| label.ends_with(w))
        && [
            "none",
            "no",
            "0",
            "null",
            "nil",
            "n/a",
            "na",
            "false",
            "-",
            "\u{2013}",
            "\u{2014}",
            "nothing",
            "no errors",
            "none so far",
        ]
        .contains(&value.as_str())
}

/// The compression format `head` opens with, when it is one: such a file
/// cannot be read for an error report.
fn compressed_format(head: &[u8]) -> Option<&'static str> {
    match head {
        [0x1f, 0x8b, ..] => Some("gzip"),
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some("bzip2"),
        [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Some("xz"),
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Some("zstd"),
        [b'P', b'K', 0x03, 0x04, ..] | [b'P', b'K', 0x05, 0x06, ..] => Some("zip"),
        [b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c, ..] => Some("7z"),
        [0x04, 0x22, 0x4d, 0x18, ..] => Some("lz4"),
        _ => None,
    }
}

/// A file's text as [`Ctx::no_error_report`] reads it: [`text_of_head`],
/// line endings made `\n` and terminal colour codes (ANSI escape
/// sequences) dropped, so `\e[31mERROR\e[0m x` reads `ERROR x`.
fn sniffed_text(bytes: &[u8]) -> String {
    use std::sync::LazyLock;
    static ANSI: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    let text = text_of_head(bytes);
    let text = if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    };
    if text.contains('\x1b') {
        ANSI.replace_all(&text, "").into_owned()
    } else {
        text
    }
}

/// The errors an `__error.md` records, each `(name, message)`, read as
/// the file renders: every heading starting with the word `Error`
/// (`# Error: x`, `# Error x`, `Error: x` underlined, in a quote or a
/// list item, emphasis and invisible characters aside) is one, its
/// message the lines up to the next. A line outside code that reads like
/// an error written another way (`**Error:** x`, a table cell, an HTML
/// heading or comment, `#Error:`, `# Errors:`) is refused with its line:
/// an error there is never dropped. The file must open with an error.
fn read_error_file(text: &str) -> Result<Vec<(String, String)>, (usize, String)> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |at: usize| starts.partition_point(|s| *s <= at).max(1) - 1;
    let lines: Vec<&str> = text.split('\n').collect();
    // Lines read already: code (the message's, never an error) and headings.
    let mut done = vec![false; lines.len() + 1];
    // (first line, last line, level, text) of every heading.
    let mut headings: Vec<(usize, usize, usize, String)> = Vec::new();
    let mut heading: Option<(usize, usize, String)> = None;
    for (ev, r) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match ev {
            Event::Start(Tag::CodeBlock(_)) => {
                let last = line_of(r.end.saturating_sub(1).max(r.start));
                for d in &mut done[line_of(r.start)..=last] {
                    *d = true;
                }
            }
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((r.start, level as usize, String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            // A comment or tag inside a heading is not scanned as a line.
            Event::InlineHtml(t) if heading.is_some() && reads_like_error(&t) => {
                return Err((line_of(r.start) + 1, "an error inside HTML in a heading (`<!-- Error: x -->`): whether it records one cannot be told".into()));
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, h)) = heading.as_mut() {
                    h.push(' ');
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, level, h)) = heading.take() {
                    let (first, last) =
                        (line_of(start), line_of(r.end.saturating_sub(1).max(start)));
                    for d in &mut done[first..=last] {
                        *d = true;
                    }
                    headings.push((first, last, level, h));
                }
            }
            _ => {}
        }
    }
    // (first line, last line, name) of each error heading.
    let mut errors: Vec<(usize, usize, String)> = Vec::new();
    let mut first_level = None;
    for (first, last, level, h) in headings {
        // Control characters stay for `error_key` to strip whole escapes.
        let shown: String = {
            use unicode_normalization::UnicodeNormalization;
            h.chars()
                .filter(|c| c.is_control() || !pactum_core::text::shown_as_code_point(*c))
                .nfkc()
                .collect()
        };
        let t = shown.trim_start_matches(|c: char| !c.is_alphanumeric());
        let word_len = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
        let word = rendered::lookalike_fold(&t[..word_len]);
        let rest = t[word_len..].trim_start();
        let colon = rest.starts_with(':');
        if word == "errors" {
            return Err((first + 1, "an `Errors` heading: write each error as a heading of its own, `# Error: {error-name}`".into()));
        }
        if word != "error" {
            if reads_like_error(&shown) || opens_like_error_report(&shown) {
                return Err((first + 1, "a heading that reads like an error but does not start `Error:` (`# Error: {error-name}`): whether it records one cannot be told".into()));
            }
            continue;
        }
        let name = rest
            .trim_start_matches([':', '-', '\u{2013}', '\u{2014}'])
            .trim();
        // A heading under an error naming a part of its message (`##
        // Error details`) is the message's.
        let part = !colon
            && first_level.is_some_and(|l| level > l)
            && matches!(
                rendered::lookalike_fold(name).as_str(),
                "detalls"
                    | "message"
                    | "messages"
                    | "trace"
                    | "stack"
                    | "stacktrace"
                    | "stack trace"
                    | "log"
                    | "logs"
                    | "output"
                    | "context"
                    | "lnfo"
                    | "lnformatlon"
                    | "descrlptlon"
                    | "report"
                    | "text"
            );
        if part {
            continue;
        }
        if name.is_empty() {
            return Err((first + 1, "`# Error:` names no error".into()));
        }
        // `# Error: x (Error: y)`: a second error inside the first's name.
        if reads_like_error(name) {
            return Err((first + 1, "an error heading whose name holds another error (`# Error: x (Error: y)`): write each error as a heading of its own".into()));
        }
        first_level.get_or_insert(level);
        errors.push((first, last, name.to_string()));
    }
    let opening = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
    if errors.first().is_none_or(|(first, _, _)| *first != opening) {
        return Err((
            opening + 1,
            "an error file starts with `# Error: {error-name}`".into(),
        ));
    }
    for (i, l) in lines.iter().enumerate() {
        // (`FATAL: x`, `panic: x`, `RuntimeError: x`, a traceback too.)
        if !done[i] && (reads_like_error(l) || opens_like_error_report(l)) {
            return Err((i + 1, "a line that reads like an error but is not an `Error:` heading (`# Error: {error-name}`): whether it records a second error cannot be told (a tool's output quoted in the message goes in a fenced code block, which is read as the message)".into()));
        }
    }
    let mut out = Vec::new();
    for (k, (_, last, name)) in errors.iter().enumerate() {
        let until = errors.get(k + 1).map_or(lines.len(), |(f, _, _)| *f);
        let message = lines[(last + 1).min(until)..until].join("\n");
        out.push((name.clone(), message));
    }
    Ok(out)
}

/// `s` as a reader sees its letters: character references decoded,
/// invisible characters dropped, NFKC-folded.
fn visible(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    crate::check::decode_entities(s)
        .chars()
        .filter(|c| !pactum_core::text::shown_as_code_point(*c))
        .nfkc()
        .collect()
}

/// Whether a line (or a heading's text) reads like an error declared in
/// it: a part of it (table cells, text between HTML tags or comment
/// marks) that, markup aside, starts with the word `Error` or `Errors`
/// then a mark (`Error: x`, `ERROR - x`, `[ERROR] x`, `**Error** x`), or
/// whose text before its first `:` is up to three words ending in
/// `error` (`Fatal error: x`). `Error handling retried` is prose.
pub(crate) fn reads_like_error(line: &str) -> bool {
    reads_like_error_as_written(line) || reads_like_error_as_written(&inline_marks_removed(line))
}

/// `line` as it reads once rendered inline: comments and tags dropped, a
/// link's target dropped (its text kept), and emphasis, code and
/// bracket marks removed, so `Err**or**: x`, `Er<!-- -->ror: x` and
/// `[Err](x)or: x` read `Error: x`.
fn inline_marks_removed(line: &str) -> String {
    use std::sync::LazyLock;
    static MARKUP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"<!--.*?-->|<[^<>]*>|\]\([^()]*\)")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    MARKUP
        .replace_all(line, "")
        .chars()
        .filter(|c| !matches!(c, '*' | '_' | '`' | '~' | '[' | ']'))
        .collect()
}

/// [`reads_like_error`] of `line` as written.
fn reads_like_error_as_written(line: &str) -> bool {
    let shown = visible(line);
    // Each part between marks that may set text apart (a table cell, a
    // tag or comment, a quoted title or attribute, brackets) is read on
    // its own: `<abbr title="Error: x">` too.
    let parts: Vec<&str> = shown
        .split([
            '|', '<', '>', '"', '(', ')', '[', ']', '{', '}', '=', '\u{201c}', '\u{201d}',
            '\u{ab}', '\u{bb}',
        ])
        .collect();
    parts.iter().enumerate().any(|(k, p)| {
        let mut t = p.trim_start();
        let list_number = t.chars().take_while(char::is_ascii_digit).count();
        if list_number > 0 && t[list_number..].starts_with(['.', ')']) {
            t = &t[list_number + 1..];
        }
        let bare = t.trim_start_matches(|c: char| !c.is_alphanumeric());
        let marked = k > 0 || bare.len() != p.trim_start().len();
        let word_len = bare
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(bare.len());
        let word = rendered::lookalike_fold(&bare[..word_len]);
        let after = bare[word_len..].trim_start();
        // `Error 2: x`, `Error #2 - x`: a numbered error.
        let numbered = after
            .trim_start_matches('#')
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        let is_numbered = after
            .trim_start_matches('#')
            .starts_with(|c: char| c.is_ascii_digit())
            && numbered.starts_with([':', '-', '\u{2013}', '\u{2014}', ')', ']']);
        // `ERROR crashed`: the word in capitals opening the line.
        let shouted = k == 0 && bare[..word_len].chars().all(|c| c.is_uppercase()) && word_len > 1;
        let starts = (word == "error" || word == "errors")
            && (marked
                || after.is_empty()
                || is_numbered
                || shouted
                || after.starts_with([':', '-', '\u{2013}', '\u{2014}', ']', ')', '=']));
        // The sentence the colon ends (`It failed; error: x`).
        let lead = bare
            .split(':')
            .next()
            .unwrap_or("")
            .rsplit(['.', '!', '?', ';'])
            .next()
            .unwrap_or("");
        let labelled = bare.contains(':')
            && lead.split_whitespace().count() <= 3
            && lead.split_whitespace().last().is_some_and(|w| {
                let w = rendered::lookalike_fold(w.trim_matches(|c: char| !c.is_alphanumeric()));
                w == "error" || w == "errors"
            });
        starts || labelled
    })
}

/// A contract's name or snapshot file name as a reader tells them apart:
/// [`rendered::lookalike_fold`]ed, white space dropped, and the
/// extensions a contract file is written with stripped (`SVC.prose.MD`
/// and `svc` are one).
fn snapshot_key(name: &str) -> String {
    name_key(name, &["md", "prose", "markdown", "txt"])
}

/// The text of a file's first bytes: UTF-16 when it opens with a
/// byte-order mark, else UTF-8 with invalid bytes (and a character cut
/// at the end) replaced.
fn text_of_head(head: &[u8]) -> String {
    let utf16 = |le: bool| {
        let units: Vec<u16> = head[2..]
            .chunks_exact(2)
            .map(|b| {
                if le {
                    u16::from_le_bytes([b[0], b[1]])
                } else {
                    u16::from_be_bytes([b[0], b[1]])
                }
            })
            .collect();
        String::from_utf16_lossy(&units)
    };
    match head {
        [0xff, 0xfe, ..] => utf16(true),
        [0xfe, 0xff, ..] => utf16(false),
        _ => {
            String::from_utf8_lossy(head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head)).into_owned()
        }
    }
}

/// Whether `p` is named like `__error.md` as a reader sees the name: in
/// any case, with any extension or none (`__error.txt`, `__error`), and
/// through invisible characters, white space before the extension and
/// look-alike letters (`__еrror.md` with a Cyrillic `е`). A file a reader
/// takes for an error file is never passed over.
fn is_error_file(p: &Path) -> bool {
    use std::sync::LazyLock;
    p.file_name().is_some_and(|n| {
        let name = n.to_string_lossy();
        let stem = name.split('.').next().unwrap_or_default();
        let stem: String = stem
            .chars()
            .filter(|c| !pactum_core::text::shown_as_code_point(*c))
            .collect();
        static ERROR_STEM: LazyLock<String> = LazyLock::new(|| rendered::lookalike_fold("__error"));
        rendered::lookalike_fold(stem.trim()) == *ERROR_STEM
    })
}

/// Whether the name of `p`, as a reader sees it ([`rendered::lookalike_fold`]),
/// reads like an error or status report: it holds `error` anywhere
/// (`__error (1).md`, `error.md`, `__errors.md`), or a word of it is one
/// a report is named with (`status.md`, `failure.log`, `stderr.txt`,
/// `crash.txt`), or it is a log (`.log`, `.err`) in a folder of logs.
fn names_report(p: &Path) -> bool {
    const WORDS: [&str; 17] = [
        "err",
        "errors",
        "stderr",
        "status",
        "failure",
        "failures",
        "failed",
        "fail",
        "crash",
        "crashed",
        "crashes",
        "crashlog",
        "panic",
        "traceback",
        "exception",
        "exceptions",
        "fatal",
    ];
    let Some(name) = p.file_name() else {
        return false;
    };
    let name = rendered::lookalike_fold(&name.to_string_lossy());
    let folder = p
        .parent()
        .and_then(Path::file_name)
        .map(|f| rendered::lookalike_fold(&f.to_string_lossy()))
        .unwrap_or_default();
    let is = |s: &str, w: &str| s == rendered::lookalike_fold(w);
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    name.contains(rendered::lookalike_fold("error").as_str())
        || name
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| WORDS.iter().any(|x| is(w, x)))
        || is(ext, "err")
        || (is(ext, "log") && (is(&folder, "log") || is(&folder, "logs")))
}

/// The folder right under `top` that the relative path `rel` lies in
/// (`bindings/writer/brief.md` under `bindings` is `writer`).
fn folder_of(rel: &str, top: &str) -> Option<String> {
    let mut parts = Path::new(rel).components().filter_map(|c| match c {
        Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
        _ => None,
    });
    (parts.next().as_deref() == Some(top))
        .then(|| parts.next())
        .flatten()
}

/// A value from a run, as an error message quotes it: one line, bounded.
fn shown(s: &str) -> String {
    pactum_core::text::one_line(s, 200)
}

/// Every node id of `graph` names one folder (`bindings/{id}/`,
/// `workspace/{id}/`) and one contract, and every output name one file:
/// each must be one name ([`is_one_name`]), and no two nodes share an id.
/// The error is (field, message).
fn check_names(graph: &[RawNode]) -> Result<(), (String, String)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, node) in graph.iter().enumerate() {
        let id = node.id.as_str();
        let field = format!("graph[{i}].id");
        if !is_one_name(id) {
            return Err((
                field,
                format!(
                    "`{}` is not a node id: a node's bindings and workspace are folders named after it, so an id may not be empty, hold `/`, `\\` or a control character, or be `.` or `..`",
                    shown(id)
                ),
            ));
        }
        for (j, o) in node.outputs.iter().enumerate() {
            if !is_one_name(&o.name) {
                return Err((
                    format!("graph[{i}].outputs[{j}].name"),
                    format!(
                        "`{}` is not an output name: an output is bound at a file named after it, so a name may not be empty, hold `/`, `\\` or a control character, or be `.` or `..`",
                        shown(&o.name)
                    ),
                ));
            }
        }
        if let Some(first) = seen.insert(id, i) {
            return Err((
                field,
                format!(
                    "`{}` is also the id of graph[{first}]: two nodes with one id would be graded as one contract",
                    shown(id)
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `s` can name one file or folder of a run: not blank, no path
/// separator or control character, not `.` or `..`.
fn is_one_name(s: &str) -> bool {
    !(s.trim().is_empty()
        || s == "."
        || s == ".."
        || s.chars().any(|c| c == '/' || c == '\\' || c.is_control()))
}

/// The contract of node `id` in its source file: an inline `## section`
/// when the id is `{file}.{section}` and the file declares it, else the
/// file's top level (or its one inline service).
fn node_contract(file: &ParsedFile, id: &str) -> Option<ParsedContract> {
    if let Some(c) = file.inline_service(id) {
        return Some(c.clone());
    }
    if let Some((_, section)) = id.rsplit_once('.') {
        if let Some(c) = file.inline_service(section) {
            return Some(c.clone());
        }
        if !file.inline.is_empty() {
            return None;
        }
    }
    if !file.main.has_commitments && file.inline.len() == 1 {
        return Some(file.inline[0].clone());
    }
    if !file.inline.is_empty() && !file.main.has_commitments {
        return None;
    }
    Some(file.main.clone())
}

/// Whether `time` is an instant a log's end line may carry: an RFC 3339
/// date and time (`2026-12-01T10:15:31Z`, fractional seconds and a
/// `±HH:MM` offset allowed) whose date and time exist (no month 13, no
/// February 30, no `T25:61`), after the Unix epoch: the zero date
/// `0000-00-00`, the epoch and any time before 2000 are a template's or
/// a default's, not a clock's, and so is a time in 2100 or later (in
/// UTC, its offset applied).
fn is_log_time(time: &str) -> bool {
    // humantime reads only `Z` (or `+00:00`): another offset is checked
    // here and the local time read as if in UTC (its validity is the
    // same).
    let b = time.as_bytes();
    let utc = match b.len().checked_sub(6).map(|i| (i, &b[i..])) {
        Some((i, [b'+' | b'-', h1, h2, b':', m1, m2]))
            if i >= 19 && [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()) =>
        {
            let hours = (h1 - b'0') * 10 + (h2 - b'0');
            let minutes = (m1 - b'0') * 10 + (m2 - b'0');
            if hours > 23 || minutes > 59 {
                return false;
            }
            let offset = u64::from(hours) * 3600 + u64::from(minutes) * 60;
            (format!("{}Z", &time[..i]), offset, b[i] == b'-')
        }
        _ => (time.to_string(), 0, false),
    };
    let (local, offset, behind) = utc;
    // The instant in UTC: a local time behind UTC (`-14:00`) is later.
    let Ok(t) = humantime::parse_rfc3339(&local) else {
        return false;
    };
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let utc = if behind {
        secs.saturating_add(offset)
    } else {
        secs.saturating_sub(offset)
    };
    // From 2000-01-01 (OpenProse is younger; an earlier time is a
    // default, the epoch and a second after it) to before
    // 2100-01-01T00:00:00Z (a sentinel, `9999-12-31T23:59:59Z`, "never").
    (946_684_800..4_102_444_800).contains(&utc)
}

/// `vm.log.md`: `# run:{id} {name}`, `root: {file}`, step lines
/// `N→ svc ✓` / `N→ svc ✗ {error}`, and last `---end {time}` /
/// `---error {time} {msg}`. Other lines are notes; a line with a step
/// arrow or a mark that is not a step line, an end line of another form,
/// a line after the end, or no end line at all (a run cut short or still
/// going) is an error (never skipped silently).
fn parse_log(file: &str, text: &str) -> Result<Log, ImportError> {
    #[allow(clippy::unwrap_used)] // a constant pattern
    let step = Regex::new(r"^(\d+)\s*→\s*(\S+)\s+(✓|✗)(?:\s+(.*))?$").unwrap();
    #[allow(clippy::unwrap_used)] // a constant pattern
    let end_line =
        Regex::new(r"^---(end|error)[ \t]+(\d{4}-\d{2}-\d{2}T\S+)(?:[ \t]+(.*))?$").unwrap();
    let bad_end = |n: usize, why: &str| {
        ImportError::RunFile {
        file: file.into(),
        line: n,
        message: format!("{why} (expected a last line `---end {{time}}` or `---error {{time}} {{message}}`): a run that did not end cleanly is not graded"),
    }
    };
    // (line of the end line, last non-blank line).
    let mut end: Option<usize> = None;
    let mut last = 0;
    let mut log = Log {
        id: None,
        program: None,
        ok: Vec::new(),
        errors: Vec::new(),
        run_error: None,
        steps: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        if line.is_empty() {
            continue;
        }
        last = n;
        if end.is_some() {
            return Err(bad_end(n, "a line after the run's end line"));
        }
        // An end line is exactly one form; a variant (`--- error`,
        // `---ERROR`, no time) is never skipped as a note.
        let word = line
            .trim_start_matches('-')
            .trim_start()
            .to_ascii_lowercase();
        if line.starts_with("---") && (word.starts_with("end") || word.starts_with("error")) {
            let Some(c) = end_line.captures(line) else {
                return Err(bad_end(n, "an end line that cannot be read"));
            };
            // A time the VM wrote, not a template's mask (`0000-00-00`)
            // or a date no clock shows (`2026-13-45`, `T25:61`): a log
            // closed by hand is no evidence the run ended.
            if !is_log_time(&c[2]) {
                return Err(bad_end(
                    n,
                    &format!(
                        "an end line whose time `{}` is not an RFC 3339 time (a placeholder or an impossible date)",
                        pactum_core::text::truncate_chars(&c[2], 40)
                    ),
                ));
            }
            end = Some(n);
            if &c[1] == "end" {
                // A clean end is its time alone: anything after it
                // (`run aborted: …`) says the run did not end cleanly.
                if c.get(3).is_some_and(|m| !m.as_str().trim().is_empty()) {
                    return Err(bad_end(n, "an end line with more after its time"));
                }
                continue;
            }
        }
        // The log of this run: its root is `root.prose.md`.
        if let Some(root) = line.strip_prefix("root:") {
            if root.trim() != "root.prose.md" {
                return Err(ImportError::RunFile {
                    file: file.into(),
                    line: n,
                    message: format!(
                        "the log names the root `{}`, not root.prose.md: it is another run's log",
                        pactum_core::text::truncate_chars(root.trim(), 80)
                    ),
                });
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("# run:") {
            let mut words = rest.trim().splitn(2, char::is_whitespace);
            log.id = words.next().filter(|w| !w.is_empty()).map(str::to_string);
            log.program = words
                .next()
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(|w| (n, w.to_string()));
            continue;
        }
        if let Some(rest) = line.strip_prefix("---error") {
            let mut parts = rest.trim().splitn(2, char::is_whitespace);
            let _time = parts.next();
            let msg = parts.next().unwrap_or("").trim();
            log.run_error = Some((n, pactum_core::text::truncate_chars(msg, MAX_ERROR_CHARS)));
            continue;
        }
        // A step line is exactly one form: `✓` and nothing after it, or
        // `✗` and an error, with no second mark (`✓ then ✗` is neither).
        let one_form = |c: &regex::Captures<'_>| match (&c[3], c.get(4)) {
            ("✓", rest) => rest.is_none_or(|r| r.as_str().trim().is_empty()),
            (_, rest) => rest.is_none_or(|r| !r.as_str().contains(['✓', '✗'])),
        };
        if let Some(c) = step.captures(line).filter(one_form) {
            let svc = c[2].to_string();
            log.steps.push((n, svc.clone()));
            if &c[3] == "✓" {
                log.ok.push(svc);
            } else {
                let msg = c.get(4).map_or("", |m| m.as_str()).trim().to_string();
                // The error is the text before its message (`✗
                // search-failed: timed out`), read whole as a heading of
                // `__error.md` is: `✗ Search Failed (timeout)` is
                // `search-failed`, `✗ search-failed-permanently` another.
                let name = pactum_core::text::truncate_chars(
                    msg.split(':').next().unwrap_or("").trim(),
                    MAX_ERROR_CHARS,
                );
                if name.is_empty() {
                    return Err(ImportError::RunFile {
                        file: file.into(),
                        line: n,
                        message: "a failed step (`✗`) names no error".into(),
                    });
                }
                log.errors.push(RunError {
                    service: svc,
                    name,
                    message: pactum_core::text::truncate_chars(&msg, MAX_ERROR_CHARS),
                    source: format!("vm.log.md:{n}"),
                    ends_run: false,
                });
            }
            continue;
        }
        if line.contains('→') || line.contains('✗') || line.contains('✓') {
            return Err(ImportError::RunFile {
                file: file.into(),
                line: n,
                message: "a step line that cannot be read (expected `N→ service ✓` or `N→ service ✗ error`)".into(),
            });
        }
        // Any other line (`ERROR: svc crashed`) may record what went
        // wrong in a form this reader does not know: refused, never
        // skipped.
        return Err(ImportError::RunFile {
            file: file.into(),
            line: n,
            message: "a log line that cannot be read (expected `# run:{id} {program}`, `root: root.prose.md`, `N→ service ✓`, `N→ service ✗ error`, or the end line)".into(),
        });
    }
    if end.is_none() {
        return Err(bad_end(last.max(1), "the log has no end line"));
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines() {
        let log = parse_log(
            "vm.log.md",
            "# run:20260317-143052-a7b3c9 brief\nroot: root.prose.md\n1→ researcher ✗ search-failed: timeout\n2→ writer ✓\n---end 2026-03-17T14:31:00Z\n",
        )
        .expect("reads");
        assert_eq!(log.id.as_deref(), Some("20260317-143052-a7b3c9"));
        assert_eq!(log.ok, vec!["writer".to_string()]);
        assert_eq!(log.errors[0].name, "search-failed");
        assert_eq!(log.errors[0].source, "vm.log.md:3");
        for bad in ["1→ researcher", "x→ y ✓", "1→ a ✗"] {
            assert!(parse_log("vm.log.md", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn caller_bindings_and_headers() {
        assert_eq!(
            parse_caller(
                "f",
                "# topic\nbinding: input\nsource: caller\n---\nquantum dots\n"
            )
            .expect("reads"),
            ("topic".into(), "quantum dots".into())
        );
        assert!(parse_caller("f", "topic\n---\nx").is_err());
        assert!(parse_caller("f", "# topic\nbinding: input\nx").is_err());
        assert!(parse_caller("f", "# topic\nno colon here\n---\nx").is_err());
        assert_eq!(
            strip_output_header(
                "summary",
                "writer",
                "# summary\nbinding: output\nsource: writer\n---\nBody\n"
            ),
            "Body"
        );
        assert_eq!(
            strip_output_header(
                "summary",
                "writer",
                "\u{feff}# summary\nbinding: output\n---\nBody\n"
            ),
            "Body"
        );
        // A heading that is content stays.
        assert_eq!(
            strip_output_header("report", "writer", "# Report\n\nBody\n---\n"),
            "# Report\n\nBody\n---\n"
        );
        // Only OpenProse's own shape is a header: another title, or other
        // keys, are the output's content.
        for text in [
            "# Findings\nStatus: draft\n---\nBody\n",
            "# summary\nauthor: me\n---\nBody\n",
            "# summary\nbinding: output\nauthor: me\n---\nBody\n",
        ] {
            assert_eq!(strip_output_header("summary", "writer", text), text);
        }
    }

    #[test]
    fn paths_stay_inside() {
        assert!(inside("bindings/a/b.md").is_some());
        assert!(inside("./bindings/a.md").is_some());
        for bad in ["", "/etc/passwd", "../x.md", "bindings/../../x", "."] {
            assert!(inside(bad).is_none(), "{bad}");
        }
    }
}
