//! The trial scheduler: every probe's trials, graded on every core.

use pactum_core::policy::Policy;
use pactum_core::strength::TrialOutcome;
use pactum_eval::{CompiledContract, NoJudge};
use pactum_probe::{run_trials, ProbeCase};

/// Grades every probe of `cases` in `trials` trials against `contract`,
/// on [`workers`] threads, each taking a contiguous share; the outcomes
/// come back in probe order whatever the scheduling (one `Vec` per case).
pub fn grade_all(
    contract: &CompiledContract,
    cases: &[ProbeCase],
    trials: u32,
    policy: &Policy,
) -> Vec<Vec<TrialOutcome>> {
    let chunk = cases.len().div_ceil(workers()).max(1);
    let mut out: Vec<Vec<TrialOutcome>> = Vec::with_capacity(cases.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                (
                    part.len(),
                    s.spawn(move || {
                        part.iter()
                            .map(|c| run_trials(contract, c, trials, policy, &NoJudge))
                            .collect::<Vec<_>>()
                    }),
                )
            })
            .collect();
        for (n, h) in handles {
            // A worker only panics on a bug; its probes then have no
            // trial, which the ladder reports as a broken measurement.
            match h.join() {
                Ok(v) => out.extend(v),
                Err(_) => out.extend(std::iter::repeat_with(Vec::new).take(n)),
            }
        }
    });
    out
}

/// Threads for the parallel phases: the machine's cores, at most 8.
pub fn workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 8)
}
