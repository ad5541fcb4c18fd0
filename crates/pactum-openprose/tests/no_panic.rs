//! No contract file, clause text or binding makes the parser or the
//! measures panic: user input is an error or a verdict, never a crash.

use std::path::Path;

use pactum_openprose::check::{measure, read, JsonShape, Measure, Unit};
use pactum_openprose::contract::{clause_ids, parse_file};
use proptest::prelude::*;

fn measures() -> Vec<Measure> {
    vec![
        Measure::Json(JsonShape::Any),
        Measure::Json(JsonShape::Object),
        Measure::Table,
        Measure::NumberedList,
        Measure::BulletList,
        Measure::Headings,
        Measure::Contains("İx".into()),
        Measure::Count {
            unit: Unit::Items,
            min: 1,
            max: Some(3),
        },
        Measure::Count {
            unit: Unit::Sources,
            min: 2,
            max: None,
        },
        Measure::Count {
            unit: Unit::Paragraphs,
            min: 2,
            max: Some(3),
        },
        Measure::Count {
            unit: Unit::Words,
            min: 0,
            max: Some(5),
        },
        Measure::Count {
            unit: Unit::Rows,
            min: 1,
            max: None,
        },
        Measure::Count {
            unit: Unit::Headings,
            min: 1,
            max: None,
        },
        Measure::Each {
            item: "x".into(),
            fields: vec!["a".into(), "url".into()],
        },
    ]
}

/// Text made of the pieces the parser and the measures look for.
fn markdownish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_string()),
        Just("name: s\n".to_string()),
        Just("kind: service\n".to_string()),
        Just("## Ensures\n".to_string()),
        Just("### Maintains\n".to_string()),
        Just("#### facet\n".to_string()),
        Just("## Errors\n".to_string()),
        Just("## svc\n".to_string()),
        Just("- `out`: at least 3 items\n".to_string()),
        Just("- if boom: `out` says \"x\"\n".to_string()),
        Just("- each source has: title, url\n".to_string()),
        Just("  wrapped line\n".to_string()),
        Just("  - sub\n".to_string()),
        Just("```\n".to_string()),
        Just("| a | b |\n|---|---|\n| 1 | |\n".to_string()),
        Just("1. one\n".to_string()),
        Just("https://x.net/ ".to_string()),
        Just("{\"a\": [1, {\"url\": \"u\"}]}".to_string()),
        Just("\n".to_string()),
        "[\\PC]{0,12}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_parser_never_panics(text in markdownish()) {
        if let Ok(f) = parse_file(Path::new("x.prose.md"), &text) {
            let ids = clause_ids(&f.main.clauses);
            prop_assert_eq!(ids.len(), f.main.clauses.len());
            let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
            prop_assert_eq!(unique.len(), ids.len());
        }
    }

    #[test]
    fn reading_and_measuring_never_panic(clause in markdownish(), content in markdownish()) {
        let _ = read(&clause);
        for m in measures() {
            let f = measure(&m, &content);
            // The item an `each` quotes is an exact excerpt of the output.
            if let (Measure::Each { .. }, Some(q)) = (&m, &f.quote) {
                prop_assert!(content.contains(q.as_str()), "{:?}", q);
            }
        }
    }
}
