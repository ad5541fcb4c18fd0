//! Helpers shared by the contract-file and suite-file tests.

use pactum_suite::Diagnostic;
use serde_json::Value;

/// (code, line, column) of each diagnostic.
pub fn places(diags: &[Diagnostic]) -> Vec<(&str, usize, usize)> {
    diags
        .iter()
        .map(|d| (d.code.as_str(), d.line, d.column))
        .collect()
}

/// Renders diagnostics as the CLI does: each with the text of its own file.
pub fn render_all(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| {
            let src = std::fs::read_to_string(&d.file).ok();
            d.render(src.as_deref(), false)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A JSON value as block YAML, written by yaml-rust2's emitter (an
/// independent writer, so the reader is not tested against itself).
pub fn to_yaml(v: &Value) -> String {
    use yaml_rust2::yaml::{Hash, Yaml};
    fn conv(v: &Value) -> Yaml {
        match v {
            Value::Null => Yaml::Null,
            Value::Bool(b) => Yaml::Boolean(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Yaml::Integer(i),
                None => Yaml::Real(n.to_string()),
            },
            Value::String(s) => Yaml::String(s.clone()),
            Value::Array(a) => Yaml::Array(a.iter().map(conv).collect()),
            Value::Object(m) => {
                let mut h = Hash::new();
                for (k, v) in m {
                    h.insert(Yaml::String(k.clone()), conv(v));
                }
                Yaml::Hash(h)
            }
        }
    }
    let mut out = String::new();
    let mut emitter = yaml_rust2::YamlEmitter::new(&mut out);
    emitter.dump(&conv(v)).unwrap();
    out
}
