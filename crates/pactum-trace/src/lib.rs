//! # pactum-trace
//!
//! Trace importers: pactum JSON/JSONL, OpenAI chat messages, tabular records (CSV/JSONL), streaming.
