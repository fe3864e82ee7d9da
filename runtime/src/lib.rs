//! The runtime shim (see issue 6).
