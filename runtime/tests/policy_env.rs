//! An invalid `REUSE_POLICY` is an error, never a quiet fallback to another policy: a typo of
//! `panic` must not turn a failing test into one that logs and passes. Its own test binary: the
//! variable is read once per process.

use reuse::runtime::{policy_from_env, Policy};

#[reuse::contract(writes(out[at], skip = -1), forbids_write(out[0]))]
fn put(out: &mut [u8], at: i64) {
    if at >= 0 {
        out[at as usize] = 9;
    }
}

#[test]
fn an_invalid_reuse_policy_is_an_error() {
    assert_eq!(policy_from_env(None), Ok(None));
    assert_eq!(policy_from_env(Some(" ")), Ok(None));
    assert_eq!(policy_from_env(Some("log")), Ok(Some(Policy::Log)));
    assert!(policy_from_env(Some("pnic")).unwrap_err().contains("REUSE_POLICY=`pnic` is not a policy"));

    // Set before the first violation of this process, the only test of this binary.
    std::env::set_var("REUSE_POLICY", "lgo");
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| put(&mut [0; 4], 0))).expect_err("an error, not a log line");
    let msg = err.downcast_ref::<String>().expect("a formatted panic message");
    assert!(msg.contains("REUSE_POLICY=`lgo` is not a policy: expected panic, log or collect"), "{msg}");
    assert!(msg.contains("reuse::pad_to_null_block"), "the violation is still shown: {msg}");
}
