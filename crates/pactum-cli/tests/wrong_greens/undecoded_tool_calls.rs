//! Tool calls in every recorded shape are decoded with their arguments, or the record is an error: never `{}`, never dropped.
