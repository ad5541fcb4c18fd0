//! A judge verdict whose evidence quotes text the target never wrote is not evaluable (`fabricated-evidence`).
