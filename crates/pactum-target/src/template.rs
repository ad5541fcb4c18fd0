//! Request templates, rendered with pactum-suite's template engine (the
//! one the suite loader checks them with, so a template that passes the
//! loader renders the same here), and the secrets read from the
//! environment for them.
//!
//! Every template is parsed when the target is built, so a syntax error
//! is a configuration error before any request. Rendering with a variable
//! the conversation does not define is an error, never an empty string.
//! `env` is only ever bound to the variables a template names as
//! `env.NAME`, resolved once, when the target is built.

use std::collections::BTreeMap;

use pactum_core::secret::{check_secret, Redactor};
use pactum_suite::{reads, render_template_with, render_value_with, TemplateContext, ENV_ROOT};
use serde_json::Value;

use crate::error::TargetError;

/// Values read from the environment, kept out of every `Debug` output,
/// and the redactor that removes them, with the run's other secrets, from
/// everything a target sends back (SPEC §4).
#[derive(Clone, Default)]
pub(crate) struct Secrets {
    values: BTreeMap<String, String>,
    redactor: Redactor,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.values.keys().map(|k| format!("{k}=[redacted]")))
            .finish()
    }
}

impl Secrets {
    /// Reads each variable in `names` from the environment; the redactor
    /// removes their values and those `others` knows.
    ///
    /// # Errors
    /// [`TargetError::MissingEnv`] naming the first variable (in name
    /// order) that is unset, empty or not UTF-8; [`TargetError::BadEnv`]
    /// for one too short to be redacted.
    pub(crate) fn read<'a>(
        target: &str,
        names: impl IntoIterator<Item = &'a String>,
        others: &Redactor,
    ) -> Result<Self, TargetError> {
        let mut values = BTreeMap::new();
        for name in names {
            values.insert(name.clone(), read_secret(target, name)?);
        }
        let redactor = Redactor::new(values.values())
            .and_then(|r| r.with(others))
            .map_err(|e| TargetError::Config {
                target: target.to_string(),
                field: "env".into(),
                reason: format!("the secrets to redact {e}"),
            })?;
        Ok(Secrets { values, redactor })
    }

    /// `NAME → value`, for a header template's `env`.
    pub(crate) fn values(&self) -> &BTreeMap<String, String> {
        &self.values
    }

    /// The target's secrets and the run's.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }
}

/// Reads one variable a target sends (an http header's `env.NAME`, an
/// exec `{{ env.NAME }}`), checked as a secret and trimmed.
///
/// # Errors
/// [`TargetError::MissingEnv`] when it is unset, empty or not UTF-8;
/// [`TargetError::BadEnv`] when it is too short to be redacted.
pub(crate) fn read_secret(target: &str, name: &str) -> Result<String, TargetError> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => match check_secret(&v) {
            Ok(v) => Ok(v.to_string()),
            Err(e) => Err(TargetError::BadEnv {
                var: name.to_string(),
                target: target.to_string(),
                reason: format!("the value {e}"),
            }),
        },
        _ => Err(TargetError::MissingEnv {
            var: name.to_string(),
            target: target.to_string(),
        }),
    }
}

/// Checks and renders a target's templates; errors name the target and
/// the template's field (`url`, `headers.Authorization`,
/// `body.input.message`).
pub(crate) struct Templates {
    target: String,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates").finish_non_exhaustive()
    }
}

impl Templates {
    /// The templates of target `target`.
    pub(crate) fn new(target: &str) -> Self {
        Templates {
            target: target.to_string(),
        }
    }

    fn config_error(&self, field: &str, reason: &str) -> TargetError {
        TargetError::Config {
            target: self.target.clone(),
            field: field.to_string(),
            reason: pactum_core::text::one_line(reason, 300),
        }
    }

    /// Checks `source`, the template of `field`, and returns the
    /// environment variables it names as `env.NAME`.
    ///
    /// # Errors
    /// [`TargetError::Config`] naming `field` for a syntax error, or for a
    /// use of `env` other than `env.NAME`, or any use of `env` when
    /// `env_allowed` is false.
    pub(crate) fn add(
        &self,
        field: &str,
        source: &str,
        env_allowed: bool,
    ) -> Result<Vec<String>, TargetError> {
        let r = reads(source).map_err(|e| self.config_error(field, &e))?;
        if !r.roots.contains(ENV_ROOT) {
            return Ok(Vec::new());
        }
        if !env_allowed {
            return Err(self.config_error(
                field,
                "`env` is available in headers only: secrets never go into a URL or a body",
            ));
        }
        if r.env_whole || r.env_nested {
            return Err(self.config_error(field, "read environment variables as `env.NAME`"));
        }
        Ok(r.env.into_iter().collect())
    }

    /// Renders `source`, the template of `field`, into text.
    ///
    /// # Errors
    /// [`TargetError::Config`] naming `field`, e.g. for an undefined value.
    pub(crate) fn render_text(
        &self,
        field: &str,
        source: &str,
        ctx: &TemplateContext,
    ) -> Result<String, TargetError> {
        render_template_with(source, ctx).map_err(|e| self.config_error(field, &e))
    }

    /// Checks every string of a body template, naming each by its path
    /// (`body.input.message`, `body.items[0]`). Object keys are literal.
    ///
    /// # Errors
    /// As [`Self::add`]; `env` is never allowed in a body.
    pub(crate) fn add_body(&self, field: &str, body: &Value) -> Result<(), TargetError> {
        match body {
            Value::String(s) => self.add(field, s, false).map(|_| ()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(i, v)| self.add_body(&format!("{field}[{i}]"), v)),
            Value::Object(map) => map
                .iter()
                .try_for_each(|(k, v)| self.add_body(&format!("{field}.{k}"), v)),
            _ => Ok(()),
        }
    }

    /// Renders a body template: a string that is exactly `{{ expr }}`
    /// becomes the JSON value of `expr`; any other template becomes the
    /// rendered text (pactum-suite's `render_value`).
    ///
    /// # Errors
    /// [`TargetError::Config`] naming the path of the string that failed.
    pub(crate) fn render_body(
        &self,
        field: &str,
        body: &Value,
        ctx: &TemplateContext,
    ) -> Result<Value, TargetError> {
        render_value_with(body, ctx)
            .map_err(|e| self.config_error(&format!("{field}{}", e.path), &e.message))
    }
}

/// A JSON context as a template context.
pub(crate) fn context(json: &Value) -> TemplateContext {
    TemplateContext::new(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ctx() -> TemplateContext {
        context(&json!({
            "pactum_conversation_id": "t1#0",
            "turn": 2,
            "message": "hello",
            "messages": [{"role": "user", "content": "hello"}],
            "vars": {"customer": "C-1", "n": 3},
            "customer": "C-1",
            "conversation_id": null,
        }))
    }

    #[test]
    fn a_sole_expression_keeps_its_json_type_and_others_render_text() {
        let body = json!({
            "messages": "{{ messages }}",
            "turn": "{{ turn }}",
            "previous": "{{ conversation_id }}",
            "vars": "{{ vars }}",
            "greeting": "turn {{ turn }}: {{ message }}",
            "literal": "no template",
            "number": 7,
            "nested": ["{{ vars.n + 1 }}", {"who": "{{ customer }}"}],
        });
        let t = Templates::new("t");
        t.add_body("body", &body).expect("compiles");
        let out = t.render_body("body", &body, &ctx()).expect("renders");
        assert_eq!(
            out,
            json!({
                "messages": [{"role": "user", "content": "hello"}],
                "turn": 2,
                "previous": null,
                "vars": {"customer": "C-1", "n": 3},
                "greeting": "turn 2: hello",
                "literal": "no template",
                "number": 7,
                "nested": [4, {"who": "C-1"}],
            })
        );
        // Object order of a typed value is kept (preserve_order).
        let keys: Vec<&String> = out["messages"][0]
            .as_object()
            .expect("object")
            .keys()
            .collect();
        assert_eq!(keys, ["role", "content"]);
    }

    #[test]
    fn text_is_rendered_as_written_whatever_the_field_name() {
        let body = json!({
            "page.html": "<b>{{ message }}</b> & more",
            "data.json": "\"{{ message }}\"",
            "line": "{{ message }}\n",
        });
        let t = Templates::new("t");
        t.add_body("body", &body).expect("compiles");
        let ctx = context(&json!({"message": "a <b> & \"c\""}));
        let out = t.render_body("body", &body, &ctx).expect("renders");
        assert_eq!(
            out,
            json!({
                "page.html": "<b>a <b> & \"c\"</b> & more",
                "data.json": "\"a <b> & \"c\"\"",
                "line": "a <b> & \"c\"\n",
            })
        );
    }

    #[test]
    fn runaway_templates_stop() {
        let body = json!({"a": "{% for a in range(10000) %}{% for b in range(10000) %}x{% endfor %}{% endfor %}"});
        let t = Templates::new("t");
        t.add_body("body", &body).expect("compiles");
        match t.render_body("body", &body, &ctx()) {
            Err(TargetError::Config { field, reason, .. }) => {
                assert_eq!(field, "body.a");
                assert!(reason.contains("fuel"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn undefined_values_are_errors_naming_the_field() {
        for (source, field) in [
            ("{{ vars.missing }}", "body.a"),
            ("x {{ nothing }}", "body.a"),
            ("{{ nothing }}", "body.a"),
            ("{{ nothing.deeper }}", "body.a"),
        ] {
            let body = json!({"a": source});
            let t = Templates::new("t");
            t.add_body("body", &body).expect("compiles");
            match t.render_body("body", &body, &ctx()) {
                Err(TargetError::Config {
                    field: f, reason, ..
                }) => {
                    assert_eq!(f, field, "{source}");
                    assert!(reason.contains("undefined"), "{source}: {reason}");
                }
                other => panic!("{source}: {other:?}"),
            }
        }
    }

    #[test]
    fn syntax_errors_and_env_misuse_are_config_errors() {
        let t = Templates::new("t");
        let bad = [
            ("url", "http://x/{{ turn", true, "syntax"),
            ("body.a", "{{ env.TOKEN }}", false, "headers only"),
            ("body.a", "a {{ env.TOKEN }}", false, "headers only"),
            ("headers.X", "{{ env }}", true, "env.NAME"),
            ("headers.X", "{{ env['A'] }}", true, "env.NAME"),
        ];
        for (field, source, env_allowed, why) in bad {
            match t.add(field, source, env_allowed) {
                Err(TargetError::Config {
                    field: f, reason, ..
                }) => {
                    assert_eq!(f, field);
                    assert!(reason.contains(why), "{source}: {reason}");
                }
                other => panic!("{source}: {other:?}"),
            }
        }
        assert_eq!(
            t.add(
                "headers.Authorization",
                "Bearer {{ env.B_TOKEN }}{{ env.A_TOKEN | trim }}{{ environment }}",
                true
            )
            .expect("ok"),
            vec!["A_TOKEN".to_string(), "B_TOKEN".to_string()]
        );
        assert!(t
            .add("url", "http://x/plain", false)
            .expect("ok")
            .is_empty());
    }

    #[test]
    fn secrets_are_redacted_everywhere_and_never_debug_printed() {
        const VAR: &str = "PACTUM_TARGET_UNIT_SECRET_3C9E";
        std::env::set_var(VAR, "sk-very-secret\n");
        let others = Redactor::new(["another-secret"]).expect("secret");
        let s = Secrets::read("t", [&VAR.to_string()], &others).expect("set");
        assert_eq!(s.values()[VAR], "sk-very-secret");
        assert_eq!(
            s.redactor()
                .redact("Bearer sk-very-secret, another-secret, ab"),
            "Bearer [redacted], [redacted], ab"
        );
        let mut v = json!({"sk-very-secret": ["x sk-very-secret", 1, {"k": "sk-very-secret"}]});
        s.redactor().redact_value(&mut v);
        assert_eq!(
            v,
            json!({"[redacted]": ["x [redacted]", 1, {"k": "[redacted]"}]})
        );
        assert_eq!(format!("{s:?}"), format!("[\"{VAR}=[redacted]\"]"));
        std::env::set_var(VAR, "q7z!x");
        match Secrets::read("t", [&VAR.to_string()], &others) {
            Err(TargetError::BadEnv { var, reason, .. }) => {
                assert_eq!(var, VAR);
                assert!(
                    reason.contains("5 character(s)") && !reason.contains("q7z!x"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e12f64..1e12).prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[a-z]{1,6}", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// `"{{ vars.x }}"` renders to exactly the JSON value of `x`, whatever
        /// it is: the "keeps the JSON type" rule holds for every value.
        #[test]
        fn a_sole_expression_round_trips_any_json_value(x in json_value()) {
            let body = json!({"x": "{{ vars.x }}", "list": ["{{ vars.x }}"]});
            let t = Templates::new("t");
            t.add_body("body", &body).expect("compiles");
            let ctx = context(&json!({"vars": {"x": x.clone()}}));
            let out = t.render_body("body", &body, &ctx).expect("renders");
            prop_assert_eq!(&out["x"], &x);
            prop_assert_eq!(&out["list"][0], &x);
        }

        /// Strings without template syntax are never touched.
        #[test]
        fn plain_strings_are_kept(s in "[^{]{0,40}") {
            let body = json!({"s": s.clone()});
            let t = Templates::new("t");
            t.add_body("body", &body).expect("compiles");
            let out = t.render_body("body", &body, &context(&json!({}))).expect("renders");
            prop_assert_eq!(&out["s"], &Value::String(s));
        }
    }
}
