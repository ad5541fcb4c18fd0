//! The scoring policy: the thresholds every verdict and status is decided
//! under (SPEC §3.4, §3.5, §3.8). Referenced by digest wherever results are
//! stored or compared.

use serde::{Deserialize, Serialize};

use crate::contract::Severity;

/// Thresholds for statuses, judged clauses and strength scoring.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// A not-evaluable clause at or above this severity makes a test
    /// `undetermined` instead of `pass` (SPEC §3.5). Default `medium`.
    #[serde(default = "default_floor")]
    pub severity_floor: Severity,
    /// Judge (and interpreter) confidence below this, 0–100, is not usable
    /// (SPEC §3.4, §3.6). Default 50.
    #[serde(default = "default_confidence")]
    pub confidence_threshold: u8,
    /// A probe is caught when caught/valid trials is strictly above this,
    /// in [0, 1] (SPEC §3.8). Default 0.5.
    #[serde(default = "default_catch")]
    pub catch_threshold: f64,
    /// Trials a strength measurement needs to be comparable (SPEC §3.8).
    /// Default 3.
    #[serde(default = "default_trials")]
    pub minimum_trials: u32,
}

fn default_floor() -> Severity {
    Severity::Medium
}
fn default_confidence() -> u8 {
    50
}
fn default_catch() -> f64 {
    0.5
}
fn default_trials() -> u32 {
    3
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            severity_floor: default_floor(),
            confidence_threshold: default_confidence(),
            catch_threshold: default_catch(),
            minimum_trials: default_trials(),
        }
    }
}

impl Policy {
    /// The SHA-256 digest of the policy's canonical JSON (`sha256:…`).
    pub fn digest(&self) -> String {
        crate::digest::digest_of(self)
    }
}
