//! Measures the targets against real local processes: N single-turn
//! requests at concurrency J to the scripted server answering after 50 ms
//! (openai and http), and C exec conversations of 3 turns each with the
//! example echo agent. Prints wall time and this process's CPU time.
//!
//! ```sh
//! cargo run -p pactum-target --example throughput --release -- [N] [J]
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use pactum_core::trace::ObservabilityLevel;
use pactum_llm::testing::ScriptedServer;
use pactum_target::{
    Conversation, Limits, Message, ResponseMap, Retries, Role, Target, TargetKind, TargetSpec,
};
use serde_json::{json, Map};

/// User plus system CPU time of this process, in seconds (Linux; 100 Hz
/// clock ticks).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After the command name: state is field 0, utime 11, stime 12.
    (ticks(11) + ticks(12)) / 100.0
}

fn limits(concurrency: usize) -> Limits {
    Limits {
        timeout_ms: 30_000,
        concurrency,
        requests_per_second: None,
        retries: Retries {
            max: 2,
            base_backoff_ms: 100,
            max_backoff_ms: 1000,
        },
    }
}

fn conv(id: String, turn: u32, messages: Vec<Message>) -> Conversation {
    Conversation {
        id,
        messages,
        target_conversation_id: None,
        turn,
        vars: Map::new(),
    }
}

fn user(text: &str) -> Message {
    Message {
        role: Role::User,
        content: text.into(),
    }
}

async fn single_turns(label: &str, target: Arc<Target>, n: usize) {
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let t = target.clone();
        tasks.push(tokio::spawn(async move {
            t.reply(&conv(format!("t{i}#0"), 1, vec![user("hello")]))
                .await
        }));
    }
    let mut failed = 0;
    for task in tasks {
        if !matches!(task.await, Ok(Ok(_))) {
            failed += 1;
        }
    }
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    println!(
        "{label}: {n} requests, {failed} failed, wall {wall:.3} s, cpu {:.3} ms per request",
        cpu * 1000.0 / n as f64
    );
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(1000);
    let j = args.get(1).copied().unwrap_or(50);
    let server = ScriptedServer::start_with(
        &json!([
            {"match": {"path": "/chat"}, "delay_ms": 50, "body": {"text": "ok"}},
            {"match": {}, "delay_ms": 50, "content": "ok"}
        ]),
        false,
    )?;
    println!(
        "ideal wall time: {:.3} s ({n} × 50 ms / {j})",
        n as f64 * 0.05 / j as f64
    );

    let openai = Target::new(&TargetSpec {
        name: "openai".into(),
        observability: ObservabilityLevel::ResponseOnly,
        limits: limits(j),
        kind: TargetKind::Openai {
            base_url: server.openai_base_url(),
            model: "m".into(),
            api_key_env: None,
            params: Map::new(),
            tools: vec![],
            system: None,
        },
    })
    .map_err(std::io::Error::other)?;
    single_turns("openai", Arc::new(openai), n).await;

    let http = Target::new(&TargetSpec {
        name: "http".into(),
        observability: ObservabilityLevel::ResponseOnly,
        limits: limits(j),
        kind: TargetKind::Http {
            method: "POST".into(),
            url: format!("{}/chat", server.base_url()),
            headers: BTreeMap::new(),
            body: Some(json!({"message": "{{ message }}", "history": "{{ messages }}"})),
            response: ResponseMap {
                text: "$.text".into(),
                tool_calls: None,
                side_effects: None,
                conversation_id: None,
            },
        },
    })
    .map_err(std::io::Error::other)?;
    single_turns("http", Arc::new(http), n).await;

    let conversations = (n / 10).max(1);
    let exec_j = 8;
    let repo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let exec = Arc::new(
        Target::new(&TargetSpec {
            name: "exec".into(),
            observability: ObservabilityLevel::Full,
            limits: limits(exec_j),
            kind: TargetKind::Exec {
                command: vec!["python3".into(), "examples/targets/echo_agent.py".into()],
                cwd: repo,
                env: BTreeMap::new(),
                mode: Default::default(),
            },
        })
        .map_err(std::io::Error::other)?,
    );
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let mut tasks = Vec::new();
    for i in 0..conversations {
        let t = exec.clone();
        tasks.push(tokio::spawn(async move {
            let id = format!("e{i}#0");
            let mut messages = Vec::new();
            for turn in 1..=3u32 {
                messages.push(user("hello"));
                let r = t.reply(&conv(id.clone(), turn, messages.clone())).await?;
                messages.push(Message {
                    role: Role::Assistant,
                    content: r.text.unwrap_or_default(),
                });
            }
            t.close(&id).await;
            Ok::<_, pactum_target::TargetError>(())
        }));
    }
    let mut failed = 0;
    for task in tasks {
        if !matches!(task.await, Ok(Ok(()))) {
            failed += 1;
        }
    }
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    println!(
        "exec: {conversations} conversations × 3 turns at concurrency {exec_j}, {failed} failed, wall {wall:.3} s, cpu {:.3} ms per turn",
        cpu * 1000.0 / (conversations * 3) as f64
    );
    Ok(())
}
