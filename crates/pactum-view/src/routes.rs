//! From a request to a page: the `Host` check, the method, the path and
//! the query, each checked before the store is read. A query names only
//! the parameters a page takes, each once; anything else is a 400.

use std::borrow::Cow;

use hyper::{Method, Uri};

use crate::pages::{self, Filters, Page, PageError};
use crate::snapshot;
use crate::State;

/// The page for one request. `host` is the `Host` header: `None` when
/// absent, `Err` when not text.
pub(crate) fn handle(
    state: &State,
    method: &Method,
    uri: &Uri,
    host: Option<Result<String, ()>>,
) -> Page {
    if let Some(allowed) = &state.hosts {
        let ok = matches!(&host, Some(Ok(h)) if allowed.iter().any(|a| a.eq_ignore_ascii_case(h)));
        if !ok {
            // Another name for this server is a page elsewhere reaching
            // it by DNS rebinding: refused.
            return Page::error(
                421,
                "Misdirected request",
                "this server answers only requests addressed to it by its loopback address (127.0.0.1, [::1] or localhost, with its port)",
            );
        }
    }
    if *method != Method::GET && *method != Method::HEAD {
        return Page::method_not_allowed();
    }
    match route(state, uri.path(), uri.query()) {
        Ok(page) => page,
        Err(e) => e.page(),
    }
}

fn route(state: &State, path: &str, query: Option<&str>) -> Result<Page, PageError> {
    let db_arg = state.db_arg.as_deref();
    if path == "/" {
        let q = parse_query(query, &["suite", "status", "page"])?;
        let filters = Filters {
            suite: q.get("suite").filter(|s| !s.is_empty()).cloned(),
            status: match q.get("status").map(String::as_str) {
                None | Some("") => None,
                Some(s) => Some(
                    pages::SHOWN_STATUSES
                        .into_iter()
                        .find(|k| *k == s)
                        .ok_or_else(|| {
                            PageError::BadRequest(format!(
                                "unknown status {:?}: one of {}",
                                pactum_core::text::one_line(s, 80),
                                pages::SHOWN_STATUSES.join(", ")
                            ))
                        })?,
                ),
            },
            page: match q.get("page").map(String::as_str) {
                None | Some("") => 1,
                Some(p) => p
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=1_000_000).contains(n) && !p.starts_with('+'))
                    .ok_or_else(|| {
                        PageError::BadRequest(format!(
                            "page is not a page number (1, 2, …): {:?}",
                            pactum_core::text::one_line(p, 80)
                        ))
                    })?,
            },
        };
        let shown = db_arg.unwrap_or(&state.db);
        return snapshot::read(&state.db, |store| pages::list(store, shown, &filters));
    }
    if let Some(id) = path.strip_prefix("/runs/") {
        parse_query(query, &[])?;
        let id = run_id(id, "the run")?;
        return snapshot::read(&state.db, |store| pages::run(store, id, db_arg));
    }
    if path == "/diff" {
        let q = parse_query(query, &["a", "b"])?;
        let (a, b) = (diff_run(&q, "a")?, diff_run(&q, "b")?);
        return snapshot::read(&state.db, |store| pages::diff(store, a, b));
    }
    Err(PageError::NotFound(format!(
        "no page {}: the pages are / (the runs), /runs/RUN and /diff?a=RUN&b=RUN",
        pactum_core::text::one_line(path, 200)
    )))
}

/// Parameter `k` of a diff: a run id.
fn diff_run<'q>(
    q: &'q std::collections::BTreeMap<String, String>,
    k: &str,
) -> Result<&'q str, PageError> {
    let v = q.get(k).ok_or_else(|| {
        PageError::BadRequest(format!(
            "a diff needs two runs: /diff?a=RUN&b=RUN ({k} is missing)"
        ))
    })?;
    run_id(v, k)
}

/// A run id from a URL, checked ([`pages::valid_run_id`]).
fn run_id<'a>(id: &'a str, what: &str) -> Result<&'a str, PageError> {
    if pages::valid_run_id(id) {
        Ok(id)
    } else {
        Err(PageError::BadRequest(format!(
            "{what} is not a run id (letters, digits and '-', e.g. r20261130-010203-ab12): {:?}",
            pactum_core::text::one_line(id, 80)
        )))
    }
}

/// The query's parameters, each one of `known` and given at most once.
fn parse_query(
    query: Option<&str>,
    known: &[&str],
) -> Result<std::collections::BTreeMap<String, String>, PageError> {
    let mut out = std::collections::BTreeMap::new();
    for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if !known.contains(&k.as_ref()) {
            return Err(PageError::BadRequest(format!(
                "unknown parameter {:?}{}",
                pactum_core::text::one_line(&k, 80),
                if known.is_empty() {
                    Cow::Borrowed(": this page takes none")
                } else {
                    Cow::Owned(format!(": this page takes {}", known.join(", ")))
                }
            )));
        }
        if out.insert(k.to_string(), v.into_owned()).is_some() {
            return Err(PageError::BadRequest(format!(
                "parameter {k} is given twice"
            )));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_name_known_parameters_once() {
        assert!(parse_query(None, &[]).is_ok());
        assert!(parse_query(Some(""), &["a"]).is_ok());
        let q = parse_query(Some("a=r1&b=r%32"), &["a", "b"]).expect("valid");
        assert_eq!(q.get("b").map(String::as_str), Some("r2"));
        assert!(parse_query(Some("a=1&a=2"), &["a", "b"]).is_err());
        assert!(parse_query(Some("c=1"), &["a", "b"]).is_err());
        assert!(parse_query(Some("x=1"), &[]).is_err());
    }
}
