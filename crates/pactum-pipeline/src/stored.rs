//! `show` and `rescore`: a stored run's report, as stored or graded again.
