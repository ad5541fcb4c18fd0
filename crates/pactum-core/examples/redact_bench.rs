//! Measures [`Redactor::redact`] on 4 MB of text (`bash bench/run.sh`, or
//! `cargo run --release -p pactum-core --example redact_bench`): plain
//! prose with no key, prose holding keys torn by separators every few
//! kilobytes, and text that needs decoding (escapes everywhere). Prints one
//! line per case: MB/s and the milliseconds of the median of 5 runs.

use std::time::Instant;

use pactum_core::secret::Redactor;

const MB: usize = 1024 * 1024;

fn prose(n: usize) -> String {
    let words = [
        "the",
        "refund",
        "was",
        "issued",
        "today",
        "and",
        "your",
        "account",
        "balance",
        "is",
        "unchanged;",
        "please",
        "note\n",
        "that",
        "**every**",
        "request",
        "—",
        "logged",
    ];
    let mut out = String::with_capacity(n + 16);
    let mut i = 0usize;
    while out.len() < n {
        out.push_str(words[i % words.len()]);
        out.push(' ');
        i = i.wrapping_mul(31).wrapping_add(7) % 1009;
    }
    out
}

fn median_ms(red: &Redactor, text: &str) -> f64 {
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let out = red.redact(text);
            std::hint::black_box(out.len());
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[2]
}

fn main() {
    let key = "Qz7pLm4xRt9vWk2sHn6dYb3cJf8g";
    let others = [
        "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4",
        "0123456789abcdef0123456789abcdef",
        "pw7Hs9Kd2LmQ4xZ8",
    ];
    let one = Redactor::new([key]).expect("a key");
    let four = Redactor::new(std::iter::once(key).chain(others)).expect("keys");
    let plain = prose(4 * MB);
    let mut torn = String::with_capacity(4 * MB + 4096);
    for (i, chunk) in plain.as_bytes().chunks(4096).enumerate() {
        torn.push_str(std::str::from_utf8(chunk).unwrap_or(""));
        match i % 3 {
            0 => torn.push_str(&format!(" {}\n{} ", &key[..14], &key[14..])),
            1 => torn.push_str(&format!(" **{}**{} ", &key[..10], &key[10..])),
            _ => torn.push_str(&format!(" {}\u{200b}{} ", &key[..5], &key[5..])),
        }
    }
    let escaped = plain.replace("the", "t\\u0068e%20");
    for (name, red, text) in [
        ("4 MB prose, 1 key, nothing to find", &one, &plain),
        ("4 MB prose, 4 keys, nothing to find", &four, &plain),
        ("4 MB prose, 1 key torn every 4 KB", &one, &torn),
        ("4 MB prose with escapes, 4 keys", &four, &escaped),
    ] {
        let ms = median_ms(red, text);
        let mbs = text.len() as f64 / MB as f64 / (ms / 1000.0);
        println!("{name}: {ms:.1} ms ({mbs:.0} MB/s)");
    }
}
