//! The per-endpoint request-rate limiter: requests are spaced evenly,
//! `1 / rate` seconds apart (a token bucket of size one). Smooth spacing
//! rather than bursts keeps a provider's per-second quota from tripping.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// Hands out start times at least `period` apart.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    period: Duration,
    next: Mutex<Option<Instant>>,
}

impl RateLimiter {
    /// A limiter for `rate` requests per second (`rate` finite and > 0;
    /// rates above 1e9 are treated as 1e9).
    pub(crate) fn per_second(rate: f64) -> Self {
        let period = Duration::from_secs_f64(1.0 / rate.min(1e9));
        RateLimiter {
            period,
            next: Mutex::new(None),
        }
    }

    /// Waits until this caller's slot: the earliest time at least one
    /// period after the previous slot, and not before now.
    pub(crate) async fn wait(&self) {
        let slot = {
            // A poisoned lock only means another task panicked mid-update of
            // a plain `Option<Instant>`: the value is still usable.
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let slot = next.map_or(now, |n| n.max(now));
            *next = Some(slot + self.period);
            slot
        };
        tokio::time::sleep_until(slot).await;
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
}
