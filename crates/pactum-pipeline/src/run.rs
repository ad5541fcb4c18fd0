//! `run`: a suite against live targets.
