//! Cache keys for chat requests (`docs/store.md`): the SHA-256 of everything
//! that can change an answer, and nothing else.

use serde_json::json;

use crate::client::{parse_base_url, shown, ChatRequest, Endpoint};

/// The cache key of sending `req` to `ep` under `prompt_version`:
/// `sha256:<hex>` of the canonical JSON (RFC 8785, via
/// [`pactum_core::digest`]) of
/// `{provider, base_url, model, params, messages, tools, response_format,
/// prompt_version}`, where `base_url` is normalised (scheme and host
/// lower-cased, default port, credentials, query and trailing slash
/// dropped) and `params` is the endpoint's parameters with the request's
/// merged over them ([`Endpoint::merged_params`]).
///
/// Never covered: the API key (nor its variable's name), the timeout, the
/// retry policy and the limits, none of which change an answer.
pub fn cache_key(ep: &Endpoint, req: &ChatRequest, prompt_version: &str) -> String {
    let base_url = match parse_base_url(&ep.base_url) {
        Ok(u) => shown(&u),
        Err(_) => ep.base_url.trim().trim_end_matches('/').to_string(),
    };
    pactum_core::digest::digest_of(&json!({
        "provider": ep.provider,
        "base_url": base_url,
        "model": ep.model,
        "params": ep.merged_params(req),
        "messages": req.messages,
        "tools": req.tools,
        "response_format": req.response_format,
        "prompt_version": prompt_version,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{ChatMessage, RetryPolicy};
    use proptest::prelude::*;
    use serde_json::json;
    use std::time::Duration;

    fn base() -> (Endpoint, ChatRequest) {
        let mut ep = Endpoint::new("http://127.0.0.1:11434/v1", "llama3");
        ep.params.insert("temperature".into(), json!(0.1));
        ep.params.insert("max_tokens".into(), json!(256));
        let req = ChatRequest {
            messages: vec![
                ChatMessage::system("You are a bank assistant."),
                ChatMessage::user("Send 100 EUR to Bob."),
            ],
            tools: vec![
                json!({"type": "function", "function": {"name": "send_money",
                "parameters": {"type": "object", "properties": {"to": {"type": "string"}}}}}),
            ],
            params: serde_json::Map::new(),
            response_format: None,
        };
        (ep, req)
    }

    type Change = (
        &'static str,
        fn(&mut Endpoint, &mut ChatRequest, &mut String),
    );

    /// Each changes one thing that can change an answer.
    const CHANGES: [Change; 13] = [
        ("model", |e, _, _| e.model = "llama3.1".into()),
        ("endpoint param value", |e, _, _| {
            e.params.insert("temperature".into(), json!(0.2));
        }),
        ("endpoint param added", |e, _, _| {
            e.params.insert("seed".into(), json!(7));
        }),
        ("request param", |_, r, _| {
            r.params.insert("max_tokens".into(), json!(512));
        }),
        ("message text", |_, r, _| {
            r.messages[1].content = Some("Send 101 EUR to Bob.".into())
        }),
        ("message role", |_, r, _| r.messages[0].role = "user".into()),
        ("message added", |_, r, _| {
            r.messages.push(ChatMessage::assistant("Done."))
        }),
        ("tool definition", |_, r, _| {
            r.tools[0]["function"]["parameters"]["properties"]["to"]["type"] = json!("integer")
        }),
        ("tool added", |_, r, _| {
            r.tools
                .push(json!({"type": "function", "function": {"name": "x"}}))
        }),
        ("base_url", |e, _, _| {
            e.base_url = "http://127.0.0.1:8000/v1".into()
        }),
        ("prompt_version", |_, _, v| v.push_str("-2")),
        ("provider", |e, _, _| {
            e.provider = "openai-compatible".into()
        }),
        ("response_format", |_, r, _| {
            r.response_format = Some(json!({"type": "json_object"}))
        }),
    ];

    /// Each changes only things that cannot change an answer.
    const SAME: [Change; 8] = [
        ("nothing", |_, _, _| {}),
        ("timeout, retries, limits", |e, _, _| {
            e.timeout = Duration::from_secs(1);
            e.retry = RetryPolicy {
                max_retries: 9,
                base_backoff: Duration::from_secs(2),
                max_backoff: Duration::from_secs(9),
            };
            e.concurrency = 99;
            e.requests_per_second = Some(0.5);
        }),
        ("api key variable", |e, _, _| {
            e.api_key_env = Some("OTHER_KEY".into())
        }),
        ("trailing slash", |e, _, _| {
            e.base_url = "http://127.0.0.1:11434/v1/".into()
        }),
        ("param order", |e, _, _| {
            let mut m = serde_json::Map::new();
            m.insert("max_tokens".into(), json!(256));
            m.insert("temperature".into(), json!(0.1));
            e.params = m;
        }),
        ("request repeats the endpoint's param", |_, r, _| {
            r.params.insert("temperature".into(), json!(0.1));
        }),
        ("reserved params", |e, r, _| {
            e.params.insert("stream".into(), json!(true));
            r.params.insert("model".into(), json!("gpt-4o"));
        }),
        ("number spelling", |e, _, _| {
            e.params.insert("max_tokens".into(), json!(256.0));
        }),
    ];

    fn key_after(change: fn(&mut Endpoint, &mut ChatRequest, &mut String)) -> String {
        let (mut ep, mut req) = base();
        let mut v = "p1".to_string();
        change(&mut ep, &mut req, &mut v);
        cache_key(&ep, &req, &v)
    }

    #[test]
    fn every_single_change_changes_the_key_and_no_two_collide() {
        let base_key = key_after(|_, _, _| {});
        assert!(base_key.starts_with("sha256:") && base_key.len() == 71);
        let mut seen = vec![("base", base_key)];
        for (name, change) in CHANGES {
            let k = key_after(change);
            for (other, ok) in &seen {
                assert_ne!(&k, ok, "{name} collides with {other}");
            }
            seen.push((name, k));
        }
    }

    #[test]
    fn irrelevant_changes_keep_the_key() {
        let base_key = key_after(|_, _, _| {});
        for (name, change) in SAME {
            assert_eq!(key_after(change), base_key, "{name}");
        }
    }

    #[test]
    fn base_url_spellings_of_one_url_share_a_key() {
        let (mut ep, req) = base();
        let keys: Vec<String> = [
            "http://localhost/v1",
            "HTTP://LocalHost:80/v1/",
            "http://user:secret@localhost/v1?x=1",
            " http://localhost/v1 ",
        ]
        .iter()
        .map(|u| {
            ep.base_url = (*u).to_string();
            cache_key(&ep, &req, "p1")
        })
        .collect();
        assert!(keys.iter().all(|k| k == &keys[0]), "{keys:#?}");
        ep.base_url = "https://localhost/v1".into();
        assert_ne!(cache_key(&ep, &req, "p1"), keys[0]);
    }

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(any::<char>(), 0..40).prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #[test]
        fn keys_are_deterministic_and_see_every_message(
            texts in proptest::collection::vec(text(), 1..6),
            pick in any::<proptest::sample::Index>(),
            extra in any::<char>(),
            temp in 0u32..200,
        ) {
            let (mut ep, _) = base();
            ep.params.insert("temperature".into(), json!(f64::from(temp) / 100.0));
            let req = ChatRequest {
                messages: texts.iter().map(|t| ChatMessage::user(t.clone())).collect(),
                ..ChatRequest::default()
            };
            let k = cache_key(&ep, &req, "v");
            prop_assert_eq!(&k, &cache_key(&ep.clone(), &req.clone(), "v"));
            let i = pick.index(texts.len());
            let mut changed = req.clone();
            changed.messages[i].content = Some(format!("{}{extra}", texts[i]));
            prop_assert_ne!(&k, &cache_key(&ep, &changed, "v"));
            let mut other_param = ep.clone();
            other_param
                .params
                .insert("temperature".into(), json!(f64::from(temp + 1) / 100.0));
            prop_assert_ne!(&k, &cache_key(&other_param, &req, "v"));
        }
    }
}
