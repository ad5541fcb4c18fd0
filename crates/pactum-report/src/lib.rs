//! # pactum-report
//!
//! Reports: terminal summary, versioned JSON, JUnit XML, agreement table.
