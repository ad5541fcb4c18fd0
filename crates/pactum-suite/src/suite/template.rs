//! The one template engine of pactum (minijinja, Jinja2 syntax) and the
//! context its templates read. Suite files use it for prompts, scripted
//! turns and http target requests; the loader checks every template with it
//! and the http target renders with it, so both agree on what a template
//! means.
//!
//! Undefined values are errors (strict mode): a template never renders a
//! missing variable as empty text. Rendering is bounded (minijinja's fuel),
//! so a runaway loop is an error, not a hang.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use minijinja::{Environment, UndefinedBehavior};
use serde_json::{Map, Value};

/// The names an http target's templates can read at run time besides the
/// test's `vars` (docs/suites.md, "Templates"). `env` is the fifth, and
/// only header values may read it.
pub const RUNTIME_NAMES: [&str; 5] = [
    "message",
    "messages",
    "conversation_id",
    "pactum_conversation_id",
    "turn",
];

/// The root name under which header templates read environment variables
/// (`{{ env.AGENT_TOKEN }}`).
pub const ENV_ROOT: &str = "env";

/// Work one render may do, in minijinja fuel units (about one per
/// instruction, or 64 bytes allocated).
const FUEL: u64 = 200_000;

static ENV: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(FUEL));
    // Prompts written as YAML block scalars end with a newline; keep it.
    if let Ok(syntax) = minijinja::syntax::SyntaxConfig::builder()
        .keep_trailing_newline(true)
        .build()
    {
        env.set_syntax(syntax);
    }
    env
});

/// The run-time values of one turn of an http target (SPEC §2 trace
/// vocabulary), from which [`http_context`] builds the template context.
#[derive(Debug, Clone, Copy)]
pub struct TurnContext<'a> {
    /// This turn's user message.
    pub message: &'a str,
    /// The conversation so far, this message included, as chat messages
    /// (`{"role": "user" | "assistant", "content": "…"}`), oldest first.
    pub messages: &'a [Value],
    /// The conversation id the target returned earlier (`response.conversation_id`),
    /// `None` before it has returned one (templates then read `null`).
    pub conversation_id: Option<&'a str>,
    /// pactum's own id of this conversation (run, test and trial), for
    /// APIs that want the client to name the conversation.
    pub pactum_conversation_id: &'a str,
    /// 1-based turn number.
    pub turn: u32,
    /// Environment variable name → value, for header templates only; pass
    /// an empty map for the URL and the body.
    pub env: &'a BTreeMap<String, String>,
}

/// The context an http target's templates render with: the test's `vars`
/// at the top level, then `message`, `messages`, `conversation_id`,
/// `pactum_conversation_id`, `turn` and `env` (which the loader keeps out of
/// `vars`, so none is shadowed).
pub fn http_context(vars: &Map<String, Value>, turn: &TurnContext<'_>) -> Value {
    let mut ctx = vars.clone();
    ctx.insert("message".into(), Value::from(turn.message));
    ctx.insert("messages".into(), Value::Array(turn.messages.to_vec()));
    ctx.insert(
        "conversation_id".into(),
        turn.conversation_id.map_or(Value::Null, Value::from),
    );
    ctx.insert(
        "pactum_conversation_id".into(),
        Value::from(turn.pactum_conversation_id),
    );
    ctx.insert("turn".into(), Value::from(turn.turn));
    let env: Map<String, Value> = turn
        .env
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
        .collect();
    ctx.insert(ENV_ROOT.into(), Value::Object(env));
    Value::Object(ctx)
}

/// Renders one template (Jinja2 syntax) with `ctx` (a JSON mapping whose
/// keys are the names the template reads). Strict: a name or attribute
/// that is not in `ctx` is an error.
///
/// # Errors
/// A lowercase fragment: a syntax error, an undefined value, a filter
/// misused, or a render that ran out of fuel; with the template's line when
/// it has several.
pub fn render_template(template: &str, ctx: &Value) -> Result<String, String> {
    let t = ENV
        .template_from_str(template)
        .map_err(|e| describe(&e, template))?;
    t.render(minijinja::value::Serde(ctx))
        .map_err(|e| describe(&e, template))
}

/// Renders every string in a JSON value (an http body) with `ctx`: a string
/// that is exactly one expression (`"{{ messages }}"`) becomes the
/// expression's value with its JSON type (a list stays a list, a number a
/// number); any other string is rendered as text ([`render_template`]).
/// Mapping keys are not templates.
///
/// # Errors
/// As [`render_template`], for the first string that fails.
pub fn render_value(value: &Value, ctx: &Value) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => match sole_expression(s) {
            Some(expr) => eval_expression(expr, ctx, s)?,
            None => Value::String(render_template(s, ctx)?),
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| render_value(v, ctx))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), render_value(v, ctx)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

/// The inside of a string that is exactly one `{{ expression }}`.
pub(crate) fn sole_expression(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("{{")?.strip_suffix("}}")?;
    let inner = inner.strip_prefix('-').unwrap_or(inner);
    let inner = inner.strip_suffix('-').unwrap_or(inner);
    let blocks = ["{{", "}}", "{%", "%}", "{#", "#}"];
    (!blocks.iter().any(|b| inner.contains(b)) && !inner.trim().is_empty()).then_some(inner)
}

fn eval_expression(expr: &str, ctx: &Value, whole: &str) -> Result<Value, String> {
    let e = ENV
        .compile_expression(expr)
        .map_err(|e| describe(&e, whole))?;
    let v = e
        .eval(minijinja::value::Serde(ctx))
        .map_err(|e| describe(&e, whole))?;
    if v.is_undefined() {
        return Err("undefined value".to_string());
    }
    serde_json::to_value(&v).map_err(|e| format!("the value cannot be written as JSON: {e}"))
}

/// What a template reads: its syntax checked, and the names it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reads {
    /// Root names read (`order` for `{{ order.id }}`), engine globals
    /// (`range`, `dict`, …) left out.
    pub(crate) roots: BTreeSet<String>,
    /// The `NAME`s of `env.NAME`.
    pub(crate) env: BTreeSet<String>,
    /// Whether `env` is read other than as `env.NAME`.
    pub(crate) env_whole: bool,
}

/// Parses a template and lists the names it reads.
///
/// # Errors
/// The syntax error, as a lowercase fragment.
pub(crate) fn reads(template: &str) -> Result<Reads, String> {
    let t = ENV
        .template_from_str(template)
        .map_err(|e| describe(&e, template))?;
    let globals: BTreeSet<&str> = ENV.globals().map(|(name, _)| name).collect();
    let mut out = Reads {
        roots: BTreeSet::new(),
        env: BTreeSet::new(),
        env_whole: false,
    };
    for name in t.undeclared_variables(true) {
        let (root, rest) = match name.split_once('.') {
            Some((r, rest)) => (r, Some(rest)),
            None => (name.as_str(), None),
        };
        if globals.contains(root) {
            continue;
        }
        if root == ENV_ROOT {
            match rest.and_then(|r| r.split('.').next()) {
                Some(var) => {
                    out.env.insert(var.to_string());
                }
                None => out.env_whole = true,
            }
        }
        out.roots.insert(root.to_string());
    }
    Ok(out)
}

/// A minijinja error as a lowercase fragment; the line is given only when
/// the template has several.
fn describe(e: &minijinja::Error, template: &str) -> String {
    let mut s = match e.detail() {
        Some(d) => format!("{}: {d}", e.kind()),
        None => e.kind().to_string(),
    };
    if template.lines().count() > 1 {
        if let Some(line) = e.line() {
            s.push_str(&format!(" (line {line} of the template)"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_and_typed() {
        let ctx = json!({"order": "A-1", "n": 3, "user": {"name": "Ann"}, "list": [1, 2]});
        assert_eq!(
            render_template("Refund {{ order }}", &ctx),
            Ok("Refund A-1".into())
        );
        assert_eq!(render_template("{{ user.name }}!", &ctx), Ok("Ann!".into()));
        assert_eq!(render_template("a\n", &ctx), Ok("a\n".into()));
        let err = render_template("{{ ordr }}", &ctx).unwrap_err();
        assert!(err.starts_with("undefined value"), "{err}");
        let err = render_template("{{ user.age }}", &ctx).unwrap_err();
        assert!(err.starts_with("undefined value"), "{err}");
        let err = render_template("{{ order", &ctx).unwrap_err();
        assert!(err.starts_with("syntax error"), "{err}");
        assert_eq!(
            render_value(
                &json!({"a": "{{ list }}", "b": "{{ n }} items", "c": ["{{- n -}}"], "d": 1}),
                &ctx
            ),
            Ok(json!({"a": [1, 2], "b": "3 items", "c": [3], "d": 1}))
        );
        assert_eq!(
            render_value(&json!("{{ missing }}"), &ctx),
            Err("undefined value".into())
        );
    }

    #[test]
    fn runaway_templates_stop() {
        let err = render_template(
            "{% for a in range(1000) %}{% for b in range(1000) %}x{% endfor %}{% endfor %}",
            &json!({}),
        )
        .unwrap_err();
        assert!(err.contains("fuel"), "{err}");
    }

    #[test]
    fn names_read() {
        let r =
            reads("{{ a.b }} {{ env.TOKEN }} {% for x in range(3) %}{{ x }}{{ c }}{% endfor %}")
                .unwrap();
        assert_eq!(
            r.roots.iter().map(String::as_str).collect::<Vec<_>>(),
            ["a", "c", "env"]
        );
        assert_eq!(
            r.env.iter().map(String::as_str).collect::<Vec<_>>(),
            ["TOKEN"]
        );
        assert!(!r.env_whole);
        assert!(reads("{{ env }}").unwrap().env_whole);
        let r = reads("{% for m in messages %}{{ loop.index }}{{ m.content }}{% endfor %}{% set y = 1 %}{{ y }}{{ dict(a=1) }}")
            .unwrap();
        assert_eq!(
            r.roots.iter().map(String::as_str).collect::<Vec<_>>(),
            ["messages"]
        );
        assert!(reads("{% if %}").is_err());
    }

    #[test]
    fn sole_expressions() {
        assert_eq!(sole_expression("{{ x }}"), Some(" x "));
        assert_eq!(sole_expression("{{- x -}}"), Some(" x "));
        assert_eq!(sole_expression("{{ x }} {{ y }}"), None);
        assert_eq!(sole_expression("a {{ x }}"), None);
        assert_eq!(sole_expression("{{ }}"), None);
        assert_eq!(sole_expression("{% if x %}{% endif %}"), None);
    }
}
