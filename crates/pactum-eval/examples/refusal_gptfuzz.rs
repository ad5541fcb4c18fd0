//! Measures the two refusal forms on jailbreak responses: GPTFuzz's
//! labelled gpt-3.5-turbo responses (label 1 = jailbroken: the harmful
//! question was answered) and JailbreakBench's, with a leave-one-dataset-out
//! check of the `full` form's word threshold against XSTest.
//!
//! ```text
//! cargo run -p pactum-eval --example refusal_gptfuzz --release [DATA_DIR]
//! ```
//!
//! `DATA_DIR` is the `shared/data` folder (default: `$PACTUM_DATA_DIR`).
//! The acceptance criterion (docs/refusal.md): of the 2,239 jailbroken
//! responses, the `full` form calls at most 1% a full refusal. Everything
//! but the timing section is deterministic.

#[path = "../tests/support/refusal_data.rs"]
mod refusal_data;

use std::process::ExitCode;

use pactum_core::contract::RefusalKind;
use pactum_core::outcome::Outcome;
use pactum_eval::refusal::{classify, classify_with, Thresholds};
use refusal_data::{
    answer, data_dir_arg, load_gptfuzz, load_jailbreakbench, load_xstest, pct, print_timing, ratio,
    xstest_strmatch, FuzzRow, Split, Tally, XsLabel,
};

/// D / N / U counts.
#[derive(Default, Clone, Copy)]
struct Dnu([u32; 3]);

impl Dnu {
    fn add(&mut self, o: Outcome) {
        self.0[match o {
            Outcome::Detected => 0,
            Outcome::NotDetected => 1,
            Outcome::Undetermined => 2,
        }] += 1;
    }
    fn n(&self) -> u32 {
        self.0.iter().sum()
    }
    fn cell(&self) -> String {
        format!(
            "{} ({}%) / {} / {}",
            self.0[0],
            pct2(ratio(self.0[0], self.n())),
            self.0[1],
            self.0[2]
        )
    }
}

fn pct2(x: f64) -> String {
    format!("{:.2}", x * 100.0)
}

const SPLITS: [(&str, Option<Split>); 3] = [
    ("train (q 0–79)", Some(Split::Train)),
    ("evaluate (q 80–99)", Some(Split::Evaluate)),
    ("all", None),
];

fn in_split(r: &FuzzRow, s: Option<Split>) -> bool {
    s.is_none_or(|s| r.split == s)
}

fn main() -> ExitCode {
    let Some(data) = data_dir_arg("refusal_gptfuzz") else {
        return ExitCode::FAILURE;
    };
    let (fuzz, xs) = match (load_gptfuzz(&data), load_xstest(&data)) {
        (Ok(f), Ok(x)) => (f, x),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("refusal_gptfuzz: {e}");
            return ExitCode::FAILURE;
        }
    };
    let judged: Vec<(Outcome, Outcome)> = fuzz
        .iter()
        .map(|r| {
            let j = classify(&r.response);
            (j.outcome(RefusalKind::Full), j.outcome(RefusalKind::Any))
        })
        .collect();

    println!("### GPTFuzz: how each form reads the responses\n");
    println!("Cells: detected (share) / not detected / undetermined. Baseline: XSTest's string match (a refusal prefix).\n");
    println!("| split              | label           |    n | `full` refusal          | `any` refusal           | baseline refusal |");
    println!("|--------------------|-----------------|-----:|-------------------------|-------------------------|-----------------:|");
    for (name, split) in SPLITS {
        for (label, broken) in [("jailbroken (1)", true), ("not jailbroken (0)", false)] {
            let (mut full, mut any, mut base) = (Dnu::default(), Dnu::default(), 0u32);
            for (r, (f, a)) in fuzz.iter().zip(&judged) {
                if in_split(r, split) && r.jailbroken == broken {
                    full.add(*f);
                    any.add(*a);
                    base += u32::from(xstest_strmatch(&r.response));
                }
            }
            println!(
                "| {name:<18} | {label:<15} | {:>4} | {:<23} | {:<23} | {base:>16} |",
                full.n(),
                full.cell(),
                any.cell()
            );
        }
    }

    println!("\n### GPTFuzz: \"not jailbroken\" as read from a refusal\n");
    println!("Predicted \"not jailbroken\" when the form detects a refusal; gold: label 0. Unsure is a miss for recall and not a prediction.\n");
    println!("| split              | form   | P     | R     | abst% |");
    println!("|--------------------|--------|------:|------:|------:|");
    for (name, split) in SPLITS {
        for (form, pick) in [("`full`", 0usize), ("`any`", 1)] {
            let mut t = Tally::default();
            for (r, (f, a)) in fuzz.iter().zip(&judged) {
                if in_split(r, split) {
                    t.add(!r.jailbroken, answer(if pick == 0 { *f } else { *a }));
                }
            }
            println!(
                "| {name:<18} | {form:<6} | {:>5} | {:>5} | {:>5} |",
                pct(t.precision()),
                pct(t.recall()),
                pct(t.abstention())
            );
        }
    }

    // Leave one data set out: the `full` form's word thresholds.
    struct Point {
        value: usize,
        xs_full: Tally,
        train: (u32, u32),
        eval: (u32, u32),
        all: (u32, u32),
    }
    let sweep = |grid: &[usize], make: &dyn Fn(usize) -> Thresholds| -> Vec<Point> {
        grid.iter()
            .map(|&value| {
                let t = make(value);
                let mut xs_full = Tally::default();
                for r in &xs {
                    xs_full.add(
                        r.label == XsLabel::FullRefusal,
                        answer(classify_with(&r.completion, t).outcome(RefusalKind::Full)),
                    );
                }
                let (mut train, mut eval, mut all) = ((0, 0), (0, 0), (0, 0));
                for r in fuzz.iter().filter(|r| r.jailbroken) {
                    let d = u32::from(
                        classify_with(&r.response, t).outcome(RefusalKind::Full)
                            == Outcome::Detected,
                    );
                    let slot = if r.split == Split::Train {
                        &mut train
                    } else {
                        &mut eval
                    };
                    slot.0 += d;
                    slot.1 += 1;
                    all.0 += d;
                    all.1 += 1;
                }
                Point {
                    value,
                    xs_full,
                    train,
                    eval,
                    all,
                }
            })
            .collect()
    };
    let share = |(d, n): (u32, u32)| format!("{d} ({}%)", pct2(ratio(d, n)));
    let report = |name: &str, what: String, points: &[Point]| {
        println!("\n### Leave one data set out: the `full` form's `{name}`\n");
        println!("{what}\n");
        println!("| {name:>13} | XSTest `full` P | R     | F1    | abst% | GPTFuzz train: jailbroken called full | evaluate | all |");
        println!("|--------------:|----------------:|------:|------:|------:|--------------------------------------:|---------:|----:|");
        let shown = |v: usize| {
            if v == usize::MAX {
                "off".to_string()
            } else {
                v.to_string()
            }
        };
        for p in points {
            let value = shown(p.value);
            println!(
                "| {:>13} | {:>15} | {:>5} | {:>5} | {:>5} | {:>37} | {} | {} |",
                value,
                pct(p.xs_full.precision()),
                pct(p.xs_full.recall()),
                pct(p.xs_full.f1()),
                pct(p.xs_full.abstention()),
                share(p.train),
                share(p.eval),
                share(p.all)
            );
        }
        // Tuned on XSTest alone: the highest `full`-form F1 (ties: the
        // first, the stricter).
        let on_xs = points.iter().fold(None::<&Point>, |best, p| match best {
            Some(b) if b.xs_full.f1() >= p.xs_full.f1() => Some(b),
            _ => Some(p),
        });
        // Tuned on GPTFuzz train alone: the most lenient value that calls
        // none of train's jailbroken responses full.
        let on_train = points
            .iter()
            .filter(|p| p.train.0 == 0)
            .max_by_key(|p| p.value);
        println!();
        if let Some(p) = on_xs {
            println!(
                "* Tuned on XSTest (highest `full` F1): {name} {} → on GPTFuzz, jailbroken called a full refusal: {} of all, {} of the evaluate split.",
                shown(p.value),
                share(p.all),
                share(p.eval)
            );
        }
        if let Some(p) = on_train {
            println!(
                "* Tuned on GPTFuzz train (most lenient calling none of train's jailbroken full): {name} {} → GPTFuzz evaluate: {}; XSTest `full`: P {}, R {}, abstention {}%.",
                shown(p.value),
                share(p.eval),
                pct(p.xs_full.precision()),
                pct(p.xs_full.recall()),
                pct(p.xs_full.abstention())
            );
        }
    };
    let quiet = sweep(&[0, 5, 10, 15, 20, 30, 45, 60, 90, 120], &|quiet_words| {
        Thresholds {
            quiet_words,
            ..Thresholds::DEFAULT
        }
    });
    report(
        "quiet_words",
        format!("How many words beside a refusal that neither decline, caution nor clearly deliver still leave it full (shipped: {}).", Thresholds::DEFAULT.quiet_words),
        &quiet,
    );
    let dense = sweep(&[2, 3, 4, 5, 6, 7, 8, 10, 12], &|dense_words| Thresholds {
        dense_words,
        ..Thresholds::DEFAULT
    });
    report(
        "dense_words",
        format!("How many words outside the refusal register in one sentence beside a refusal make it cannot-tell (shipped: {}; `content_words` at its shipped {}).", Thresholds::DEFAULT.dense_words, Thresholds::DEFAULT.content_words),
        &dense,
    );
    // "off" lifts `dense_words` too.
    let content = sweep(&[4, 6, 8, 10, 12, 16, 24, usize::MAX], &|content_words| {
        Thresholds {
            content_words,
            dense_words: if content_words == usize::MAX {
                usize::MAX
            } else {
                Thresholds::DEFAULT.dense_words
            },
            ..Thresholds::DEFAULT
        }
    });
    report(
        "content_words",
        format!("How many distinct words outside the refusal register beside a refusal, in all, make it cannot-tell (shipped: {}; `dense_words` at its shipped {}, \"off\" lifts both).", Thresholds::DEFAULT.content_words, Thresholds::DEFAULT.dense_words),
        &content,
    );

    println!("\n### Jailbroken responses the `full` form calls a full refusal\n");
    let mut any = false;
    for (r, (f, _)) in fuzz.iter().zip(&judged) {
        if r.jailbroken && *f == Outcome::Detected {
            any = true;
            println!(
                "* {} record {} (question {}, template {})",
                if r.split == Split::Train {
                    "train.csv"
                } else {
                    "evaluate.csv"
                },
                r.record,
                r.question,
                r.template
            );
        }
    }
    if !any {
        println!("None.");
    }

    match load_jailbreakbench(&data) {
        Ok((rows, files, skipped)) => {
            println!("\n### Cross-check: JailbreakBench (labels from its automated judge)\n");
            println!("{files} files; {skipped} records without a response or label skipped. Cells: detected (share) / not detected / undetermined.\n");
            println!("| jailbroken | n | `full` refusal | `any` refusal | baseline refusal |");
            println!("|------------|--:|----------------|---------------|-----------------:|");
            for broken in [true, false] {
                let (mut full, mut any, mut base) = (Dnu::default(), Dnu::default(), 0u32);
                for r in rows.iter().filter(|r| r.jailbroken == broken) {
                    let j = classify(&r.response);
                    full.add(j.outcome(RefusalKind::Full));
                    any.add(j.outcome(RefusalKind::Any));
                    base += u32::from(xstest_strmatch(&r.response));
                }
                println!(
                    "| {broken:<10} | {} | {} | {} | {base} |",
                    full.n(),
                    full.cell(),
                    any.cell()
                );
            }
        }
        Err(e) => eprintln!("refusal_gptfuzz: JailbreakBench: {e}"),
    }

    let texts: Vec<&str> = fuzz.iter().map(|r| r.response.as_str()).collect();
    print_timing("GPTFuzz responses", &texts);
    ExitCode::SUCCESS
}
