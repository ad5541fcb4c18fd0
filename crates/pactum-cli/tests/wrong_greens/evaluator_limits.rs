//! An evaluator that hit a limit, timed out or failed answers undetermined, never a settled outcome.
