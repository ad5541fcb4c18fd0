//! Limits shared by the target kinds: the checked limits, the request-rate
//! limiter and the retry delays (issue #3 §2).
//!
//! The backoff formula and `Retry-After` parsing are pactum-llm's
//! ([`pactum_llm::RetryPolicy::backoff`],
//! [`pactum_llm::client::parse_retry_after`]), so both network target kinds
//! wait alike. pactum-llm's rate limiter is private to it, hence the small
//! one here.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use pactum_llm::RetryPolicy;
use tokio::time::Instant;

use crate::config::Limits;
use crate::error::TargetError;

/// [`Limits`] after checking: durations, a non-zero concurrency, a usable
/// rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Checked {
    pub timeout: Duration,
    pub concurrency: usize,
    pub requests_per_second: Option<f64>,
    pub retry: RetryPolicy,
}

/// Checks `limits` of target `target`.
///
/// # Errors
/// [`TargetError::Config`] naming `limits.timeout_ms`, `limits.concurrency`
/// or `limits.requests_per_second`.
pub(crate) fn check(target: &str, limits: &Limits) -> Result<Checked, TargetError> {
    let bad = |field: &str, reason: String| TargetError::Config {
        target: target.to_string(),
        field: format!("limits.{field}"),
        reason,
    };
    if limits.timeout_ms == 0 {
        return Err(bad("timeout_ms", "must be above 0".into()));
    }
    if limits.concurrency == 0 {
        return Err(bad("concurrency", "must be at least 1".into()));
    }
    if let Some(r) = limits.requests_per_second {
        if !(r.is_finite() && r > 0.0) {
            return Err(bad(
                "requests_per_second",
                format!("must be a positive number, not {r}"),
            ));
        }
    }
    Ok(Checked {
        timeout: Duration::from_millis(limits.timeout_ms),
        concurrency: limits.concurrency,
        requests_per_second: limits.requests_per_second,
        retry: RetryPolicy {
            max_retries: limits.retries.max,
            base_backoff: Duration::from_millis(limits.retries.base_backoff_ms),
            max_backoff: Duration::from_millis(limits.retries.max_backoff_ms),
        },
    })
}

/// Hands out start times at least `1 / rate` seconds apart: requests are
/// spaced evenly rather than sent in bursts.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    period: Duration,
    next: Mutex<Option<Instant>>,
}

impl RateLimiter {
    /// A limiter for `rate` starts per second (`rate` finite and above 0;
    /// rates above 1e9 count as 1e9).
    pub(crate) fn per_second(rate: f64) -> Self {
        RateLimiter {
            period: Duration::from_secs_f64(1.0 / rate.min(1e9)),
            next: Mutex::new(None),
        }
    }

    /// Waits for this caller's slot: one period after the previous slot,
    /// and not before now.
    pub(crate) async fn wait(&self) {
        let slot = {
            // The guarded value is a plain Option<Instant>: a panic elsewhere
            // cannot leave it half-written, so a poisoned lock is usable.
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let slot = next.map_or(now, |n| n.max(now));
            *next = Some(slot + self.period);
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

/// Jitter draws in `[0, 1)` from a counter (SplitMix64): deterministic for
/// a given sequence of retries, and different for each retry scheduled.
#[derive(Debug, Default)]
pub(crate) struct Jitter(AtomicU64);

impl Jitter {
    pub(crate) fn draw(&self) -> f64 {
        let n = self.0.fetch_add(1, Ordering::Relaxed);
        let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The delay before retry number `retry` (1-based): the server's
/// `Retry-After` when it sent one (capped at the policy's maximum), else the
/// policy's jittered exponential backoff.
pub(crate) fn retry_delay(
    policy: &RetryPolicy,
    retry: u32,
    retry_after: Option<Duration>,
    jitter: &Jitter,
) -> Duration {
    match retry_after {
        Some(d) => d.min(policy.max_backoff),
        None => policy.backoff(retry, jitter.draw()),
    }
}

/// Whether an HTTP status is a transient failure worth retrying (the same
/// list as pactum-llm's client).
pub(crate) fn transient_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Retries;

    fn limits() -> Limits {
        Limits {
            timeout_ms: 1000,
            concurrency: 2,
            requests_per_second: None,
            retries: Retries {
                max: 2,
                base_backoff_ms: 100,
                max_backoff_ms: 400,
            },
        }
    }

    #[test]
    fn unusable_limits_are_named() {
        type Spoil = fn(&mut Limits);
        let cases: [(Spoil, &str); 5] = [
            (|l| l.timeout_ms = 0, "limits.timeout_ms"),
            (|l| l.concurrency = 0, "limits.concurrency"),
            (
                |l| l.requests_per_second = Some(0.0),
                "limits.requests_per_second",
            ),
            (
                |l| l.requests_per_second = Some(-3.0),
                "limits.requests_per_second",
            ),
            (
                |l| l.requests_per_second = Some(f64::INFINITY),
                "limits.requests_per_second",
            ),
        ];
        for (spoil, field) in cases {
            let mut l = limits();
            spoil(&mut l);
            match check("t", &l) {
                Err(TargetError::Config { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        let ok = check("t", &limits()).expect("usable");
        assert_eq!(ok.timeout, Duration::from_millis(1000));
        assert_eq!(ok.retry.max_retries, 2);
        assert_eq!(ok.retry.max_backoff, Duration::from_millis(400));
    }

    #[tokio::test(start_paused = true)]
    async fn starts_are_one_period_apart() {
        let l = RateLimiter::per_second(5.0);
        let t0 = Instant::now();
        let mut ms = Vec::new();
        for _ in 0..4 {
            l.wait().await;
            ms.push(t0.elapsed().as_millis());
        }
        assert_eq!(ms, vec![0, 200, 400, 600]);
    }

    #[test]
    fn retry_after_wins_but_is_capped_and_backoff_is_bounded() {
        let p = check("t", &limits()).expect("usable").retry;
        let j = Jitter::default();
        assert_eq!(
            retry_delay(&p, 1, Some(Duration::from_millis(250)), &j),
            Duration::from_millis(250)
        );
        assert_eq!(
            retry_delay(&p, 1, Some(Duration::from_secs(60)), &j),
            Duration::from_millis(400)
        );
        for retry in 1..6u32 {
            let full = (100u64 << (retry - 1)).min(400);
            for _ in 0..50 {
                let d = retry_delay(&p, retry, None, &j).as_millis() as u64;
                assert!((full / 2..=full).contains(&d), "retry {retry}: {d}");
            }
        }
    }

    #[test]
    fn transient_statuses_are_the_llm_clients() {
        let retried: Vec<u16> = (100..600).filter(|s| transient_status(*s)).collect();
        assert_eq!(retried, vec![408, 409, 429, 500, 502, 503, 504]);
    }

    #[test]
    fn jitter_draws_stay_in_the_unit_interval() {
        let j = Jitter::default();
        let draws: Vec<f64> = (0..1000).map(|_| j.draw()).collect();
        assert!(draws.iter().all(|u| (0.0..1.0).contains(u)));
        let low = draws.iter().filter(|u| **u < 0.5).count();
        assert!((400..600).contains(&low), "{low}");
    }
}
