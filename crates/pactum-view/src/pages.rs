//! The pages: the run list, a run's report, a diff of two runs, and the
//! error page. Every value reaches HTML through the report's formatter
//! ([`pactum_report::html::visible_text`]) with HTML escaping on; a value
//! in an attribute goes through the `attr` filter (plain HTML escaping,
//! no markup). No page has a script of its own; each is sent with a
//! Content-Security-Policy that allows only its style sheet (a run's
//! report: the report's own policy).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine as _;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::Response;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value as JValue};
use pactum_core::text::one_line;
use pactum_core::TestStatus;
use pactum_report::{Fanout, HtmlReporter};
use pactum_store::{RunId, RunRow, Store};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The pages' style sheet (hashed into their CSP).
const CSS: &str = include_str!("templates/view.css");

/// At most this many characters of a result's summary in a diff row.
const SUMMARY_CHARS: usize = 240;

/// A response ready to send: status, body, and the policy it is sent with.
#[derive(Debug)]
pub(crate) struct Page {
    status: u16,
    body: Vec<u8>,
    csp: String,
    /// `Allow` header of a 405.
    allow: bool,
}

impl Page {
    /// A page of ours (list, diff, error) with `status`.
    fn ours(status: u16, body: String) -> Page {
        Page {
            status,
            body: body.into_bytes(),
            csp: own_policy(),
            allow: false,
        }
    }

    /// The error page: `status`, a title and what went wrong (escaped).
    pub(crate) fn error(status: u16, title: &str, message: &str) -> Page {
        let ctx = minijinja::context! { title, message, status, css => CSS };
        match render("error.html", ctx) {
            Ok(body) => Page::ours(status, body),
            // The templates are compiled in; a failure is ours, said plainly.
            Err(e) => Page {
                status: 500,
                body: format!("internal error: {e}").into_bytes(),
                csp: own_policy(),
                allow: false,
            },
        }
    }

    /// 405 with `Allow: GET, HEAD`.
    pub(crate) fn method_not_allowed() -> Page {
        Page {
            allow: true,
            ..Page::error(
                405,
                "Method not allowed",
                "this server only reads: GET and HEAD only",
            )
        }
    }

    /// The HTTP response: the body as HTML, with headers that keep a page
    /// from being framed, sniffed, cached or leaking its URL.
    pub(crate) fn into_response(self) -> Response<Full<Bytes>> {
        let mut b = Response::builder()
            .status(self.status)
            .header("content-type", "text/html; charset=utf-8")
            .header("content-security-policy", &self.csp)
            .header("x-content-type-options", "nosniff")
            .header("x-frame-options", "DENY")
            .header("referrer-policy", "no-referrer")
            .header("cache-control", "no-store");
        if self.allow {
            b = b.header("allow", "GET, HEAD");
        }
        b.body(Full::new(Bytes::from(self.body)))
            .unwrap_or_else(|_| Response::new(Full::new(Bytes::from_static(b"internal error"))))
    }

    /// The status code.
    #[cfg(test)]
    pub(crate) fn status(&self) -> u16 {
        self.status
    }

    /// The body as text.
    #[cfg(test)]
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// `'sha256-…'` of `text`, as a CSP source.
fn csp_hash(text: &str) -> String {
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// The policy of our own pages: their style sheet, no script at all, no
/// load of anything, forms only to this server.
fn own_policy() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        csp_hash(CSS)
    )
}

fn environment() -> &'static Result<Environment<'static>, String> {
    static ENV: OnceLock<Result<Environment<'static>, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_formatter(pactum_report::html::visible_text);
        env.add_filter("attr", |v: String| {
            JValue::from_safe_string(minijinja::HtmlEscape(&v).to_string())
        });
        for (name, source) in [
            ("base.html", include_str!("templates/base.html")),
            ("list.html", include_str!("templates/list.html")),
            ("diff.html", include_str!("templates/diff.html")),
            ("error.html", include_str!("templates/error.html")),
        ] {
            env.add_template(name, source)
                .map_err(|e| format!("{e:#}"))?;
        }
        Ok(env)
    })
}

fn render(name: &str, ctx: JValue) -> Result<String, String> {
    let env = environment().as_ref().map_err(Clone::clone)?;
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| format!("{e:#}"))
}

/// Whether `id` may be a run id in a URL: 1 to 64 ASCII letters, digits
/// and `-` (pactum's ids are `r<YYYYMMDD>-<HHMMSS>-<4 hex>`). Anything
/// else — a `/`, a `.`, a `%`, a quote — is refused before any lookup.
pub(crate) fn valid_run_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// One run in the list.
#[derive(Serialize)]
struct RunView {
    id: String,
    /// Whether the id is safe to link to.
    link: bool,
    status: &'static str,
    started: String,
    finished: String,
    pass: u64,
    fail: u64,
    warn: u64,
    err: u64,
    suite: String,
    version: String,
    /// The next older run of the same suite, to diff with.
    previous: Option<String>,
}

/// The statuses a run is listed with: the stored ones, and `stopped` for a
/// `running` run whose writer is gone
/// ([`pactum_pipeline::stored::shown_status`]). The filter matches what
/// the list shows, so `running` never lists a stopped run.
pub(crate) const SHOWN_STATUSES: [&str; 4] = ["running", "stopped", "finished", "interrupted"];

/// How many runs one page of the list shows.
pub(crate) const RUNS_PER_PAGE: usize = 100;

/// The list's filters and page, as the query gave them (already checked).
#[derive(Debug, Default)]
pub(crate) struct Filters {
    pub(crate) suite: Option<String>,
    /// One of [`SHOWN_STATUSES`].
    pub(crate) status: Option<&'static str>,
    /// 1-based page of the filtered list; 1 when not given.
    pub(crate) page: usize,
}

/// `/`: the runs, newest first, filtered, [`RUNS_PER_PAGE`] a page. A page
/// past the last is a 404 naming how many there are.
pub(crate) fn list(store: &Store, shown_path: &Path, f: &Filters) -> Result<Page, PageError> {
    let rows = store.runs()?;
    let total = rows.len();
    // The next older run of each run's suite: rows are newest first.
    let mut previous: Vec<Option<String>> = vec![None; rows.len()];
    let mut older: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate().rev() {
        if let Some(&j) = older.get(r.suite_path.as_str()) {
            previous[i] = Some(rows[j].id.as_str().to_string());
        }
        older.insert(&r.suite_path, i);
    }
    let suites: Vec<String> = rows
        .iter()
        .map(|r| r.suite_path.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let matching: Vec<RunView> = rows
        .iter()
        .zip(previous)
        .filter(|(r, _)| f.suite.as_ref().is_none_or(|s| *s == r.suite_path))
        .map(|(r, previous)| run_view(store, r, previous.filter(|p| valid_run_id(p))))
        .filter(|v| f.status.is_none_or(|s| s == v.status))
        .collect();
    let matched = matching.len();
    let pages = matched.div_ceil(RUNS_PER_PAGE).max(1);
    let page = f.page.max(1);
    if page > pages {
        return Err(PageError::NotFound(format!(
            "no page {page} of the run list: it has {pages} ({matched} runs, {RUNS_PER_PAGE} a page)"
        )));
    }
    let first = (page - 1) * RUNS_PER_PAGE;
    let runs: Vec<RunView> = matching
        .into_iter()
        .skip(first)
        .take(RUNS_PER_PAGE)
        .collect();
    // The two-run form offers the runs of this page.
    let ids: Vec<String> = runs
        .iter()
        .filter(|r| r.link)
        .map(|r| r.id.clone())
        .collect();
    let link = |p: usize| -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(s) = &f.suite {
            q.append_pair("suite", s);
        }
        if let Some(s) = f.status {
            q.append_pair("status", s);
        }
        if p > 1 {
            q.append_pair("page", &p.to_string());
        }
        let q = q.finish();
        if q.is_empty() {
            "/".to_string()
        } else {
            format!("/?{q}")
        }
    };
    let ctx = minijinja::context! {
        css => CSS,
        store => shown_path.display().to_string(),
        total,
        matched,
        first => first + 1,
        last => first + runs.len(),
        page,
        pages,
        newer => (page > 1).then(|| link(page - 1)),
        older => (page < pages).then(|| link(page + 1)),
        runs => JValue::from(minijinja::value::Serde(&runs)),
        suites,
        ids,
        statuses => SHOWN_STATUSES.to_vec(),
        suite => f.suite.clone().unwrap_or_default(),
        status => f.status.unwrap_or_default(),
    };
    Ok(Page::ours(
        200,
        render("list.html", ctx).map_err(PageError::Internal)?,
    ))
}

fn run_view(store: &Store, r: &RunRow, previous: Option<String>) -> RunView {
    RunView {
        id: r.id.as_str().to_string(),
        link: valid_run_id(r.id.as_str()),
        // A run whose writer is gone is not said to be running.
        status: pactum_pipeline::stored::shown_status(store, r),
        started: r.started_at.clone(),
        finished: r.finished_at.clone().unwrap_or_default(),
        pass: r.counts.pass,
        fail: r.counts.fail,
        warn: r.counts.undetermined,
        err: r.counts.error,
        suite: r.suite_path.clone(),
        version: r.pactum_version.clone(),
        previous,
    }
}

/// Why a page could not be made.
#[derive(Debug)]
pub(crate) enum PageError {
    /// No run with that id (404).
    NotFound(String),
    /// The request names something wrongly (400).
    BadRequest(String),
    /// Two runs of different suites (409).
    Conflict(String),
    /// The store could not be read (500), said with its cause.
    Store(String),
    /// Ours (500).
    Internal(String),
}

impl From<pactum_store::StoreError> for PageError {
    fn from(e: pactum_store::StoreError) -> PageError {
        use pactum_store::StoreError as E;
        match e {
            E::UnknownRun { .. } | E::RunNotFound { .. } => PageError::NotFound(e.to_string()),
            e => PageError::Store(pactum_report::with_causes(&e)),
        }
    }
}

impl From<pactum_pipeline::PipelineError> for PageError {
    fn from(e: pactum_pipeline::PipelineError) -> PageError {
        match e {
            pactum_pipeline::PipelineError::Store(s) => s.into(),
            e => PageError::Store(pactum_report::with_causes(&e)),
        }
    }
}

impl From<crate::snapshot::Changed> for PageError {
    fn from(_: crate::snapshot::Changed) -> PageError {
        PageError::Store("the store kept changing while it was read; reload the page".into())
    }
}

impl PageError {
    /// The error page.
    pub(crate) fn page(&self) -> Page {
        match self {
            PageError::NotFound(m) => Page::error(404, "Not found", m),
            PageError::BadRequest(m) => Page::error(400, "Bad request", m),
            PageError::Conflict(m) => Page::error(409, "Runs of different suites", m),
            PageError::Store(m) => Page::error(500, "The store could not be read", m),
            PageError::Internal(m) => Page::error(500, "Internal error", m),
        }
    }
}

/// A writer into shared memory (the page's bytes, taken once rendered).
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("the page buffer is poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `/runs/{id}`: the run's report, exactly as `pactum show ID --html`
/// writes it (the same pipeline into the same reporter).
pub(crate) fn run(store: &Store, id: &str, db_arg: Option<&Path>) -> Result<Page, PageError> {
    let run_id = RunId::new(id);
    // Exact ids only: a prefix is a command-line convenience, not a URL.
    if store.run(&run_id)?.is_none() {
        return Err(PageError::NotFound(format!("no run {id} in the store")));
    }
    let buf = Buffer::default();
    let reporter = HtmlReporter::new(buf.clone())
        .map_err(|e| PageError::Internal(pactum_report::with_causes(&e)))?
        .with_destination(format!("/runs/{id}"));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let notice = {
        let failures = Arc::clone(&failures);
        Box::new(move |m: &str| {
            if let Ok(mut f) = failures.lock() {
                f.push(m.to_string());
            }
        })
    };
    let boxed: Box<dyn pactum_report::Reporter + Send> = Box::new(reporter);
    let mut fan = Fanout::over(vec![("html".into(), boxed)], notice);
    pactum_pipeline::stored::show_in(store, id, db_arg, &mut fan)?;
    if fan.failed() {
        let said = failures.lock().map(|f| f.join("; ")).unwrap_or_default();
        return Err(PageError::Internal(format!(
            "the report of run {id} could not be made: {said}"
        )));
    }
    drop(fan);
    let body = std::mem::take(
        &mut *buf
            .0
            .lock()
            .map_err(|_| PageError::Internal("the page buffer is poisoned".into()))?,
    );
    Ok(Page {
        status: 200,
        body,
        csp: format!(
            "{}; frame-ancestors 'none'",
            pactum_report::html::content_security_policy()
        ),
        allow: false,
    })
}

/// One run's side of a diff.
#[derive(Serialize)]
struct Side {
    id: String,
    status: &'static str,
    started: String,
    suite: String,
    trials: usize,
}

/// One trial in a diff: a test and trial index, and its status (and
/// summary) in each run; `None` where that run has no such trial.
#[derive(Serialize)]
struct Row {
    test: String,
    /// 1-based, as reports number trials.
    trial: u32,
    a: Option<&'static str>,
    b: Option<&'static str>,
    a_summary: String,
    b_summary: String,
}

/// Each stored trial of a run: `(test id, trial index)` → (status, summary).
type Trials = BTreeMap<(String, u32), (TestStatus, String)>;

fn trials(store: &Store, id: &RunId) -> Result<Trials, PageError> {
    let mut out = Trials::new();
    store.trials(id, &mut |t| {
        out.insert(
            (t.test_id.clone(), t.trial_index),
            (t.result.status, one_line(&t.result.summary, SUMMARY_CHARS)),
        );
        std::ops::ControlFlow::Continue(())
    })?;
    Ok(out)
}

/// `/diff?a=A&b=B`: the trials of two runs of one suite, those whose
/// status changed first, then those only one run has, then the rest.
/// Runs of two suites (two suite files) are refused (409).
pub(crate) fn diff(store: &Store, a: &str, b: &str) -> Result<Page, PageError> {
    let find = |id: &str| -> Result<(RunId, RunRow), PageError> {
        let run_id = RunId::new(id);
        match store.run(&run_id)? {
            Some(row) => Ok((run_id, row)),
            None => Err(PageError::NotFound(format!("no run {id} in the store"))),
        }
    };
    let (a_id, a_row) = find(a)?;
    let (b_id, b_row) = find(b)?;
    if a_row.suite_path != b_row.suite_path {
        return Err(PageError::Conflict(format!(
            "run {a} is of suite {} and run {b} of suite {}: only runs of the same suite file can be compared",
            one_line(&a_row.suite_path, 200),
            one_line(&b_row.suite_path, 200)
        )));
    }
    let ta = trials(store, &a_id)?;
    let tb = trials(store, &b_id)?;
    let mut changed = Vec::new();
    let mut only = Vec::new();
    let mut same = Vec::new();
    let keys: std::collections::BTreeSet<&(String, u32)> = ta.keys().chain(tb.keys()).collect();
    for key in keys {
        let x = ta.get(key);
        let y = tb.get(key);
        let row = Row {
            test: key.0.clone(),
            trial: key.1.saturating_add(1),
            a: x.map(|(s, _)| s.as_str()),
            b: y.map(|(s, _)| s.as_str()),
            a_summary: x.map(|(_, m)| m.clone()).unwrap_or_default(),
            b_summary: y.map(|(_, m)| m.clone()).unwrap_or_default(),
        };
        match (x, y) {
            (Some((s, _)), Some((t, _))) if s == t => same.push(row),
            (Some(_), Some(_)) => changed.push(row),
            _ => only.push(row),
        }
    }
    let side = |row: &RunRow, n: usize| Side {
        id: row.id.as_str().to_string(),
        // As the list shows it: a run whose writer is gone is stopped.
        status: pactum_pipeline::stored::shown_status(store, row),
        started: row.started_at.clone(),
        suite: row.suite_path.clone(),
        trials: n,
    };
    let ctx = minijinja::context! {
        css => CSS,
        a => JValue::from(minijinja::value::Serde(side(&a_row, ta.len()))),
        b => JValue::from(minijinja::value::Serde(side(&b_row, tb.len()))),
        a_link => valid_run_id(a),
        b_link => valid_run_id(b),
        suite_changed => a_row.suite_digest != b_row.suite_digest,
        policy_changed => a_row.policy_digest != b_row.policy_digest,
        changed => JValue::from(minijinja::value::Serde(&changed)),
        only => JValue::from(minijinja::value::Serde(&only)),
        same => JValue::from(minijinja::value::Serde(&same)),
    };
    Ok(Page::ours(
        200,
        render("diff.html", ctx).map_err(PageError::Internal)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_in_urls_are_letters_digits_and_dashes_only() {
        assert!(valid_run_id("r20261130-010203-ab12"));
        for bad in [
            "",
            "..",
            "../pactum.db",
            "r1/../../etc",
            "r%2e%2e",
            "r1'--",
            "r1\"",
            "r 1",
            "r1\u{0}",
            "r\u{2028}",
            &"r".repeat(65),
        ] {
            assert!(!valid_run_id(bad), "{bad:?}");
        }
    }

    /// A store of `n` finished runs of one suite, a second apart.
    fn store_of(n: usize) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("pactum.db")).expect("store");
        for i in 0..n {
            let id = store
                .create_run(&pactum_store::NewRun {
                    suite_path: "suite.yaml".into(),
                    suite_digest: format!("sha256:{}", "a".repeat(64)),
                    suite_snapshot: "{}".into(),
                    policy: pactum_core::policy::Policy::default(),
                    started_at: format!(
                        "2026-12-01T{:02}:{:02}:{:02}Z",
                        i / 3600,
                        (i / 60) % 60,
                        i % 60
                    ),
                    pactum_version: "0.1.0".into(),
                    cache_mode: pactum_store::CacheMode::Use,
                })
                .expect("run");
            if i % 2 == 0 {
                store
                    .finish_run(
                        &id,
                        pactum_store::RunStatus::Finished,
                        "2026-12-02T00:00:00Z",
                    )
                    .expect("finished");
            }
        }
        (dir, store)
    }

    fn listed(page: &Page) -> usize {
        page.text().matches("class=\"run-link\"").count()
    }

    #[test]
    fn the_run_list_is_paged_and_filtered_by_the_status_it_shows() {
        let (dir, store) = store_of(2 * RUNS_PER_PAGE + 30);
        let path = dir.path().join("pactum.db");
        let all = |page| Filters {
            page,
            ..Filters::default()
        };
        let first = list(&store, &path, &all(1)).expect("page 1");
        assert_eq!(listed(&first), RUNS_PER_PAGE);
        assert!(first.text().contains("Page 1 of 3"), "{}", first.text());
        assert!(first.text().contains("?page=2\""), "{}", first.text());
        let last = list(&store, &path, &all(3)).expect("page 3");
        assert_eq!(listed(&last), 30);
        assert!(last.text().contains("?page=2\""), "{}", last.text());
        assert!(!last.text().contains("older runs"), "{}", last.text());
        // Every run is on exactly one page.
        let mut seen = std::collections::BTreeSet::new();
        for p in 1..=3 {
            let text = list(&store, &path, &all(p)).expect("page").text();
            for (i, _) in text.match_indices("href=\"/runs/") {
                let id: String = text[i + 13..].chars().take_while(|c| *c != '"').collect();
                assert!(seen.insert(id), "a run on two pages");
            }
        }
        assert_eq!(seen.len(), 2 * RUNS_PER_PAGE + 30);
        match list(&store, &path, &all(4)) {
            Err(PageError::NotFound(m)) => assert!(m.contains("it has 3"), "{m}"),
            other => panic!("page 4: {:?}", other.map(|p| p.text())),
        }
        // A run left `running` with no writer is listed, and filtered, as
        // stopped: `running` never lists it.
        let by = |status| Filters {
            status: Some(status),
            page: 1,
            ..Filters::default()
        };
        let running = list(&store, &path, &by("running")).expect("running");
        assert_eq!(listed(&running), 0, "{}", running.text());
        let stopped = list(&store, &path, &by("stopped")).expect("stopped");
        assert_eq!(listed(&stopped), RUNS_PER_PAGE);
        assert!(
            stopped.text().contains("?status=stopped&amp;page=2\""),
            "{}",
            stopped.text()
        );
        let finished = list(&store, &path, &by("finished")).expect("finished");
        assert!(
            finished.text().contains("115 matching the filters"),
            "{}",
            finished.text()
        );
        assert!(!finished.text().contains("class=\"status stopped\""));
    }

    #[test]
    fn error_pages_escape_what_they_say() {
        let page = Page::error(
            404,
            "Not found",
            "no run </script><script>window.PWNED=1</script> <img src=x onerror=alert(1)> \u{202e}",
        );
        let text = page.text();
        assert_eq!(page.status(), 404);
        assert!(!text.contains("<script>"), "{text}");
        assert!(!text.contains("<img"), "{text}");
        assert!(
            text.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{text}"
        );
        assert!(text.contains("<span class=\"ctl\">U+202E</span>"), "{text}");
    }

    #[test]
    fn our_policy_allows_our_style_sheet_and_no_script() {
        let p = own_policy();
        assert!(p.contains(&csp_hash(CSS)));
        assert!(p.contains("script-src 'none'"));
        assert!(p.starts_with("default-src 'none'"));
    }
}
