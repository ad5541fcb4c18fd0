//! `docs/store.md` stays true: it describes every table and column, and its
//! `sqlite3` examples run and find what they look for.

use pactum_core::TestStatus;

use crate::common::*;

fn docs() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/store.md"))
        .expect("docs/store.md")
}

fn tables(conn: &rusqlite::Connection) -> Vec<String> {
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .expect("prepare");
    stmt.query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("names")
}

#[test]
fn docs_describe_every_table_and_column() {
    let docs = docs();
    let (dir, store) = file_store();
    let conn = raw(store.path());
    for table in tables(&conn) {
        let heading = format!("### `{table}`");
        let start = docs
            .find(&heading)
            .unwrap_or_else(|| panic!("docs/store.md has no section for table {table}"));
        let rest = &docs[start + heading.len()..];
        let section = &rest[..rest.find("\n#").unwrap_or(rest.len())];
        let mut stmt = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .expect("columns");
        let columns: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("names");
        for column in columns {
            assert!(
                section.contains(&format!("| `{column}` |")),
                "docs/store.md does not describe {table}.{column}"
            );
        }
    }
    drop(dir);
}

#[test]
fn the_sqlite3_examples_run_and_find_rows() {
    let docs = docs();
    let start = docs.find("```sql\n").expect("an sql block") + "```sql\n".len();
    let block = &docs[start..start + docs[start..].find("```").expect("closed")];

    let (dir, store) = file_store();
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    store
        .record_trial(&trial(&run, "pay-bill", 0, TestStatus::Fail))
        .expect("record");
    store
        .record_trial(&trial(&run, "pay-bill", 1, TestStatus::Pass))
        .expect("record");
    store
        .cache_put(
            &digest("k"),
            pactum_store::CacheKind::Target,
            &serde_json::json!("x"),
            T0,
        )
        .expect("cache");
    let conn = rusqlite::Connection::open_with_flags(
        store.path(),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("read-only");

    let mut ran = 0;
    for statement in block.split(';') {
        let sql: String = statement
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n")
            .replace("r20261130-010203-ab12", run.as_str());
        if sql.trim().is_empty() {
            continue;
        }
        let mut stmt = conn.prepare(&sql).unwrap_or_else(|e| panic!("{e}: {sql}"));
        let columns = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                (0..columns)
                    .map(|i| r.get::<_, rusqlite::types::Value>(i))
                    .collect::<Result<Vec<_>, _>>()
            })
            .expect("query")
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("{e}: {sql}"));
        assert!(!rows.is_empty(), "no rows from the documented query: {sql}");
        ran += 1;
    }
    assert_eq!(ran, 7, "the documented queries");
    drop(dir);
}
