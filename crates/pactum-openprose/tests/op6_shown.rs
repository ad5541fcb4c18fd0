//! What an output shows (the sixth review): keys that read whole only once
//! the Markdown renders are found for redaction, and hidden text is only
//! what a renderer hides. Each wrong green here must now be violated, left
//! to the judge (`not_evaluable` without one), or undetermined — never
//! satisfied.

use pactum_openprose::import_run;

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

const OK_LOG: &str = "# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z\n";

/// A single service `svc` whose root holds `body` after its frontmatter,
/// a caller input `topic`, a clean log and `files` (path, text).
fn run_with(body: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        &format!(
            "---\nname: svc\nkind: service\n---\n## Requires\n\n- topic: the subject\n\n{body}\n"
        ),
    );
    write(
        d.path(),
        "bindings/caller/topic.md",
        "# topic\nbinding: input\nsource: caller\n---\nSolid-state batteries\n",
    );
    write(d.path(), "vm.log.md", OK_LOG);
    for (p, t) in files {
        write(d.path(), p, t);
    }
    d
}

/// A key split by a tag, a character reference or a link reads whole on
/// the page: the run names it, and the source text it renders from, for
/// redaction, however short the pieces between the markup.
#[test]
fn keys_split_by_markup_are_found_in_a_run() {
    const KEY: &str = "sk-proj-ABCDEF0123456789abcdef0123456789";
    for split in [
        "sk-proj-ABCDEF<wbr>0123456789abcdef0123456789",
        "sk-proj-ABCDEF<span>0123456789abcdef0123456789</span>",
        "sk-proj-ABCDEF<b></b>0123456789abcdef0123456789",
        "sk-proj-ABCDEF&shy;0123456789abcdef0123456789",
        "sk-proj-ABCDEF[0123456789abcdef0123456789](x)",
        "sk-proj-ABCDEF<br>0123456789abcdef0123456789",
        "sk-pro<b></b>j-ABCD<b></b>EF0123<b></b>456789<b></b>abcdef<b></b>0123456789",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: at most 1 paragraph\n",
            &[(
                "bindings/svc/summary.md",
                &format!("Key {split} end.\n\nSecond paragraph here.\n"),
            )],
        );
        let run = import_run(d.path()).expect("imports");
        let found = run.shown_keys();
        assert_eq!(found.keys, vec![KEY.to_string()], "{split}");
        let secrets: Vec<&str> = found.secrets().collect();
        let redactor = pactum_core::secret::Redactor::new(secrets).expect("secrets");
        let shown = redactor.redact(split);
        assert_eq!(
            shown.trim_end_matches("</span>").trim_end_matches("](x)"),
            "[redacted]",
            "{split}"
        );
    }
}
