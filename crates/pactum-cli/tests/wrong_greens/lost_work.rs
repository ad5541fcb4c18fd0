//! No report path overwrites an input or the store; concurrent resumes and store failures lose nothing.
//!
//! * Report paths: a `--json`, `--junit` or `--out` that is an input, the
//!   store (or its `-wal`/`-shm`), or another report — however it is
//!   spelled — is refused with nothing written; a report that cannot be
//!   finished leaves the old one whole.
//! * `strength --out` keeps the files pactum did not write.
//! * Resume: a run another live process holds is refused; a killed
//!   holder is taken over at once; SIGTERM stops a run as Ctrl-C does.
//! * Store failures (damaged, truncated, newer, read-only, full disk,
//!   file-size limit) name their cause, exit 6, and lose nothing.
//!
//! Every test checks that the inputs keep their bytes and the store still
//! lists its runs.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::*;

use crate::common::{
    resume_suite as paced_suite, resume_suite_text, resume_target as target,
    RESUME_PLANNED as PLANNED,
};

// ------------------------------------------------------------- helpers

/// `resume.yaml`, unpaced, as `suite.yaml`.
fn fast_suite(sb: &Sandbox, server: &ScriptedServer) -> PathBuf {
    let text = resume_suite_text(server);
    sb.write(
        "suite.yaml",
        &replace_once(&text, "requests_per_second: 3", "requests_per_second: 200"),
    )
}

/// A sandbox whose store holds one finished run; its id.
fn with_a_run(sb: &Sandbox, server: &ScriptedServer) -> String {
    fast_suite(sb, server);
    assert_code(&sb.run(Path::new("suite.yaml"), &["-j", "4"]), 1);
    only_run(&sb.db())
}

/// A copy of the store `from` at `to`, with the write-ahead log and its
/// index when the run left them (the last connection to close checkpoints;
/// a run's own may not be last): the file alone may not hold the run.
fn copy_store(from: &Path, to: &Path) {
    std::fs::copy(from, to).expect("copy the store");
    for ext in ["-wal", "-shm"] {
        let (mut f, mut t) = (from.as_os_str().to_owned(), to.as_os_str().to_owned());
        f.push(ext);
        t.push(ext);
        if Path::new(&f).exists() {
            std::fs::copy(&f, &t).expect("copy the store's log");
        }
    }
}

/// The bytes of each file.
fn bytes(paths: &[&Path]) -> BTreeMap<PathBuf, Vec<u8>> {
    paths
        .iter()
        .map(|p| (p.to_path_buf(), std::fs::read(p).expect("read")))
        .collect()
}

/// Asserts the store still lists `run_id` (read with `pactum runs`).
#[track_caller]
fn lists(sb: &Sandbox, db: &Path, run_id: &str) {
    let runs = sb.pactum(["runs", "--db", db.to_str().expect("utf-8")]);
    assert_code(&runs, 0);
    assert!(runs.stdout.contains(run_id), "{runs:#?}");
}

/// No temporary report file (`.NAME.XXXX.pactum-tmp`) is left in `dir`.
#[track_caller]
fn no_leftovers(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pactum-tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// `sh -c SCRIPT` in the sandbox, `$PACTUM` naming the binary.
fn sh(sb: &Sandbox, script: &str) -> Run {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(sb.path())
        .env("NO_COLOR", "1")
        .env("PACTUM", env!("CARGO_BIN_EXE_pactum"))
        .output()
        .expect("sh runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Whether this system lets an unprivileged process make its own user and
/// mount namespace (`unshare -rm`): a private tmpfs or read-only mount.
fn user_namespaces() -> bool {
    let ok = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("NOTE: no unprivileged user namespaces here (unshare -rm): the private-mount part of this test did not run; the file-permission and file-size-limit tests still cover it");
    }
    ok
}

fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// `pactum ARGS` as a user permissions apply to (`nobody` via setpriv when
/// the tests run as root, else the current user).
fn pactum_unprivileged(sb: &Sandbox, args: &[&str]) -> Run {
    let mut cmd = if running_as_root() {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_pactum"));
        c
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
    };
    let out = cmd
        .args(args)
        .current_dir(sb.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("pactum runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Waits for a background pactum; its exit code (None: killed) and output.
fn finish(child: Child) -> (Option<i32>, String) {
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// How many times each prompt reached the server.
fn prompts(server: &ScriptedServer) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for b in bodies(server) {
        *m.entry(last_user(&b["body"])).or_default() += 1;
    }
    m
}

// ------------------------------------------------ report paths (C.1)

/// A copy of the AgentDojo example in the sandbox: contracts folder,
/// traces and expectations.
fn grade_inputs(sb: &Sandbox) {
    let ex = root().join("examples/agentdojo");
    std::fs::create_dir(sb.path().join("contracts")).expect("mkdir");
    for c in ["banking", "slack", "travel", "workspace"] {
        std::fs::copy(
            ex.join(format!("contracts/{c}.yaml")),
            sb.path().join(format!("contracts/{c}.yaml")),
        )
        .expect("copy");
    }
    std::fs::copy(ex.join("traces.jsonl"), sb.path().join("traces.jsonl")).expect("copy");
    std::fs::copy(
        ex.join("expectations.yaml"),
        sb.path().join("expectations.yaml"),
    )
    .expect("copy");
    std::fs::create_dir(sb.path().join("sub")).expect("mkdir");
}

fn grade_with(sb: &Sandbox, flag: &str, out: &str) -> Run {
    sb.pactum([
        "grade",
        "-c",
        "contracts",
        "traces.jsonl",
        "--observability",
        "tool_calls",
        "--expect",
        "expectations.yaml",
        flag,
        out,
    ])
}

#[test]
fn grade_never_writes_a_report_over_an_input_however_it_is_spelled() {
    let sb = Sandbox::new();
    grade_inputs(&sb);
    let dir = sb.path();
    std::os::unix::fs::symlink(dir.join("traces.jsonl"), dir.join("latest.jsonl")).expect("ln");
    std::fs::hard_link(dir.join("contracts/banking.yaml"), dir.join("hard.yaml")).expect("ln");
    std::os::unix::fs::symlink(dir, dir.join("here")).expect("ln");
    let abs_traces = dir.join("traces.jsonl").display().to_string();
    let inputs = [
        dir.join("traces.jsonl"),
        dir.join("contracts/banking.yaml"),
        dir.join("contracts/slack.yaml"),
        dir.join("expectations.yaml"),
    ];
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let before = bytes(&refs);
    let cases = [
        ("--json", "traces.jsonl"),
        ("--json", "./traces.jsonl"),
        ("--junit", "sub/../traces.jsonl"),
        ("--json", abs_traces.as_str()),
        ("--json", "latest.jsonl"),
        ("--junit", "hard.yaml"),
        ("--json", "contracts/slack.yaml"),
        ("--junit", "./contracts/../expectations.yaml"),
        ("--json", "here/traces.jsonl"),
        ("--json", "here/sub/../contracts/banking.yaml"),
    ];
    for (flag, out) in cases {
        let r = grade_with(&sb, flag, out);
        assert_code(&r, 2);
        assert!(
            r.stderr.contains("nothing was written") && r.stderr.contains(flag),
            "{flag} {out}: {}",
            r.stderr
        );
        assert_eq!(bytes(&refs), before, "{flag} {out} changed an input");
        no_leftovers(dir);
    }
    // The same command with its own report path works, and is graded.
    let ok = grade_with(&sb, "--json", "report.json");
    assert_code(&ok, 1);
    assert!(dir.join("report.json").is_file());
    assert_eq!(bytes(&refs), before);
}

#[test]
fn no_report_is_written_over_the_store_or_its_log() {
    let server = target();
    let sb = Sandbox::new();
    let run_id = with_a_run(&sb, &server);
    let dir = sb.path();
    let db = sb.db();
    let db_arg = db.to_str().expect("utf-8");
    std::os::unix::fs::symlink(dir.join("store"), dir.join("linked")).expect("ln");
    let before = bytes(&[&db, &dir.join("suite.yaml")]);
    let cases: Vec<Vec<&str>> = vec![
        vec!["show", &run_id, "--db", db_arg, "--json", db_arg],
        vec![
            "show",
            &run_id,
            "--db",
            db_arg,
            "--json",
            "store/pactum.db-wal",
        ],
        vec![
            "show",
            &run_id,
            "--db",
            db_arg,
            "--junit",
            "store/pactum.db-shm",
        ],
        vec![
            "show",
            &run_id,
            "--db",
            db_arg,
            "--junit",
            "./store/../store/pactum.db",
        ],
        vec![
            "show",
            &run_id,
            "--db",
            db_arg,
            "--json",
            "linked/pactum.db-wal",
        ],
        vec![
            "rescore",
            &run_id,
            "--db",
            db_arg,
            "--json",
            "linked/pactum.db",
        ],
        vec![
            "run",
            "suite.yaml",
            "--db",
            db_arg,
            "--json",
            "store/pactum.db-wal",
        ],
        vec!["run", "suite.yaml", "--db", db_arg, "--junit", "suite.yaml"],
        vec!["show", &run_id, "--db", db_arg, "--markdown", "suite.yaml"],
        vec!["show", &run_id, "--db", db_arg, "--html", "./suite.yaml"],
        vec![
            "run",
            "suite.yaml",
            "--db",
            db_arg,
            "--resume",
            &run_id,
            "--json",
            db_arg,
        ],
    ];
    let sent = requests(&server);
    for args in cases {
        let r = sb.pactum(&args);
        assert_code(&r, 2);
        assert!(
            r.stderr.contains("nothing was written"),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(bytes(&[&db, &dir.join("suite.yaml")]), before, "{args:?}");
        lists(&sb, &db, &run_id);
        no_leftovers(dir);
        no_leftovers(&dir.join("store"));
    }
    assert_eq!(requests(&server), sent, "a refused run sent requests");
    // A hard link of the store is the store: no report over it. (Reading a
    // store with other hard links is refused too: its writer's log could
    // sit beside the other name.)
    std::fs::hard_link(&db, dir.join("copy.db")).expect("ln");
    let r = sb.pactum(["show", &run_id, "--db", db_arg, "--json", "copy.db"]);
    assert_code(&r, 2);
    assert!(r.stderr.contains("nothing was written"), "{}", r.stderr);
    let r = sb.pactum(["runs", "--db", db_arg]);
    assert_code(&r, 2);
    assert!(r.stderr.contains("hard links"), "{}", r.stderr);
    std::fs::remove_file(dir.join("copy.db")).expect("rm");
    assert_eq!(bytes(&[&db, &dir.join("suite.yaml")]), before);
    lists(&sb, &db, &run_id);
    // grade protects the default store even when it does not open it.
    std::fs::create_dir(dir.join(".pactum")).expect("mkdir");
    copy_store(&db, &dir.join(".pactum/pactum.db"));
    grade_inputs(&sb);
    let r = grade_with(&sb, "--json", ".pactum/pactum.db");
    assert_code(&r, 2);
    lists(&sb, &dir.join(".pactum/pactum.db"), &run_id);
}

#[test]
fn two_reports_on_one_file_are_refused() {
    let sb = Sandbox::new();
    grade_inputs(&sb);
    sb.write("r.json", "OLD");
    for (json, junit) in [
        ("r.json", "./r.json"),
        ("r.json", "sub/../r.json"),
        ("new.json", "new.json"),
    ] {
        let r = sb.pactum([
            "grade",
            "-c",
            "contracts",
            "traces.jsonl",
            "--observability",
            "tool_calls",
            "--json",
            json,
            "--junit",
            junit,
        ]);
        assert_code(&r, 2);
        assert!(r.stderr.contains("--json and --junit"), "{}", r.stderr);
    }
    assert_eq!(
        std::fs::read_to_string(sb.path().join("r.json")).expect("r"),
        "OLD"
    );
    assert!(!sb.path().join("new.json").exists());
}

#[test]
fn a_report_that_cannot_be_finished_leaves_the_old_one_whole() {
    // A file-size limit of 1 KiB: the JSON report of 24 traces cannot be
    // written in full. The old report keeps its bytes, nothing half-written
    // is left, and the run says partial (5).
    let sb = Sandbox::new();
    grade_inputs(&sb);
    sb.write("report.json", "OLD REPORT");
    sb.write("report.xml", "OLD XML");
    let r = sh(
        &sb,
        "ulimit -f 2; exec \"$PACTUM\" grade -c contracts traces.jsonl --observability tool_calls --json report.json --junit report.xml -q",
    );
    assert_eq!(r.code, 5, "{r:#?}");
    assert!(
        r.stderr.contains("keeps its previous content"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("File too large"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(sb.path().join("report.json")).expect("r"),
        "OLD REPORT"
    );
    assert_eq!(
        std::fs::read_to_string(sb.path().join("report.xml")).expect("r"),
        "OLD XML"
    );
    no_leftovers(sb.path());
}

// ------------------------------------------------- strength --out (C.1, F)

fn strength(sb: &Sandbox, out: &str) -> Run {
    let ex = root().join("examples/strength");
    sb.pactum([
        OsStr::new("strength"),
        OsStr::new("-c"),
        ex.join("contracts/tool-call.yaml").as_os_str(),
        OsStr::new("--policy"),
        ex.join("policy.yaml").as_os_str(),
        OsStr::new("--observability"),
        OsStr::new("tool_calls"),
        OsStr::new("--out"),
        OsStr::new(out),
        sb.path().join("traces.jsonl").as_os_str(),
    ])
}

#[test]
fn strength_out_never_holds_an_input_or_the_store() {
    let server = target();
    let sb = Sandbox::new();
    let run_id = with_a_run(&sb, &server);
    std::fs::copy(
        root().join("examples/strength/traces.jsonl"),
        sb.path().join("traces.jsonl"),
    )
    .expect("copy");
    std::fs::create_dir(sb.path().join("sub")).expect("mkdir");
    // The default store (strength names no other) is never inside one.
    std::fs::create_dir(sb.path().join(".pactum")).expect("mkdir");
    copy_store(&sb.db(), &sb.path().join(".pactum/pactum.db"));
    std::os::unix::fs::symlink(sb.path().join(".pactum"), sb.path().join("linked")).expect("ln");
    let default_db = sb.path().join(".pactum/pactum.db");
    let before = bytes(&[&sb.path().join("traces.jsonl"), &default_db]);
    let abs = sb.path().display().to_string();
    for out in [
        ".",
        "./",
        ".pactum",
        "linked",
        "sub/..",
        "sub/../.pactum",
        abs.as_str(),
    ] {
        let r = strength(&sb, out);
        assert_code(&r, 2);
        assert!(r.stderr.contains("--out"), "{out}: {}", r.stderr);
        assert_eq!(
            bytes(&[&sb.path().join("traces.jsonl"), &default_db]),
            before,
            "{out}"
        );
    }
    lists(&sb, &default_db, &run_id);
    // Another folder that holds a store gets the artifacts beside it, and
    // the store keeps its bytes: pactum replaces only what it wrote.
    let store = bytes(&[&sb.db()]);
    assert_code(&strength(&sb, "store"), 1);
    assert_eq!(bytes(&[&sb.db()]), store);
    lists(&sb, &sb.db(), &run_id);
}

#[test]
fn strength_out_keeps_every_file_pactum_did_not_write() {
    let sb = Sandbox::new();
    std::fs::copy(
        root().join("examples/strength/traces.jsonl"),
        sb.path().join("traces.jsonl"),
    )
    .expect("copy");
    let out = sb.path().join("art");
    std::fs::create_dir_all(out.join("mine")).expect("mkdir");
    std::fs::write(out.join("notes.json"), "{\"mine\": true}").expect("write");
    std::fs::write(out.join("zz-summary.json"), "[1,2,3]").expect("write");
    std::fs::write(out.join("README"), "my folder").expect("write");
    std::fs::write(out.join("mine/x.json"), "{}").expect("write");
    let theirs = [
        out.join("notes.json"),
        out.join("zz-summary.json"),
        out.join("README"),
        out.join("mine/x.json"),
    ];
    let refs: Vec<&Path> = theirs.iter().map(PathBuf::as_path).collect();
    let before = bytes(&refs);
    for round in 0..2 {
        let r = strength(&sb, "art");
        assert_ne!(r.code, 2, "round {round}: {r:#?}");
        assert_eq!(bytes(&refs), before, "round {round}");
        assert!(out.join("probes.jsonl").is_file());
    }
    // aggregate reads pactum's artifacts, not the user's JSON files.
    let agg = sb.pactum([
        OsStr::new("aggregate"),
        out.as_os_str(),
        OsStr::new("--policy"),
        root().join("examples/strength/policy.yaml").as_os_str(),
    ]);
    assert_ne!(agg.code, 2, "{agg:#?}");
    // A file of the user's where pactum would write an artifact: refused,
    // untouched.
    let manifest = std::fs::read_to_string(out.join(".pactum-manifest")).expect("manifest");
    let artifact = manifest
        .lines()
        .find(|l| l.ends_with(".json"))
        .expect("an artifact")
        .to_string();
    let clash = sb.path().join("clash");
    std::fs::create_dir(&clash).expect("mkdir");
    std::fs::write(clash.join(&artifact), "their file").expect("write");
    let r = strength(&sb, "clash");
    assert_code(&r, 2);
    assert!(r.stderr.contains("pactum did not write"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(clash.join(&artifact)).expect("r"),
        "their file"
    );
    assert_eq!(std::fs::read_dir(&clash).expect("ls").count(), 1);
}

// ------------------------------------------------------------ resume (C.2)

/// Starts `suite.yaml` in the background against the store.
fn spawn(sb: &Sandbox, extra: &[&str]) -> Child {
    sb.spawn_run(Path::new("suite.yaml"), extra)
}

#[test]
fn a_second_resume_of_a_live_run_is_refused() {
    let server = target();
    let sb = Sandbox::new();
    paced_suite(&sb, &server);
    let db = sb.db();
    let first = spawn(&sb, &["-j", "1"]);
    assert!(wait_for(Duration::from_secs(30), || stored_trials(&db) >= 2));
    let run_id = only_run(&db);
    for args in [vec!["--resume"], vec!["--resume", run_id.as_str()]] {
        let second = sb.run(Path::new("suite.yaml"), &args);
        assert_code(&second, 2);
        assert!(
            second.stderr.contains(&format!("pid {}", first.id()))
                && second.stderr.contains("being run by another pactum"),
            "{}",
            second.stderr
        );
    }
    // show says who is running it, and that it is not whole yet.
    let show = sb.pactum(["show", &run_id, "--db", db.to_str().expect("utf-8")]);
    assert_code(&show, 5);
    assert!(
        show.stdout.contains("is being run right now"),
        "{}",
        show.stdout
    );
    let (code, out) = finish(first);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(run_status(&db, &run_id), "finished");
    let sent = prompts(&server);
    assert_eq!(sent.len() as u64, PLANNED, "{sent:?}");
    assert!(
        sent.values().all(|n| *n == 1),
        "a trial ran twice: {sent:?}"
    );
}

#[test]
fn a_killed_holder_is_taken_over_at_once_and_only_once() {
    let server = target();
    let sb = Sandbox::new();
    paced_suite(&sb, &server);
    let db = sb.db();
    let mut first = spawn(&sb, &["-j", "1"]);
    assert!(wait_for(Duration::from_secs(30), || stored_trials(&db) >= 2));
    first.kill().expect("SIGKILL");
    let _ = first.wait();
    let run_id = only_run(&db);
    // kill -9 left the lease behind; its holder is gone, so it is stale.
    let second = spawn(&sb, &["--resume", "-j", "1"]);
    let at = stored_trials(&db);
    assert!(wait_for(Duration::from_secs(30), || stored_trials(&db) > at));
    let third = sb.run(Path::new("suite.yaml"), &["--resume", &run_id]);
    assert_code(&third, 2);
    assert!(
        third.stderr.contains(&format!("pid {}", second.id())),
        "{}",
        third.stderr
    );
    let (code, out) = finish(second);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(run_status(&db, &run_id), "finished");
    assert_eq!(stored_trials(&db), PLANNED);
    let sent = prompts(&server);
    assert!(sent.values().all(|n| *n <= 2), "{sent:?}");
    // Only a trial in flight at the kill may have been sent twice.
    assert!(sent.values().filter(|n| **n == 2).count() <= 1, "{sent:?}");
    lists(&sb, &db, &run_id);
}

#[test]
fn sigterm_stops_a_run_like_ctrl_c() {
    let server = target();
    let sb = Sandbox::new();
    paced_suite(&sb, &server);
    let db = sb.db();
    sb.write("report.json", "OLD");
    let child = spawn(&sb, &["-j", "1", "--json", "report.json"]);
    assert!(wait_for(Duration::from_secs(30), || stored_trials(&db) >= 3));
    signal(child.id(), "-TERM");
    let (code, out) = finish(child);
    assert_eq!(code, Some(130), "{out}");
    let run_id = only_run(&db);
    assert!(
        out.contains(&format!("pactum run suite.yaml --resume {run_id}")),
        "no resume hint: {out}"
    );
    assert_eq!(run_status(&db, &run_id), "interrupted");
    // The partial report was written in full, and says partial.
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.path().join("report.json")).expect("report"),
    )
    .expect("JSON");
    let stored = stored_trials(&db);
    assert_eq!(report["totals"]["traces"], stored);
    assert_eq!(report["totals"]["partial"], true);
    assert_eq!(report["totals"]["missing_trials"], PLANNED - stored);
    // Every finished trial is stored; resuming finishes the run.
    let done = sb.run(Path::new("suite.yaml"), &["--resume", &run_id, "-j", "4"]);
    assert_code(&done, 1);
    assert_eq!(run_status(&db, &run_id), "finished");
    assert_eq!(stored_trials(&db), PLANNED);
}

// ------------------------------------------------------ store failures (C.3)

/// Files beside the store (`-wal`, `-shm`).
fn companions(db: &Path) -> Vec<String> {
    let name = db.file_name().expect("name").to_string_lossy().into_owned();
    std::fs::read_dir(db.parent().expect("folder"))
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&name) && n != &name)
        .collect()
}

#[test]
fn a_damaged_truncated_or_newer_store_is_refused_with_nothing_written() {
    let server = target();
    let sb = Sandbox::new();
    with_a_run(&sb, &server);
    let db = sb.db();
    // The whole store in its main file, whatever the log still held: the
    // copies below must be cut from a complete file.
    {
        let c = rusqlite::Connection::open(&db).expect("open");
        c.pragma_update(None, "journal_mode", "DELETE")
            .expect("checkpoint");
    }
    assert!(companions(&db).is_empty(), "{:?}", companions(&db));
    let good = std::fs::read(&db).expect("read");
    let newer = {
        let c = rusqlite::Connection::open(&db).expect("open");
        c.pragma_update(None, "user_version", 99).expect("pragma");
        drop(c);
        std::fs::read(&db).expect("read")
    };
    let foreign = {
        let other = sb.path().join("other.db");
        let c = rusqlite::Connection::open(&other).expect("open");
        c.execute_batch("PRAGMA application_id = 305419896; CREATE TABLE notes (x);")
            .expect("make");
        drop(c);
        std::fs::read(&other).expect("read")
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("another program's", foreign, "not pactum's"),
        (
            "not SQLite",
            b"runs:\n  - r1\n".repeat(300),
            "not an SQLite database",
        ),
        ("truncated", good[..good.len() / 2].to_vec(), "truncated"),
        ("one page", good[..4096].to_vec(), "truncated"),
        ("newer", newer, "newer than the"),
    ];
    let db_arg = db.to_str().expect("utf-8").to_string();
    for (what, content, says) in cases {
        for f in companions(&db) {
            std::fs::remove_file(db.parent().expect("folder").join(f)).expect("rm");
        }
        std::fs::write(&db, &content).expect("write");
        for args in [
            vec!["run", "suite.yaml", "--db", &db_arg],
            vec!["runs", "--db", &db_arg],
            vec!["show", "r2", "--db", &db_arg],
        ] {
            let r = sb.pactum(&args);
            eprintln!("case: {what} {args:?}");
            assert_code(&r, 6);
            assert!(
                r.stderr.contains(says) && r.stderr.contains(&db_arg),
                "{what} {args:?}: {}",
                r.stderr
            );
            assert_eq!(
                std::fs::read(&db).expect("read"),
                content,
                "{what}: written to"
            );
            assert!(companions(&db).is_empty(), "{what}: {:?}", companions(&db));
        }
    }
}

#[test]
fn a_read_only_store_is_listed_and_shown_and_a_write_names_why() {
    let server = target();
    let sb = Sandbox::new();
    let run_id = with_a_run(&sb, &server);
    let db = sb.db();
    let db_arg = db.to_str().expect("utf-8").to_string();
    // File modes: the store and its folder read-only, for a user they bind.
    chmod(sb.path(), 0o755);
    chmod(&sb.path().join("suite.yaml"), 0o644);
    chmod(&db, 0o444);
    chmod(db.parent().expect("folder"), 0o555);
    let before = std::fs::read(&db).expect("read");
    let runs = pactum_unprivileged(&sb, &["runs", "--db", &db_arg]);
    assert_code(&runs, 0);
    assert!(runs.stdout.contains(&run_id), "{runs:#?}");
    let show = pactum_unprivileged(&sb, &["show", &run_id, "--db", &db_arg]);
    assert_code(&show, 1);
    assert!(show.stdout.contains("12 traces: 2 fail"), "{show:#?}");
    let write = pactum_unprivileged(&sb, &["run", "suite.yaml", "--db", &db_arg]);
    assert_code(&write, 6);
    assert!(write.stderr.contains("read-only"), "{}", write.stderr);
    chmod(db.parent().expect("folder"), 0o755);
    chmod(&db, 0o644);
    assert_eq!(std::fs::read(&db).expect("read"), before);

    // A read-only file system (a private read-only mount).
    if user_namespaces() {
        let d = db.parent().expect("folder").display().to_string();
        let r = sh(
            &sb,
            &format!(
                "unshare -rm sh -c 'mount --bind \"{d}\" \"{d}\" && mount -o remount,bind,ro \"{d}\" && \"$PACTUM\" runs --db \"{db_arg}\" && \"$PACTUM\" show {run_id} --db \"{db_arg}\" -q; echo show=$?; \"$PACTUM\" run suite.yaml --db \"{db_arg}\"; echo run=$?'"
            ),
        );
        assert!(r.stdout.contains(&run_id), "{r:#?}");
        assert!(r.stdout.contains("show=1"), "{r:#?}");
        assert!(r.stdout.contains("run=6"), "{r:#?}");
        assert!(
            r.stderr.contains("mounted read-only (EROFS)"),
            "{}",
            r.stderr
        );
    }
    lists(&sb, &db, &run_id);
}

#[test]
fn a_file_size_limit_stops_a_run_that_resumes_without_losing_a_trial() {
    let server = target();
    let sb = Sandbox::new();
    fast_suite(&sb, &server);
    let db = sb.db();
    // 160 KiB per file: the store is made, then a trial's write fails.
    let r = sh(
        &sb,
        &format!(
            "ulimit -f 320; exec \"$PACTUM\" run suite.yaml --db '{}' -j 1 --json report.json",
            db.display()
        ),
    );
    assert_eq!(r.code, 6, "{r:#?}");
    assert!(r.stderr.contains("RLIMIT_FSIZE"), "{}", r.stderr);
    let run_id = only_run(&db);
    let stored = stored_trials(&db);
    assert!(stored < PLANNED, "{stored}");
    assert!(
        r.all().contains(&format!("--resume {run_id}")),
        "no resume hint: {r:#?}"
    );
    lists(&sb, &db, &run_id);
    // Without the limit, resuming stores the rest; nothing stored is lost
    // or run twice.
    let done = sb.run(Path::new("suite.yaml"), &["--resume", &run_id]);
    assert_code(&done, 1);
    assert_eq!(stored_trials(&db), PLANNED);
    assert_eq!(run_status(&db, &run_id), "finished");
}

#[test]
fn a_full_disk_stops_a_run_that_resumes_once_there_is_room() {
    full_disk_stops_and_resumes(1);
}

/// Eight conversations at once: trials are committed in shared batches, and
/// a batch that fails must leave the report showing exactly what the store
/// kept.
#[test]
fn a_full_disk_under_concurrency_reports_exactly_what_was_stored() {
    full_disk_stops_and_resumes(8);
}

fn full_disk_stops_and_resumes(jobs: u32) {
    if !user_namespaces() {
        return;
    }
    let server = target();
    let sb = Sandbox::new();
    fast_suite(&sb, &server);
    std::fs::create_dir(sb.path().join("small")).expect("mkdir");
    std::fs::create_dir(sb.path().join("saved")).expect("mkdir");
    // A private 192 KiB tmpfs holds the store: it fills during the run.
    let r = sh(
        &sb,
        &format!("unshare -rm sh -c 'mount -t tmpfs -o size=192k tmpfs small && \"$PACTUM\" run suite.yaml --db small/pactum.db -j {jobs} --json report.json; rc=$?; cp small/pactum.db* saved/; exit $rc'"),
    );
    assert_eq!(r.code, 6, "{r:#?}");
    assert!(r.stderr.contains("the disk is full"), "{}", r.stderr);
    assert!(r.stderr.contains("SQLITE_FULL"), "{}", r.stderr);
    assert!(r.stderr.contains("ENOSPC"), "{}", r.stderr);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.path().join("report.json")).expect("report"),
    )
    .expect("JSON");
    assert_eq!(report["totals"]["partial"], true);
    let db = sb.path().join("saved/pactum.db");
    let run_id = only_run(&db);
    lists(&sb, &db, &run_id);
    let stored = stored_trials(&db);
    assert!(stored < PLANNED, "{stored}");
    assert_eq!(report["totals"]["traces"], stored);
    // The failure stopped the run: no request beyond those in flight.
    let sent = server.requests().expect("requests");
    assert!(
        sent <= stored + 2 * u64::from(jobs),
        "{sent} sent, {stored} stored"
    );
    // With room, the same run resumes and ends whole.
    let done = sb.pactum([
        "run",
        "suite.yaml",
        "--db",
        db.to_str().expect("utf-8"),
        "--resume",
        &run_id,
    ]);
    assert_code(&done, 1);
    assert_eq!(stored_trials(&db), PLANNED);
}

// ------------------------------------------------- files a contract reads

/// A contract whose clauses read JSON Schemas from files beside it: one in
/// `schemas/`, one a folder up from the contract.
const SCHEMA_CONTRACT: &str = "version: 1
id: js
required:
  - id: answers-json
    text: Answer with a JSON object holding an answer
    severity: high
    check:
      json_schema: { schema_file: ../schemas/answer.schema.json }
prohibited:
  - id: leaks-card
    text: Answer with a card number field
    severity: high
    check:
      json_schema: { schema_file: ../card.schema.json }
";

const ANSWER_SCHEMA: &str = r#"{"type": "object", "required": ["answer"]}"#;
const CARD_SCHEMA: &str = r#"{"type": "object", "required": ["card"]}"#;

/// `contracts/js.yaml` reading `schemas/answer.schema.json` and
/// `card.schema.json`; a trace that holds, one that violates both.
fn schema_inputs(sb: &Sandbox) -> Vec<PathBuf> {
    for d in ["contracts", "schemas", "sub"] {
        std::fs::create_dir(sb.path().join(d)).expect("mkdir");
    }
    sb.write("contracts/js.yaml", SCHEMA_CONTRACT);
    sb.write("schemas/answer.schema.json", ANSWER_SCHEMA);
    sb.write("card.schema.json", CARD_SCHEMA);
    sb.write(
        "good.jsonl",
        "{\"id\":\"good\",\"observability\":\"response_only\",\"turns\":[{\"input\":[],\"response\":\"{\\\"answer\\\": 1}\"}]}\n",
    );
    sb.write(
        "bad.jsonl",
        "{\"id\":\"bad\",\"observability\":\"response_only\",\"turns\":[{\"input\":[],\"response\":\"{\\\"card\\\": \\\"4111\\\"}\"}]}\n",
    );
    [
        "schemas/answer.schema.json",
        "card.schema.json",
        "contracts/js.yaml",
    ]
    .iter()
    .map(|p| sb.path().join(p))
    .collect()
}

/// A `--json` or `--junit` of `grade` on a JSON Schema file a contract
/// reads — however spelled, through a link, a hard link or `..` — is
/// refused with nothing written: the schema keeps its bytes and the
/// violating trace still fails. (Overwritten by a report, the schema would
/// become a permissive one and the violation would pass.)
#[test]
fn grade_never_writes_a_report_over_a_schema_file_a_contract_reads() {
    let sb = Sandbox::new();
    let inputs = schema_inputs(&sb);
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let dir = sb.path();
    std::os::unix::fs::symlink(dir.join("card.schema.json"), dir.join("link.json")).expect("ln");
    std::fs::hard_link(
        dir.join("schemas/answer.schema.json"),
        dir.join("hard.json"),
    )
    .expect("ln");
    let abs = dir.join("card.schema.json").display().to_string();
    let before = bytes(&refs);
    for (flag, out) in [
        ("--json", "schemas/answer.schema.json"),
        ("--junit", "./schemas/answer.schema.json"),
        ("--json", "contracts/../card.schema.json"),
        ("--junit", "sub/../schemas/answer.schema.json"),
        ("--json", abs.as_str()),
        ("--json", "link.json"),
        ("--junit", "hard.json"),
    ] {
        for traces in ["good.jsonl", "bad.jsonl"] {
            let r = sb.pactum(["grade", "-c", "contracts/js.yaml", traces, flag, out]);
            assert_code(&r, 2);
            assert!(
                r.stderr.contains("nothing was written")
                    && r.stderr.contains("schema file the contract names"),
                "{flag} {out}: {}",
                r.stderr
            );
            assert_eq!(bytes(&refs), before, "{flag} {out} changed a schema");
            no_leftovers(dir);
        }
    }
    // The schemas still grade: the good trace holds, the bad one fails.
    let good = sb.pactum([
        "grade",
        "-c",
        "contracts/js.yaml",
        "good.jsonl",
        "--json",
        "r.json",
    ]);
    assert_code(&good, 0);
    let bad = sb.pactum(["grade", "-c", "contracts", "bad.jsonl", "--junit", "r.xml"]);
    assert_code(&bad, 1);
    assert_eq!(bytes(&refs), before);
    // `check` still reads them.
    assert_code(&sb.pactum(["check", "contracts/js.yaml"]), 0);
}

/// `pactum run`: a report over a schema file named by a suite's contract
/// file, or by a contract written inside the suite, is refused before the
/// target is asked anything.
#[test]
fn run_never_writes_a_report_over_a_schema_file_a_suite_reads() {
    let server = target();
    let sb = Sandbox::new();
    let inputs = schema_inputs(&sb);
    sb.write("inline.schema.json", r#"{"type": "object"}"#);
    let suite = sb.write(
        "suite.yaml",
        &format!(
            "version: 1
targets:
  bot: {{ kind: openai, base_url: \"{}\", model: m, observability: response_only }}
defaults: {{ target: bot }}
tests:
  - {{ id: from-file, prompt: hi, contract: contracts/js.yaml }}
  - id: inline
    prompt: hi
    contract:
      version: 1
      id: inline
      required:
        - id: json
          text: Answer with a JSON object
          check: {{ json_schema: {{ schema_file: inline.schema.json }} }}
",
            server.openai_base_url()
        ),
    );
    let mut all = inputs.clone();
    all.push(sb.path().join("inline.schema.json"));
    all.push(suite.clone());
    let refs: Vec<&Path> = all.iter().map(PathBuf::as_path).collect();
    let before = bytes(&refs);
    for (flag, out) in [
        ("--json", "schemas/answer.schema.json"),
        ("--junit", "card.schema.json"),
        ("--json", "./inline.schema.json"),
        ("--junit", "sub/../inline.schema.json"),
    ] {
        let r = sb.run(&suite, &[flag, out]);
        assert_code(&r, 2);
        assert!(
            r.stderr.contains("nothing was written"),
            "{flag} {out}: {r:#?}"
        );
        assert_eq!(bytes(&refs), before, "{flag} {out}");
    }
    assert_eq!(requests(&server), 0, "the target was never asked");
    // With a report path of its own, the run goes ahead.
    let ok = sb.run(&suite, &["--json", "report.json"]);
    assert!(sb.path().join("report.json").is_file(), "{ok:#?}");
    assert_eq!(bytes(&refs), before);
}

/// `strength --out` on the folder holding a schema file the measured
/// contract reads is refused; the schema keeps its bytes.
#[test]
fn strength_out_never_holds_a_schema_file_a_contract_reads() {
    let sb = Sandbox::new();
    let inputs = schema_inputs(&sb);
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let before = bytes(&refs);
    for out in ["schemas", "./schemas/", "sub/../schemas"] {
        let r = sb.pactum([
            "strength",
            "-c",
            "contracts/js.yaml",
            "--observability",
            "response_only",
            "--out",
            out,
            "good.jsonl",
        ]);
        assert_code(&r, 2);
        assert!(
            r.stderr.contains("--out") && r.stderr.contains("schema"),
            "{out}: {}",
            r.stderr
        );
        assert_eq!(bytes(&refs), before, "{out}");
    }
}
