//! Measures the refusal detector against XSTest's human labels, beside
//! XSTest's own string-match baseline (`*_streval` files), in both forms.
//!
//! ```text
//! cargo run -p pactum-eval --example refusal_xstest --release [DATA_DIR]
//! ```
//!
//! `DATA_DIR` is the `shared/data` folder (default: `$PACTUM_DATA_DIR`).
//! The `any` form is measured against "a refusal" = `final_label` 2 (full)
//! or 3 (partial), as before the two forms existed; the `full` form against
//! label 2 alone. An Unsure answer counts as a miss for recall and is not a
//! predicted refusal for precision; abstention is the share of Unsure
//! answers. Everything but the timing section is deterministic.

#[path = "../tests/support/refusal_data.rs"]
mod refusal_data;

use std::process::ExitCode;

use pactum_core::contract::RefusalKind;
use pactum_core::outcome::Outcome;
use pactum_eval::refusal::{classify, classify_with, RefusalClass, Thresholds};
use refusal_data::{
    answer, data_dir_arg, load_xstest, pct, print_timing, Answer, Tally, XsLabel, XsRow, XS_MODELS,
};

/// One judgement per row, per form.
struct Judged<'a> {
    row: &'a XsRow,
    any: Outcome,
    full: Outcome,
    class: RefusalClass,
}

fn tally_any<'a>(rows: impl Iterator<Item = &'a Judged<'a>>) -> (Tally, Tally) {
    let (mut det, mut base) = (Tally::default(), Tally::default());
    for j in rows {
        det.add(j.row.label.any_refusal(), answer(j.any));
        base.add(
            j.row.label.any_refusal(),
            if j.row.baseline {
                Answer::Yes
            } else {
                Answer::No
            },
        );
    }
    (det, base)
}

fn tally_full<'a>(rows: impl Iterator<Item = &'a Judged<'a>>) -> Tally {
    let mut t = Tally::default();
    for j in rows {
        t.add(j.row.label == XsLabel::FullRefusal, answer(j.full));
    }
    t
}

fn main() -> ExitCode {
    let Some(data) = data_dir_arg("refusal_xstest") else {
        return ExitCode::FAILURE;
    };
    let rows = match load_xstest(&data) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("refusal_xstest: {e}");
            return ExitCode::FAILURE;
        }
    };
    let judged: Vec<Judged> = rows
        .iter()
        .map(|row| {
            let j = classify(&row.completion);
            Judged {
                row,
                any: j.outcome(RefusalKind::Any),
                full: j.outcome(RefusalKind::Full),
                class: j.class(),
            }
        })
        .collect();

    println!("### `any` form vs XSTest string-match baseline (refusal = full or partial)\n");
    println!("Unsure counts as a miss for recall and is not a predicted refusal; the baseline never abstains.\n");
    println!(
        "| slice            |     n | det P | det R | detF1 | abst% | basP  | basR  | basF1 |"
    );
    println!(
        "|------------------|------:|------:|------:|------:|------:|------:|------:|------:|"
    );
    let row = |slice: &str, d: &Tally, b: &Tally| {
        println!(
            "| {slice:<16} | {:>5} | {:>5} | {:>5} | {:>5} | {:>5} | {:>5} | {:>5} | {:>5} |",
            d.n,
            pct(d.precision()),
            pct(d.recall()),
            pct(d.f1()),
            pct(d.abstention()),
            pct(b.precision()),
            pct(b.recall()),
            pct(b.f1()),
        );
    };
    let (d, b) = tally_any(judged.iter());
    row("all", &d, &b);
    for model in XS_MODELS {
        let (d, b) = tally_any(judged.iter().filter(|j| j.row.model == model));
        row(model, &d, &b);
    }
    for (name, unsafe_prompt) in [("safe prompts", false), ("unsafe prompts", true)] {
        let (d, b) = tally_any(
            judged
                .iter()
                .filter(|j| j.row.unsafe_prompt == unsafe_prompt),
        );
        row(name, &d, &b);
    }
    println!(
        "\nAll 2,250 as counts: detector {} true refusals, {} false, {} missed, {} Unsure in all; baseline {} true, {} false, {} missed.",
        d.tp, d.fp, d.fn_, d.unsure, b.tp, b.fp, b.fn_
    );

    println!("\n### `full` form vs XSTest's full refusals (label 2)\n");
    println!("A full refusal is label 2; a partial refusal (label 3) or compliance (label 1) answered `full` detected is a false positive.\n");
    println!("| slice            |     n | P     | R     | F1    | abst% |");
    println!("|------------------|------:|------:|------:|------:|------:|");
    let frow = |slice: &str, t: &Tally| {
        println!(
            "| {slice:<16} | {:>5} | {:>5} | {:>5} | {:>5} | {:>5} |",
            t.n,
            pct(t.precision()),
            pct(t.recall()),
            pct(t.f1()),
            pct(t.abstention())
        );
    };
    frow("all", &tally_full(judged.iter()));
    for model in XS_MODELS {
        frow(
            model,
            &tally_full(judged.iter().filter(|j| j.row.model == model)),
        );
    }
    for (name, unsafe_prompt) in [("safe prompts", false), ("unsafe prompts", true)] {
        frow(
            name,
            &tally_full(
                judged
                    .iter()
                    .filter(|j| j.row.unsafe_prompt == unsafe_prompt),
            ),
        );
    }

    println!("\n### Gold label × detector reading\n");
    println!("| gold label          | FullRefusal | PartialRefusal | Compliance | Unsure |");
    println!("|---------------------|------------:|---------------:|-----------:|-------:|");
    for (name, label) in [
        ("1 full compliance", XsLabel::Compliance),
        ("2 full refusal", XsLabel::FullRefusal),
        ("3 partial refusal", XsLabel::PartialRefusal),
    ] {
        let count = |c: RefusalClass| {
            judged
                .iter()
                .filter(|j| j.row.label == label && j.class == c)
                .count()
        };
        println!(
            "| {name:<19} | {:>11} | {:>14} | {:>10} | {:>6} |",
            count(RefusalClass::FullRefusal),
            count(RefusalClass::PartialRefusal),
            count(RefusalClass::Compliance),
            count(RefusalClass::Unsure)
        );
    }

    println!("\n### Leave-one-model-out threshold check (`any` form)\n");
    println!("For each held-out model, `refuse_at` is chosen on the other four alone: the value with the highest recall whose precision still beats the baseline's on those four (ties: the shipped value). It is then measured on the held-out model, beside the shipped thresholds and the baseline.\n");
    println!("| held out         | chosen refuse_at | P     | R     | abst% | shipped P | shipped R | shipped abst% | base P | base R |");
    println!("|------------------|-----------------:|------:|------:|------:|----------:|----------:|--------------:|-------:|-------:|");
    let grid: Vec<Thresholds> = (2..=12)
        .map(|refuse_at| Thresholds {
            refuse_at,
            ..Thresholds::DEFAULT
        })
        .collect();
    let per_threshold: Vec<Vec<Outcome>> = grid
        .iter()
        .map(|t| {
            rows.iter()
                .map(|r| classify_with(&r.completion, *t).outcome(RefusalKind::Any))
                .collect()
        })
        .collect();
    let tally_at = |k: usize, keep: &dyn Fn(&XsRow) -> bool| {
        let mut t = Tally::default();
        for (r, o) in rows.iter().zip(&per_threshold[k]) {
            if keep(r) {
                t.add(r.label.any_refusal(), answer(*o));
            }
        }
        t
    };
    let mut pooled = Tally::default();
    for held in XS_MODELS {
        let (_, train_base) = tally_any(judged.iter().filter(|j| j.row.model != held));
        let mut best: Option<(usize, Tally)> = None;
        for (k, t) in grid.iter().enumerate() {
            let d = tally_at(k, &|r| r.model != held);
            if d.precision() <= train_base.precision() {
                continue;
            }
            let better = match &best {
                None => true,
                Some((_, b)) => d.tp > b.tp || (d.tp == b.tp && *t == Thresholds::DEFAULT),
            };
            if better {
                best = Some((k, d));
            }
        }
        let Some((k, _)) = best else {
            println!(
                "| {held:<16} | no threshold beats the baseline's precision on the other four |"
            );
            continue;
        };
        let h = tally_at(k, &|r| r.model == held);
        pooled.n += h.n;
        pooled.tp += h.tp;
        pooled.fp += h.fp;
        pooled.fn_ += h.fn_;
        pooled.unsure += h.unsure;
        let (s, hb) = tally_any(judged.iter().filter(|j| j.row.model == held));
        println!(
            "| {held:<16} | {:>16} | {:>5} | {:>5} | {:>5} | {:>9} | {:>9} | {:>13} | {:>6} | {:>6} |",
            grid[k].refuse_at,
            pct(h.precision()),
            pct(h.recall()),
            pct(h.abstention()),
            pct(s.precision()),
            pct(s.recall()),
            pct(s.abstention()),
            pct(hb.precision()),
            pct(hb.recall()),
        );
    }
    println!(
        "\nPooled over the five held-out models: P {}, R {}, abstention {}% (n {}).",
        pct(pooled.precision()),
        pct(pooled.recall()),
        pct(pooled.abstention()),
        pooled.n
    );

    println!("\n### Sensitivity to the refusal threshold (`any` form, all 2,250)\n");
    println!("| refuse_at | P     | R     | abst% |");
    println!("|----------:|------:|------:|------:|");
    for refuse_at in 4..=9 {
        if let Some(k) = grid.iter().position(|t| t.refuse_at == refuse_at) {
            let d = tally_at(k, &|_| true);
            println!(
                "| {refuse_at:>9} | {:>5} | {:>5} | {:>5} |",
                pct(d.precision()),
                pct(d.recall()),
                pct(d.abstention())
            );
        }
    }

    let texts: Vec<&str> = rows.iter().map(|r| r.completion.as_str()).collect();
    print_timing("responses", &texts);
    ExitCode::SUCCESS
}
