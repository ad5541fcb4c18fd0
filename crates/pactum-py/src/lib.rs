//! # pactum-py
//!
//! The native module of the `pactum` Python package (`pactum._pactum`,
//! built by maturin with the `extension-module` feature; `docs/python.md`).
//! [`api`] holds every call as plain Rust over JSON text, so the
//! workspace's tests run it without Python; `py` (only with the feature)
//! binds each to Python, releasing the GIL while the library works, and
//! raises the package's typed exceptions (`pactum.errors`).

pub mod api;
#[cfg(feature = "extension-module")]
mod py;
