//! How hard pactum may use one network endpoint (`docs/targets.md`): the
//! request-rate limiter, the concurrency limit, and the retry loop around
//! single attempts (transient failures, jittered backoff, `Retry-After`).
//!
//! The chat client uses them, and so do pactum-target's network targets, so
//! every endpoint pactum talks to is limited and retried alike.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::client::RetryPolicy;

/// Hands out start times at least `1 / rate` seconds apart: requests are
/// spaced evenly (a token bucket of size one) rather than sent in bursts,
/// which keeps a provider's per-second quota from tripping.
#[derive(Debug)]
pub struct RateLimiter {
    period: Duration,
    next: Mutex<Option<Instant>>,
}

impl RateLimiter {
    /// A limiter for `rate` starts per second (`rate` finite and above 0;
    /// rates above 1e9 count as 1e9).
    pub fn per_second(rate: f64) -> Self {
        RateLimiter {
            period: Duration::from_secs_f64(1.0 / rate.min(1e9)),
            next: Mutex::new(None),
        }
    }

    /// Waits for this caller's slot: one period after the previous slot,
    /// and not before now.
    pub async fn wait(&self) {
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
pub struct Jitter(AtomicU64);

impl Jitter {
    /// The next draw, in `[0, 1)`.
    pub fn draw(&self) -> f64 {
        unit_from(self.0.fetch_add(1, Ordering::Relaxed))
    }
}

/// The SplitMix64 draw number `n`, in `[0, 1)`.
pub(crate) fn unit_from(n: u64) -> f64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether an HTTP status is a transient failure worth retrying: 408, 409,
/// 429, 500, 502, 503, 504 (`docs/targets.md`).
pub fn transient_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504)
}

/// One failed attempt, before it is known whether it will be retried.
/// Every text is already bounded and redacted by whoever built it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptError {
    /// No HTTP answer: connection refused or reset, dropped, timed out.
    /// Always transient.
    Transport {
        /// What went wrong.
        cause: String,
        /// Whether it was the per-request timeout.
        timed_out: bool,
    },
    /// An HTTP error status; transient when [`transient_status`] says so.
    Status {
        /// The status.
        status: u16,
        /// An excerpt of the error body.
        body: String,
        /// The server's `Retry-After`, which replaces the backoff.
        retry_after: Option<Duration>,
    },
    /// A 2xx answer that cannot be read (not the expected JSON, too
    /// large). Never transient.
    Malformed {
        /// What was wrong.
        detail: String,
    },
}

impl AttemptError {
    /// Whether this failure is worth another attempt.
    pub fn transient(&self) -> bool {
        match self {
            AttemptError::Transport { .. } => true,
            AttemptError::Status { status, .. } => transient_status(*status),
            AttemptError::Malformed { .. } => false,
        }
    }
}

/// What [`EndpointLimits::send`] got: the successful attempt's value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent<T> {
    /// The answer.
    pub value: T,
    /// Requests sent, the successful one included (1 without retries).
    pub attempts: u32,
    /// Wall time of the successful attempt, in milliseconds (waits for the
    /// limits and earlier attempts excluded).
    pub latency_ms: u64,
}

/// Why [`EndpointLimits::send`] gave up: the last failure, not transient or
/// with the retries spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GaveUp {
    /// The last attempt's failure.
    pub error: AttemptError,
    /// Requests sent, the first one included.
    pub attempts: u32,
}

/// The limits of one endpoint, shared by every request to it: requests in
/// flight at once, requests started per second (retries included), and the
/// retries of transient failures.
#[derive(Debug)]
pub struct EndpointLimits {
    permits: Semaphore,
    limiter: Option<RateLimiter>,
    retry: RetryPolicy,
    jitter: Jitter,
}

impl EndpointLimits {
    /// Limits allowing `concurrency` requests in flight (at least 1),
    /// `requests_per_second` starts (finite and above 0 when set), retried
    /// per `retry`.
    pub fn new(concurrency: usize, requests_per_second: Option<f64>, retry: RetryPolicy) -> Self {
        EndpointLimits {
            permits: Semaphore::new(concurrency),
            limiter: requests_per_second.map(RateLimiter::per_second),
            retry,
            jitter: Jitter::default(),
        }
    }

    /// Runs `attempt` until it succeeds, fails for good or the retries
    /// are spent. Each attempt takes a slot of the concurrency limit and
    /// then a slot of the rate limit; slots are released while waiting to
    /// retry. Retry `k` waits the failure's `Retry-After` (capped at the
    /// policy's maximum) or else [`RetryPolicy::backoff`] with a jitter
    /// draw.
    ///
    /// # Errors
    /// [`GaveUp`] with the last failure and the attempt count, once the
    /// failure is not [transient](AttemptError::transient) or
    /// `1 + max_retries` attempts failed.
    pub async fn send<T, F, Fut>(&self, mut attempt: F) -> Result<Sent<T>, GaveUp>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, AttemptError>>,
    {
        let mut attempts: u32 = 0;
        loop {
            attempts += 1;
            let result = {
                // The semaphore is never closed; if it were, go on unlimited
                // rather than fail.
                let _permit = self.permits.acquire().await.ok();
                if let Some(limiter) = &self.limiter {
                    limiter.wait().await;
                }
                let started = Instant::now();
                attempt().await.map(|v| (v, started.elapsed().as_millis()))
            };
            let error = match result {
                Ok((value, ms)) => {
                    return Ok(Sent {
                        value,
                        attempts,
                        latency_ms: u64::try_from(ms).unwrap_or(u64::MAX),
                    })
                }
                Err(e) => e,
            };
            if !error.transient() || attempts > self.retry.max_retries {
                return Err(GaveUp { error, attempts });
            }
            let delay = match &error {
                AttemptError::Status {
                    retry_after: Some(d),
                    ..
                } => (*d).min(self.retry.max_backoff),
                _ => self.retry.backoff(attempts, self.jitter.draw()),
            };
            tokio::time::sleep(delay).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn slots_are_one_period_apart() {
        let l = RateLimiter::per_second(4.0);
        let t0 = Instant::now();
        let mut starts = Vec::new();
        for _ in 0..5 {
            l.wait().await;
            starts.push(t0.elapsed());
        }
        let ms: Vec<u128> = starts.iter().map(|d| d.as_millis()).collect();
        assert_eq!(ms, vec![0, 250, 500, 750, 1000]);
    }

    #[test]
    fn jitter_draws_are_spread_over_the_unit_interval() {
        let draws: Vec<f64> = (0..1000).map(unit_from).collect();
        assert!(draws.iter().all(|u| (0.0..1.0).contains(u)));
        let low = draws.iter().filter(|u| **u < 0.5).count();
        assert!((400..600).contains(&low), "{low}");
        let j = Jitter::default();
        let drawn: Vec<f64> = (0..1000).map(|_| j.draw()).collect();
        assert_eq!(drawn, draws, "draw n is SplitMix64 number n");
    }

    #[test]
    fn transient_statuses() {
        let retried: Vec<u16> = (100..600).filter(|s| transient_status(*s)).collect();
        assert_eq!(retried, vec![408, 409, 429, 500, 502, 503, 504]);
        let status = |status| AttemptError::Status {
            status,
            body: String::new(),
            retry_after: None,
        };
        assert!(status(503).transient() && !status(404).transient());
        assert!(AttemptError::Transport {
            cause: String::new(),
            timed_out: false
        }
        .transient());
        assert!(!AttemptError::Malformed {
            detail: String::new()
        }
        .transient());
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_wins_but_is_capped_and_backoff_is_bounded() {
        let limits = EndpointLimits::new(
            1,
            None,
            RetryPolicy {
                max_retries: 3,
                base_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_millis(400),
            },
        );
        let waits = |retry_after: Vec<Option<Duration>>| {
            let limits = &limits;
            async move {
                let t0 = Instant::now();
                let mut seen = Vec::new();
                let mut n = 0usize;
                let r = limits
                    .send(|| {
                        seen.push(t0.elapsed().as_millis());
                        n += 1;
                        let ra = retry_after.get(n - 1).copied().flatten();
                        async move {
                            Err::<(), _>(AttemptError::Status {
                                status: 503,
                                body: String::new(),
                                retry_after: ra,
                            })
                        }
                    })
                    .await;
                (r, seen)
            }
        };
        let (r, seen) = waits(vec![
            Some(Duration::from_millis(250)),
            Some(Duration::from_secs(60)),
            None,
        ])
        .await;
        assert_eq!(r.expect_err("gave up").attempts, 4);
        assert_eq!(seen[1] - seen[0], 250);
        assert_eq!(seen[2] - seen[1], 400, "capped");
        let third = seen[3] - seen[2];
        assert!((200..=400).contains(&third), "{third}");
    }

    #[tokio::test(start_paused = true)]
    async fn lasting_failures_are_not_retried_and_successes_count_attempts() {
        let limits = EndpointLimits::new(1, None, RetryPolicy::default());
        let mut n = 0u32;
        let r = limits
            .send(|| {
                n += 1;
                async { Err::<(), _>(AttemptError::Malformed { detail: "x".into() }) }
            })
            .await;
        assert_eq!(r.expect_err("malformed").attempts, 1);
        assert_eq!(n, 1);
        let mut n = 0u32;
        let r = limits
            .send(|| {
                n += 1;
                let fail = n < 3;
                async move {
                    if fail {
                        Err(AttemptError::Transport {
                            cause: "reset".into(),
                            timed_out: false,
                        })
                    } else {
                        Ok("ok")
                    }
                }
            })
            .await
            .expect("third attempt");
        assert_eq!((r.value, r.attempts), ("ok", 3));
    }
}
