//! A check that can never fire (a tool never offered, a near-miss name, a withheld channel) is reported.
