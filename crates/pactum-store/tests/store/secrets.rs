//! API keys never reach the store (SPEC §4): a child process with a key in
//! its environment runs a full record cycle, with the key planted (plain
//! and escaped) in every text it records and the store told to redact it;
//! the parent scans every byte the store left on disk for it.

use std::path::Path;

use pactum_core::contract::CONTRACT_SCHEMA_VERSION;
use pactum_core::TestStatus;
use pactum_store::{CacheKind, InterpretationKey, RunStatus, Store, StoredInterpretation};
use serde_json::json;

use crate::common::*;

const DB_VAR: &str = "PACTUM_STORE_TEST_SECRETS_DB";
const KEY_VAR: &str = "PACTUM_TEST_OPENAI_API_KEY";
const MARKER_VAR: &str = "PACTUM_STORE_TEST_MARKER";

/// The child: what a run does with the store, with the key in reach.
#[test]
#[ignore = "helper: run in a child process by no_api_key_reaches_the_file"]
fn record_cycle_child() {
    let (Ok(db), Ok(marker)) = (std::env::var(DB_VAR), std::env::var(MARKER_VAR)) else {
        return;
    };
    // As a runner would: the key is read for the client, and the store only
    // ever gets typed values built from requests and answers.
    let api_key = std::env::var(KEY_VAR).expect("the key is in the environment");
    assert!(api_key.starts_with("sk-"));

    let mut store = Store::open(Path::new(&db)).expect("open");
    store
        .redact_with(&pactum_core::secret::Redactor::new([&api_key]).expect("key"))
        .expect("redactor");
    // The key as an answer may echo it: plain, JSON-escaped, percent-encoded.
    let escaped: String = api_key
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let echoes = format!("{api_key} {escaped} {}", api_key.replace('-', "%2D"));
    let mut new = new_run("banking", T0);
    new.suite_path = format!("suites/{api_key}.yaml");
    let mut snapshot: serde_json::Value = serde_json::from_str(&new.suite_snapshot).expect("json");
    snapshot["tests"][0]["vars"] = json!({ "k": api_key });
    new.suite_snapshot = snapshot.to_string();
    let run = store.create_run(&new).expect("create");
    for i in 0..3 {
        let mut t = trial(&run, "pay-bill", i, TestStatus::ALL[i as usize]);
        if let Some(trace) = t.trace.as_mut() {
            trace.turns[0].response = Some(format!("{marker} answer {i} {echoes}"));
            if let Some(call) = trace
                .turns
                .iter_mut()
                .flat_map(|t| &mut t.tool_calls)
                .next()
            {
                call.name = api_key.clone();
                call.arguments = json!({ api_key.clone(): echoes.clone() });
            }
            trace.metadata = json!({ "echo": echoes.clone() });
        }
        t.result.summary = format!("fail: {echoes}");
        t.result.error = Some(echoes.clone());
        t.judge_answers[0].raw_answer = format!("{marker} judge {i} {echoes}");
        t.judge_answers[0].parsed = Err(format!("not JSON: {echoes}"));
        store.record_trial(&t).expect("record");
    }
    let request_key = digest(&format!(
        "openai|gpt-4o-mini|temperature=0|messages…|{marker}"
    ));
    store
        .cache_put(
            &request_key,
            CacheKind::Target,
            &json!({"content": format!("{marker} cached {echoes}")}),
            T0,
        )
        .expect("cache");
    store.cache_get(&request_key).expect("hit");
    let key = InterpretationKey {
        authored_digest: digest("goal"),
        prompt_version: "interpret-v1".into(),
        model: "gpt-4o-mini".into(),
    };
    store
        .interpretation_put(
            &key,
            &StoredInterpretation {
                contract: Some(banking_contract()),
                confidence: 90,
                usable: true,
                reason: Some(format!("{marker} interpretation {echoes}")),
                created_at: T0.into(),
                contract_version: CONTRACT_SCHEMA_VERSION,
                note: Some(echoes.clone()),
                extra: vec![echoes.clone()],
            },
        )
        .expect("interpretation");
    store
        .finish_run(&run, RunStatus::Finished, "2026-11-30T01:05:00Z")
        .expect("finish");
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn no_api_key_reaches_the_file() {
    let dir = tmp();
    let db = dir.path().join(".pactum/pactum.db");
    let nonce = format!(
        "{}{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    );
    let sentinel = format!("sk-pactum-sentinel-{nonce}-do-not-store");
    // The marker shares no 8 characters with the key: those would be a
    // fragment of it, and redacted.
    let letters: String = nonce
        .chars()
        .map(|c| char::from(b'a' + c.to_digit(10).unwrap_or(0) as u8))
        .collect();
    let marker = format!("STORED-MARKER-{letters}");
    let status = child(
        "secrets::record_cycle_child",
        &[
            (DB_VAR, &db.display().to_string()),
            (KEY_VAR, &sentinel),
            (MARKER_VAR, &marker),
        ],
    )
    .status()
    .expect("child");
    assert!(status.success(), "the record cycle failed: {status}");

    // Every file the store left: the database, and any WAL or shared memory.
    let mut bytes = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(db.parent().expect("folder")).expect("list") {
        let path = entry.expect("entry").path();
        bytes.extend(std::fs::read(&path).expect("read"));
        files.push(path);
    }
    assert!(!files.is_empty());
    // The scan sees what was stored (so it could see the key)…
    assert!(
        contains(&bytes, marker.as_bytes()),
        "the scan does not see stored text in {files:?}"
    );
    assert!(contains(&bytes, b"US133000000121212121212"));
    // …and the key is not there, in whole or in its distinctive part.
    assert!(
        !contains(&bytes, sentinel.as_bytes()),
        "the API key reached {files:?}"
    );
    assert!(
        !contains(&bytes, format!("sentinel-{nonce}").as_bytes()),
        "part of the API key reached {files:?}"
    );
    for piece in [&sentinel[..8], &sentinel[sentinel.len() - 8..]] {
        assert!(
            !contains(&bytes, piece.as_bytes()),
            "`{piece}` of the API key reached {files:?}"
        );
    }
    assert!(contains(&bytes, b"[redacted]"), "nothing was redacted");
}
