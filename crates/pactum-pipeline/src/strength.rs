//! `strength`: probes planted in clean traces, graded in trials.
