//! The ninth round: commitments of a contract that were dropped or read
//! wrongly.

mod common;
use common::*;

/// Bullets under a heading pactum does not know, after an `Ensures:`
/// label (no section heading), are read as clauses or the file is
/// refused naming a line: never dropped.
#[test]
fn bullets_under_notes_after_an_ensures_label_are_not_dropped() {
    for body in [
        "Ensures:\n\n## Notes\n\n- `out`: at least 5 items",
        "Ensures:\n## Notes\n- `out`: at least 5 items",
        "**Ensures:**\n\n## Notes\n\n- `out`: at least 5 items",
        "Ensures:\n\n- `out`: a list\n\n## Notes\n\n- `out`: at least 5 items",
        "## Ensures\n\n- `out`: a list\n\nEnsures:\n\n## Notes\n\n- `out`: at least 5 items",
        "Ensures:\n\n### Details\n\n- `out`: at least 5 items",
        "Ensures:\n\n## Notes\n\n1. `out`: at least 5 items",
    ] {
        five_items_not_dropped(body);
    }
}
