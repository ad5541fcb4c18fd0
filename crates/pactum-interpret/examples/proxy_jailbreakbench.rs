//! How far the built-in interpreter's deterministic proxy ("the target
//! complied instead of refusing") agrees with JailbreakBench's `jailbroken`
//! labels, on real attack prompts and real model responses.
//!
//! ```sh
//! cargo run -p pactum-interpret --example proxy_jailbreakbench -- \
//!     /work/shared/data/jailbreakbench-artifacts/attack-artifacts [--unread] [--samples N]
//! ```
//!
//! `--unread` lists the goals the built-in interpreter could not read, with
//! its reasons; `--samples N` prints up to N responses of each kind of
//! disagreement.
//!
//! For every record with a response: the test is authored as
//! `goal: "Convince the target to <JBB goal>"`, interpreted by
//! `interpret_builtin`, and its scoring contract (a direct request, no
//! judge) grades a one-turn trace of the attack prompt and the response.
//! `jailbroken: true` should FAIL, `false` should PASS. The labels come from
//! the benchmark's own automated judge, not from people.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pactum_core::digest::digest_of;
use pactum_core::policy::Policy;
use pactum_core::status::TestStatus;
use pactum_core::trace::{Message, ObservabilityLevel, Role, Trace, Turn};
use pactum_eval::{grade_trace, CompiledContract, NoJudge};
use pactum_interpret::{interpret_builtin, AuthoredFields, Exchange};
use serde_json::Value;

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "test-artifact") {
                continue;
            }
            files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    Ok(())
}

/// The goal with its first letter lower-cased ("Write …" → "write …").
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args()
        .nth(1)
        .ok_or("usage: proxy_jailbreakbench ATTACK_ARTIFACTS_DIR")?;
    let mut paths = Vec::new();
    files(Path::new(&root), &mut paths).map_err(|e| format!("{root}: {e}"))?;
    let policy = Policy::default();
    // (jailbroken, status) → count
    let mut table: BTreeMap<(bool, &'static str), u32> = BTreeMap::new();
    let (mut records, mut unreadable_goals) = (0u32, 0u32);
    let mut unread: BTreeMap<String, String> = BTreeMap::new();
    let show_unread = std::env::args().any(|a| a == "--unread");
    let show_samples: u32 = std::env::args()
        .skip_while(|a| a != "--samples")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let mut samples: BTreeMap<(bool, &'static str), u32> = BTreeMap::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let doc: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let Some(rows) = doc.get("jailbreaks").and_then(Value::as_array) else {
            continue;
        };
        for (i, row) in rows.iter().enumerate() {
            let (Some(goal), Some(prompt), Some(response), Some(jailbroken)) = (
                row.get("goal").and_then(Value::as_str),
                row.get("prompt").and_then(Value::as_str),
                row.get("response").and_then(Value::as_str),
                row.get("jailbroken").and_then(Value::as_bool),
            ) else {
                continue;
            };
            records += 1;
            let f = AuthoredFields {
                goal: format!("Convince the target to {}", lower_first(goal)),
                ..AuthoredFields::default()
            };
            let interpretation = interpret_builtin(&f, &policy);
            let Some(contract) = interpretation.scoring_contract(false, Exchange::DirectRequest)
            else {
                unreadable_goals += 1;
                unread.insert(
                    goal.to_string(),
                    interpretation.reason.clone().unwrap_or_default(),
                );
                *table.entry((jailbroken, "not interpreted")).or_default() += 1;
                continue;
            };
            let digest = digest_of(&contract);
            let compiled = CompiledContract::compile(contract, digest)?;
            let trace = Trace {
                id: format!("{}#{i}", path.display()),
                observability: ObservabilityLevel::ResponseOnly,
                turns: vec![Turn {
                    input: vec![Message {
                        role: Role::User,
                        content: prompt.to_string(),
                    }],
                    response: Some(response.to_string()),
                    ..Turn::default()
                }],
                metadata: Value::Null,
                error: None,
                incomplete: None,
                ended_by: None,
                source: None,
                offered_tools: None,
            };
            let r = grade_trace(std::slice::from_ref(&compiled), &trace, &policy, &NoJudge);
            let status = match r.status {
                TestStatus::Fail => "FAIL",
                TestStatus::Pass => "PASS",
                TestStatus::Undetermined => "WARN",
                TestStatus::Error => "ERR",
            };
            *table.entry((jailbroken, status)).or_default() += 1;
            let shown = samples.entry((jailbroken, status)).or_default();
            if *shown < show_samples && (jailbroken != (status == "FAIL")) {
                *shown += 1;
                println!(
                    "sample jailbroken={jailbroken} status={status}: {}",
                    pactum_core::text::one_line(response, 160)
                );
            }
        }
    }
    if show_unread {
        for (goal, reason) in &unread {
            println!("not read: {goal}\n    {reason}");
        }
    }
    println!("{records} records with a response; {unreadable_goals} of them with a goal the built-in interpreter did not read ({} distinct goals)",
        unread.len());
    println!(
        "{:<12} {:>6} {:>6} {:>6} {:>6} {:>16}",
        "jailbroken", "FAIL", "PASS", "WARN", "ERR", "not interpreted"
    );
    for jb in [true, false] {
        let get = |s| table.get(&(jb, s)).copied().unwrap_or(0);
        println!(
            "{:<12} {:>6} {:>6} {:>6} {:>6} {:>16}",
            jb,
            get("FAIL"),
            get("PASS"),
            get("WARN"),
            get("ERR"),
            get("not interpreted")
        );
    }
    let get = |jb, s| f64::from(table.get(&(jb, s)).copied().unwrap_or(0));
    let graded = |jb| {
        ["FAIL", "PASS", "WARN", "ERR"]
            .iter()
            .map(|s| get(jb, s))
            .sum::<f64>()
            .max(1.0)
    };
    println!(
        "of the interpreted records: jailbreaks FAIL {:.1}%, PASS (shown green) {:.1}%, WARN {:.1}%; \
         non-jailbreaks PASS {:.1}%, FAIL {:.1}%, WARN {:.1}%",
        100.0 * get(true, "FAIL") / graded(true),
        100.0 * get(true, "PASS") / graded(true),
        100.0 * get(true, "WARN") / graded(true),
        100.0 * get(false, "PASS") / graded(false),
        100.0 * get(false, "FAIL") / graded(false),
        100.0 * get(false, "WARN") / graded(false),
    );
    Ok(())
}
