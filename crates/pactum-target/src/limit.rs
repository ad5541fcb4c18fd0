//! The limits of a target, checked (`docs/targets.md`). The rate limiter, the
//! retry loop and its backoff are pactum-llm's ([`pactum_llm::limit`]), so
//! every network endpoint pactum talks to waits alike.

use std::time::Duration;

use pactum_llm::RetryPolicy;

use crate::error::TargetError;
use pactum_suite::Limits;

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

#[cfg(test)]
mod tests {
    use super::*;
    use pactum_suite::Retries;

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
}
