//! No report path overwrites an input or the store; concurrent resumes and store failures lose nothing.
