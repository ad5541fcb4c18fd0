//! API keys never reach the store (SPEC §4): a child process with a key in
//! its environment runs a full record cycle; the parent scans every byte
//! the store left on disk for it.

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

    let store = Store::open(Path::new(&db)).expect("open");
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    for i in 0..3 {
        let mut t = trial(&run, "pay-bill", i, TestStatus::ALL[i as usize]);
        if let Some(trace) = t.trace.as_mut() {
            trace.turns[0].response = Some(format!("{marker} answer {i}"));
        }
        t.judge_answers[0].raw_answer = format!("{marker} judge {i}");
        store.record_trial(&t).expect("record");
    }
    let request_key = digest(&format!(
        "openai|gpt-4o-mini|temperature=0|messages…|{marker}"
    ));
    store
        .cache_put(
            &request_key,
            CacheKind::Target,
            &json!({"content": format!("{marker} cached")}),
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
                reason: Some(format!("{marker} interpretation")),
                created_at: T0.into(),
                contract_version: CONTRACT_SCHEMA_VERSION,
                note: None,
                extra: vec![],
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
    let marker = format!("STORED-MARKER-{nonce}");
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
}
