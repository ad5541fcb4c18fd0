//! A transcript too long for one judge request is judged in windows; what the judge did not see is never read as absence.
