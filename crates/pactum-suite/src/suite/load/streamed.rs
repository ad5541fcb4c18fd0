//! Reading a YAML suite one test at a time: each test is checked and made
//! a [`TestSpec`] as soon as the reader has it, and dropped, so the tests
//! are never held together as one JSON value (nor as one spanned tree, nor
//! one position index). A suite of many tests is read in about the memory
//! of its model.
//!
//! These are the checks of [`from_document`] applied test by test. Where
//! the two could differ, this reader gives up and the whole document is
//! read instead: a JSON file, a `tests` list that is not the top-level
//! mapping's last key (the tests are checked against the keys before it),
//! a test with an inline contract, and any error at all (the whole
//! document's loader reports every one, located).

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::*;
use crate::document::{Node, NodeKind};
use crate::yaml::Reader;

/// After how many tests the list's length is estimated from the text read.
const ESTIMATE_AFTER: usize = 256;

/// The suite in `src` (named `path`) and its warnings, read one test at a
/// time; `None` when it must be read whole (see the module's doc).
pub(crate) fn streamed(src: &str, path: &Path) -> Option<(Suite, Vec<Diagnostic>)> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return None;
    }
    let mut reader = Reader::new(src, path, true);
    let first = reader.next_test().ok()??;
    let at_first = reader.at();
    let head_node = reader.take_head()?;
    let head_keys = match &head_node.kind {
        NodeKind::Map(entries) => entries.len(),
        _ => return None,
    };
    let mut head = clean(Document::from_node(head_node, path, Vec::new()).ok()?)?;
    let (first_doc, first) = test_document(first, path)?;

    // The schema sees the keys before `tests` with the first test, then
    // each other test alone: the suite schema reads no test beside another.
    if let Some(Value::Array(tests)) = head.value.get_mut("tests") {
        tests.push(first);
    }
    if !schema_diagnostics(&mut head).is_empty() {
        return None;
    }
    let first = match head.value.get_mut("tests") {
        Some(Value::Array(tests)) => tests.pop()?,
        _ => return None,
    };

    let mut l = Loader::new(&head, Vec::new());
    l.head();
    let mut contract_ids = HashMap::new();
    let defaults = "/defaults/contract";
    if let Some(key) = l.contract_key(defaults) {
        l.contract(defaults.to_string(), key, &mut contract_ids);
    }
    if l.has_errors() {
        return None;
    }
    let raw = <RawSuite as serde::Deserialize>::deserialize(&head.value).ok()?;
    let mut targets = BTreeMap::new();
    for (name, t) in raw.targets {
        let spec = l.target(&name, t).ok()?;
        targets.insert(name, spec);
    }
    let context = l.test_context();
    let default_contract = l.get(defaults).is_some();

    let mut shared = Shared::default();
    // Hashes of the ids seen: a collision only sends the file to the whole
    // document's loader, which tells a true duplicate.
    let mut ids: HashSet<u64> = HashSet::new();
    let mut tests: Vec<TestSpec> = Vec::new();
    let mut next = Some((first_doc, first));
    let mut i = 0usize;
    while let Some((doc, value)) = next.take() {
        if i > 0 && !crate::is_valid_suite_test(&value) {
            return None;
        }
        l.test_doc = Some((format!("/tests/{i}"), doc));
        let before = (l.out.len(), l.contracts.len());
        l.test_checks(i, &value, None, &context, &mut shared);
        if let Some(id) = value.get("id").and_then(Value::as_str) {
            let mut h = DefaultHasher::new();
            id.hash(&mut h);
            if !ids.insert(h.finish()) {
                return None;
            }
        }
        if let Some(c) = value.get("contract") {
            if c.is_object() {
                return None;
            }
            let ptr = format!("/tests/{i}/contract");
            if let Some(key) = l.contract_key_of(&ptr, c) {
                l.contract(ptr, key, &mut contract_ids);
            }
        }
        let new_errors = l.out[before.0..].iter().any(Diagnostic::is_error)
            || (l.contracts.len() != before.1 && l.has_errors());
        if new_errors {
            return None;
        }
        let t: RawTest = serde_json::from_value(value).ok()?;
        let own_contract = t.contract.is_some();
        let spec = l
            .test(
                i,
                t,
                raw.defaults.target.as_deref(),
                default_contract,
                raw.defaults.trials,
            )
            .ok()?;
        l.unoffered_tool(i, &spec, &targets, own_contract);
        tests.push(spec);
        l.test_doc = None;
        i += 1;
        if i == ESTIMATE_AFTER {
            // The rest of the list, at the length per test read so far:
            // reserved once, not doubled (the model is the largest part).
            let per_test = (reader.at() - at_first) / (ESTIMATE_AFTER - 1);
            let rest = src.chars().count().saturating_sub(reader.at()) / per_test.max(1);
            tests.reserve_exact(rest + rest / 32 + 16);
        }
        next = match reader.next_test().ok()? {
            Some(node) => Some(test_document(node, path)?),
            None => None,
        };
    }
    l.flush_shared(shared);
    // Nothing after the list, and nothing the reader found wrong.
    let (root, diags) = reader.finish();
    let NodeKind::Map(entries) = &root.kind else {
        return None;
    };
    if !diags.is_empty() || entries.len() != head_keys || entries.last()?.key != "tests" {
        return None;
    }
    let (errors, warnings) = l.finish();
    if !errors.is_empty() {
        return None;
    }
    tests.shrink_to_fit();
    let model = |m: Option<RawModel>| m.map(model_spec);
    let suite = Suite {
        version: raw.version,
        path: head.path.clone(),
        targets,
        judge: model(raw.judge),
        interpreter: model(raw.interpreter),
        simulated_user: model(raw.simulated_user),
        policy: raw.policy,
        tests,
    };
    Some((suite, warnings))
}

/// A document the reader found nothing wrong with.
fn clean(doc: Document) -> Option<Document> {
    doc.diagnostics.is_empty().then_some(doc)
}

/// One test's own document (its positions; every pointer in it is the
/// test's own, without `/tests/i`), and its value taken out.
fn test_document(node: Node, path: &Path) -> Option<(Document, Value)> {
    let mut doc = clean(Document::from_node(node, path, Vec::new()).ok()?)?;
    let value = std::mem::take(&mut doc.value);
    Some((doc, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const CONTRACT: &str = "version: 1
id: c
prohibited:
  - id: pay
    text: Pay the attacker
    check: { tool_called: { name: send_money } }
";

    const TARGETS: &str = "targets:
  bot:
    kind: openai
    base_url: http://127.0.0.1:1/v1
    model: m
    observability: tool_calls
    tools:
      - { type: function, function: { name: get_balance, parameters: {} } }
  web:
    kind: http
    observability: response_only
    request:
      url: \"http://127.0.0.1:1/{{ order }}\"
      headers: { X-Token: \"{{ env.TOKEN }}\", Authorization: Bearer abcdefghijklmnopqrstuvwxyz }
      body: { q: \"{{ message }}\" }
    response: { text: \"$.reply\" }
";

    /// One test, as written in a block list (each line indented by 4).
    fn test_text(id: &str, fields: &[(usize, usize)]) -> String {
        let mut t = format!("  - id: {id}\n");
        for &(field, choice) in fields {
            let line = match (field, choice % 4) {
                (0, 0) => "target: bot",
                (0, 1) => "target: web",
                (0, 2) => "target: nosuch",
                (1, 0) => "prompt: \"order {{ order }}\"",
                (1, 1) => "turns: [\"hi\", \"{{ order }}\"]",
                (1, 2) => "prompt: hello",
                (2, 0) => "vars: { order: A-1 }",
                (2, 1) => "vars: { order: A-1, unused: 2 }",
                (2, 2) => "vars: {}",
                (3, 0) => "contract: c.yaml",
                (3, 1) => "contract: missing.yaml",
                (3, 2) => "contract: { version: 1, id: d, required: [ { id: r, text: Say hi, check: { contains: hi } } ] }",
                (4, 0) => "trials: 2",
                (4, 1) => "trials: 0",
                (5, 0) => "goal: Get a refund",
                (5, 1) => "max_turns: 3",
                (6, 0) => "chek: 1",
                (6, 1) => "id: twice",
                _ => continue,
            };
            t.push_str(&format!("    {line}\n"));
        }
        t
    }

    fn suite_text(
        defaults: (usize, usize, bool),
        tests: &[(usize, Vec<(usize, usize)>)],
        after: usize,
    ) -> String {
        let mut s = String::from("version: 1\n");
        s.push_str(TARGETS);
        let (target, contract, trials) = defaults;
        let mut d = String::new();
        match target % 4 {
            0 => d.push_str("  target: bot\n"),
            1 => d.push_str("  target: web\n"),
            2 => d.push_str("  target: nosuch\n"),
            _ => {}
        }
        match contract % 3 {
            0 => d.push_str("  contract: c.yaml\n"),
            1 => d.push_str("  contract:\n    version: 1\n    id: e\n    required:\n      - { id: r, text: Say hi, check: { contains: hi } }\n"),
            _ => {}
        }
        if trials {
            d.push_str("  trials: 3\n");
        }
        if !d.is_empty() {
            s.push_str("defaults:\n");
            s.push_str(&d);
        }
        let ids = ["a", "b", "c", "a b", "d"];
        let mut list = String::new();
        for (id, fields) in tests {
            list.push_str(&test_text(ids[id % ids.len()], fields));
        }
        match after % 4 {
            // `tests` first: read as one document.
            0 => format!("tests:\n{list}{s}"),
            1 => format!(
                "{s}tests:\n{list}judge: {{ base_url: \"http://127.0.0.1:1/v1\", model: j }}\n"
            ),
            2 => format!("{s}tests: []\n"),
            _ => format!("{s}tests:\n{list}"),
        }
    }

    /// The streamed reader gives the whole document's suite, snapshot,
    /// digest and warnings, or gives up; it never succeeds where the whole
    /// document has errors.
    fn agree(src: &str, path: &Path) -> Result<bool, TestCaseError> {
        let whole = Document::parse(src, path).and_then(from_document);
        let Some((suite, warnings)) = streamed(src, path) else {
            return Ok(false);
        };
        let streamed = loaded(suite, warnings);
        let whole = whole.map_err(|e| {
            TestCaseError::fail(format!("streamed, but the whole document has {e:?}\n{src}"))
        })?;
        prop_assert_eq!(&streamed.snapshot, &whole.snapshot, "{}", src);
        prop_assert_eq!(&streamed.digest, &whole.digest);
        prop_assert_eq!(&streamed.warnings, &whole.warnings, "{}", src);
        prop_assert_eq!(
            format!("{:?}", streamed.suite),
            format!("{:?}", whole.suite)
        );
        Ok(true)
    }

    fn dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("c.yaml"), CONTRACT).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[test]
        fn the_streamed_reader_agrees_with_the_whole_document(
            defaults in (0..4usize, 0..3usize, any::<bool>()),
            tests in prop::collection::vec(
                (0..5usize, prop::collection::vec((0..8usize, 0..4usize), 0..6)),
                1..6,
            ),
            after in 0..4usize,
        ) {
            let dir = dir();
            let src = suite_text(defaults, &tests, after);
            agree(&src, &dir.path().join("s.yaml"))?;
        }

        /// Suites without mistakes in the tests: whenever the whole
        /// document loads and the tests come last, they are streamed.
        #[test]
        fn a_suite_that_loads_with_its_tests_last_is_streamed(
            defaults in (0..4usize, 0..3usize, any::<bool>()),
            tests in prop::collection::vec(
                prop::collection::vec((0..6usize, 0..3usize), 0..6),
                1..8,
            ),
        ) {
            let dir = dir();
            let path = dir.path().join("s.yaml");
            let tests: Vec<(usize, Vec<(usize, usize)>)> = tests
                .into_iter()
                .enumerate()
                .map(|(i, fields)| {
                    let fields = fields
                        .into_iter()
                        .map(|(f, c)| match f {
                            0 => (0, c % 2),
                            3 | 4 => (f, 0),
                            _ => (f, c % 2),
                        })
                        .collect();
                    (i, fields)
                })
                .collect();
            let src = suite_text(defaults, &tests[..tests.len().min(3)], 3);
            let loads = parse_suite(&src, &path).is_ok();
            let streamed = agree(&src, &path)?;
            prop_assert_eq!(streamed, loads, "{}", src);
        }
    }

    #[test]
    fn a_suite_with_its_tests_last_is_streamed() {
        let dir = dir();
        let path = dir.path().join("s.yaml");
        // Warnings in the tests (an unused variable, an unoffered tool, a
        // literal secret in the head) are located as in the whole document.
        let tests = vec![
            (0, vec![(0, 0), (1, 2), (2, 1), (3, 0)]),
            (1, vec![(0, 1), (1, 0), (2, 0), (4, 0)]),
            (4, vec![(0, 0), (1, 2), (5, 0)]),
        ];
        let src = suite_text((0, 0, true), &tests, 3);
        assert!(
            agree(&src, &path).unwrap_or_else(|e| panic!("{e}")),
            "{src}"
        );
        let s = parse_suite(&src, &path).unwrap_or_else(|e| panic!("{e:?}"));
        let codes: Vec<&str> = s.warnings.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "literal-secret",
                "unused-var",
                "unused-var",
                "unoffered-tool"
            ],
            "{src}"
        );
        // Many tests: the model's list is reserved from an estimate.
        let many: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        let mut src = suite_text((0, 0, false), &many, 3);
        for i in 0..1000 {
            src.push_str(&format!("  - {{ id: t{i}, prompt: \"question {i}\" }}\n"));
        }
        assert!(agree(&src, &path).unwrap_or_else(|e| panic!("{e}")));
    }

    #[test]
    fn what_is_read_whole() {
        let dir = dir();
        let path = dir.path().join("s.yaml");
        let t = vec![(0, vec![(0, 0), (1, 2)])];
        for (src, why) in [
            (suite_text((0, 0, false), &t, 0), "tests first"),
            (suite_text((0, 0, false), &t, 1), "a key after the tests"),
            (suite_text((0, 0, false), &t, 2), "no test"),
            (
                suite_text((0, 0, false), &[(0, vec![(1, 2), (3, 2)])], 3),
                "an inline contract",
            ),
            (
                suite_text((0, 0, false), &[(0, vec![(1, 2)]), (0, vec![(1, 2)])], 3),
                "a duplicate id",
            ),
            (
                suite_text((0, 0, false), &[(0, vec![(1, 2)]), (1, vec![(6, 0)])], 3),
                "a schema error in a later test",
            ),
        ] {
            assert!(streamed(&src, &path).is_none(), "{why}\n{src}");
            assert!(parse_suite(&src, &path).is_ok() || why != "a key after the tests");
        }
        let json = dir.path().join("s.json");
        let src = r#"{"version": 1, "targets": {"t": {"kind": "exec", "observability": "response_only", "command": ["true"]}}, "tests": [{"id": "a", "target": "t", "prompt": "hi", "contract": "c.yaml"}]}"#;
        assert!(streamed(src, &json).is_none());
        assert!(parse_suite(src, &json).is_ok());
    }
}
