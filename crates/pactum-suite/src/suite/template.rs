//! The one template engine of pactum (minijinja, Jinja2 syntax) and the
//! context its templates read. Suite files use it for prompts, scripted
//! turns and http target requests; the loader checks every template with it
//! and the http target (pactum-target) renders with it, so both agree on
//! what a template means.
//!
//! Undefined values are errors (strict mode): a template never renders a
//! missing variable as empty text. Text is never escaped, whatever a field
//! is called. Rendering is bounded (minijinja's fuel), so a runaway loop is
//! an error, not a hang.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use minijinja::{AutoEscape, Environment, UndefinedBehavior};
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
/// instruction, or per 64 bytes of data processed): a runaway loop stops
/// with an error instead of hanging a run, while an http body carrying a
/// conversation of several MB renders well within it. The loader's checks
/// and the run-time renders have the same budget.
const FUEL: u64 = 1_000_000;

static ENV: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(FUEL));
    // Escaping chosen by a template's name would alter what the user wrote.
    env.set_auto_escape_callback(|_| AutoEscape::None);
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

/// A template context (a JSON mapping whose keys are the names templates
/// read) converted for the engine once, to render several templates with
/// it: an http target renders its URL and every string of its body with
/// one.
#[derive(Debug, Clone)]
pub struct TemplateContext(minijinja::Value);

impl TemplateContext {
    /// Converts `ctx` (usually an [`http_context`]).
    pub fn new(ctx: &Value) -> Self {
        TemplateContext(minijinja::Value::from(minijinja::value::Serde(ctx)))
    }
}

/// Why [`render_value_with`] failed: the string that failed and what went
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    /// Where the string is below the rendered value: `.input.message`,
    /// `[0]`, `.items[2].text`; empty for the value itself.
    pub path: String,
    /// What went wrong, as [`render_template`] words it.
    pub message: String,
}

/// Whether `s` has template syntax at all; text without it renders as
/// itself.
pub(crate) fn is_template(s: &str) -> bool {
    s.contains("{{") || s.contains("{%") || s.contains("{#")
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
    render_template_with(template, &TemplateContext::new(ctx))
}

/// [`render_template`] with a context converted once.
///
/// # Errors
/// As [`render_template`].
pub fn render_template_with(template: &str, ctx: &TemplateContext) -> Result<String, String> {
    if !is_template(template) {
        return Ok(template.to_string());
    }
    let t = ENV
        .template_from_str(template)
        .map_err(|e| describe(&e, template))?;
    t.render(&ctx.0).map_err(|e| describe(&e, template))
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
    render_value_with(value, &TemplateContext::new(ctx)).map_err(|e| e.message)
}

/// [`render_value`] with a context converted once, naming the string that
/// failed.
///
/// # Errors
/// [`RenderError`] for the first string that fails.
pub fn render_value_with(value: &Value, ctx: &TemplateContext) -> Result<Value, RenderError> {
    let at = |step: String| {
        move |e: RenderError| RenderError {
            path: format!("{step}{}", e.path),
            message: e.message,
        }
    };
    Ok(match value {
        Value::String(s) => match sole_expression(s) {
            Some(expr) => eval_expression(expr, ctx, s),
            None => render_template_with(s, ctx).map(Value::String),
        }
        .map_err(|message| RenderError {
            path: String::new(),
            message,
        })?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| render_value_with(v, ctx).map_err(at(format!("[{i}]"))))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    Ok((
                        k.clone(),
                        render_value_with(v, ctx).map_err(at(format!(".{k}")))?,
                    ))
                })
                .collect::<Result<_, RenderError>>()?,
        ),
        other => other.clone(),
    })
}

/// The inside of a string that is exactly one `{{ expression }}` (one
/// expression, nothing around it; whitespace control allowed).
pub(crate) fn sole_expression(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("{{")?.strip_suffix("}}")?;
    let inner = inner.strip_prefix('-').unwrap_or(inner);
    let inner = inner.strip_suffix('-').unwrap_or(inner);
    let blocks = ["{{", "}}", "{%", "%}", "{#", "#}"];
    (!blocks.iter().any(|b| inner.contains(b)) && !inner.trim().is_empty()).then_some(inner)
}

/// The variable an `exec` target's `env` value passes on from pactum's
/// environment: `NAME` when the value is exactly `{{ env.NAME }}`
/// (whitespace and `-` trim markers allowed). Any other value is literal
/// text: `exec` `env` values are not templates.
pub fn passed_env_var(value: &str) -> Option<&str> {
    let name = sole_expression(value)?.trim().strip_prefix("env.")?;
    super::names::is_identifier(name).then_some(name)
}

/// Whether an `exec` `env` value that [`passed_env_var`] does not read
/// still reads like an attempt to pass a variable (`Bearer {{ env.KEY }}`,
/// `{{ env['KEY'] }}`): refused, since it would be sent as literal text.
pub fn misread_env_pass(value: &str) -> bool {
    passed_env_var(value).is_none()
        && value.contains("{{")
        && (value.contains("env.") || value.contains("env["))
}

fn eval_expression(expr: &str, ctx: &TemplateContext, whole: &str) -> Result<Value, String> {
    let e = ENV
        .compile_expression(expr)
        .map_err(|e| describe(&e, whole))?;
    let v = e.eval(&ctx.0).map_err(|e| describe(&e, whole))?;
    if v.is_undefined() {
        return Err("undefined value".to_string());
    }
    serde_json::to_value(&v).map_err(|e| format!("the value cannot be written as JSON: {e}"))
}

/// What a template reads: its syntax checked, and the names it uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reads {
    /// Root names read (`order` for `{{ order.id }}`), engine globals
    /// (`range`, `dict`, …) left out.
    pub roots: BTreeSet<String>,
    /// The `NAME`s of `env.NAME`.
    pub env: BTreeSet<String>,
    /// Whether `env` itself is read (`{{ env }}`, `{{ env['NAME'] }}`), not
    /// one `env.NAME`.
    pub env_whole: bool,
    /// Whether something below an `env.NAME` is read (`env.NAME.more`): an
    /// attribute of a variable's text, which is always undefined.
    pub env_nested: bool,
}

/// Parses a template and lists the names it reads.
///
/// # Errors
/// The syntax error, as a lowercase fragment.
pub fn reads(template: &str) -> Result<Reads, String> {
    // Text without template syntax reads nothing (as it renders as itself):
    // most prompts, and a suite may hold tens of thousands.
    if !is_template(template) {
        return Ok(Reads::default());
    }
    reads_parsed(template)
}

/// [`reads`] by minijinja's own analysis, whatever the text.
fn reads_parsed(template: &str) -> Result<Reads, String> {
    let t = ENV
        .template_from_str(template)
        .map_err(|e| describe(&e, template))?;
    let globals: BTreeSet<&str> = ENV.globals().map(|(name, _)| name).collect();
    let mut out = Reads::default();
    for name in t.undeclared_variables(true) {
        let (root, rest) = match name.split_once('.') {
            Some((r, rest)) => (r, Some(rest)),
            None => (name.as_str(), None),
        };
        if globals.contains(root) {
            continue;
        }
        if root == ENV_ROOT {
            match rest.map(|r| r.split_once('.').map_or((r, false), |(var, _)| (var, true))) {
                Some((var, nested)) => {
                    out.env.insert(var.to_string());
                    out.env_nested |= nested;
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

    proptest::proptest! {
        /// The shortcut for text without template syntax answers as
        /// minijinja's analysis does, lone braces, `%` and `#` included.
        #[test]
        fn text_without_template_syntax_reads_what_minijinja_finds(
            s in "[{}%#a-z. \n-]{0,24}"
        ) {
            proptest::prop_assert_eq!(reads(&s), reads_parsed(&s));
        }
    }

    #[test]
    fn exec_env_values_pass_a_variable_only_in_the_one_form() {
        for (v, var) in [
            ("{{ env.OPENAI_API_KEY }}", Some("OPENAI_API_KEY")),
            ("{{env.K_1}}", Some("K_1")),
            ("{{- env.K -}}", Some("K")),
            ("Bearer {{ env.K }}", None),
            ("{{ env['K'] }}", None),
            ("{{ env.K.x }}", None),
            ("{{ env.1K }}", None),
            ("strict {{ not a template }}", None),
            ("env.K", None),
        ] {
            assert_eq!(passed_env_var(v), var, "{v}");
        }
        assert!(misread_env_pass("Bearer {{ env.K }}"));
        assert!(misread_env_pass("{{ env['K'] }}"));
        assert!(!misread_env_pass("{{ env.K }}"));
        assert!(!misread_env_pass("strict {{ not a template }}"));
        assert!(!misread_env_pass("env.K"));
    }

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

    #[test]
    fn a_converted_context_renders_alike_and_failures_name_their_string() {
        let ctx = json!({"n": 3, "list": [1, 2], "page": "<b>&</b>"});
        let once = TemplateContext::new(&ctx);
        for t in [
            "{{ n }} items",
            "{{ page }}",
            "plain {text}",
            "{# note #}x\n",
        ] {
            assert_eq!(
                render_template_with(t, &once),
                render_template(t, &ctx),
                "{t}"
            );
        }
        let body = json!({"a": ["{{ list }}", {"b": "{{ n + 1 }}"}], "c": "x"});
        assert_eq!(
            render_value_with(&body, &once),
            Ok(json!({"a": [[1, 2], {"b": 4}], "c": "x"}))
        );
        let bad = json!({"a": ["ok", {"b": "{{ missing }}"}]});
        let e = render_value_with(&bad, &once).unwrap_err();
        assert_eq!(e.path, ".a[1].b");
        assert!(e.message.starts_with("undefined value"), "{}", e.message);
        assert_eq!(render_value(&bad, &ctx), Err(e.message));
        assert_eq!(
            render_value_with(&json!("{{ nope }}"), &once)
                .unwrap_err()
                .path,
            ""
        );
    }

    #[test]
    fn env_reads_are_told_apart() {
        let r = reads("{{ env.A }}{{ env.B | trim }}").unwrap();
        assert!(!r.env_whole && !r.env_nested);
        assert_eq!(
            r.env.iter().map(String::as_str).collect::<Vec<_>>(),
            ["A", "B"]
        );
        let r = reads("{{ env.A.b }}").unwrap();
        assert!(r.env_nested && !r.env_whole);
        assert_eq!(r.env.iter().map(String::as_str).collect::<Vec<_>>(), ["A"]);
        assert!(reads("{{ env['A'] }}").unwrap().env_whole);
        assert_eq!(reads("plain").unwrap(), Reads::default());
    }
}
