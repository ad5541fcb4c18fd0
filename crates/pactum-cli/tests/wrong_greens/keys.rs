//! A key planted in every echo shape reaches neither the store, the cache, a report, stdout nor stderr.
