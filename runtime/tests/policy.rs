//! What happens to a violation: `collect` scopes, `set_policy`, `REUSE_POLICY`, the `cfg(test)`
//! default, and what a violation carries. One test function: the policy is process-wide.

use reuse::runtime::{collect, collect_with, policy, set_enabled, set_policy, take_collected, Policy};

#[reuse::contract(writes(out[at], skip = -1), forbids_write(out[0]))]
fn put(out: &mut [u8], at: i64) {
    if at >= 0 {
        out[at as usize] = 9;
    }
}

#[test]
fn policies() {
    // The default: `panic` for code compiled with cfg(test) (this file is), `log` otherwise.
    if std::env::var_os("REUSE_POLICY").is_none() {
        assert_eq!(policy(true), Policy::Panic);
        assert_eq!(policy(false), Policy::Log);
    }
    assert_eq!(Policy::parse(" Collect "), Some(Policy::Collect));
    assert_eq!(Policy::parse("abort"), None);

    // Panic (the default here): at the end of the offending call, naming the caller's line.
    let line = line!() + 1;
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| put(&mut [0; 4], 0))).expect_err("panics");
    let msg = err.downcast_ref::<String>().expect("a formatted panic message");
    assert!(msg.contains("error[reuse::pad_to_null_block]"), "{msg}");
    assert!(msg.contains("error[reuse::forbidden_write]"), "{msg}");
    assert!(msg.contains(&format!("{}:{line}:", file!())), "{msg}");
    assert!(msg.contains("contract: writes(out[at], skip = -1)"), "{msg}");

    // A collect scope wins over any policy; scopes nest.
    let (inner, outer) = collect_with(|| collect(|| put(&mut [0; 4], 0)));
    assert_eq!(inner.len(), 2);
    assert!(outer.is_empty());

    // Collect: a process-wide list.
    set_policy(Policy::Collect);
    put(&mut [0; 4], 0);
    let kept = take_collected();
    assert_eq!(kept.iter().map(|v| v.rule_name()).collect::<Vec<_>>(), ["pad_to_null_block", "forbidden_write"]);
    assert!(take_collected().is_empty());
    assert_eq!(kept[0].function, "policy::put");
    assert_eq!(kept[0].location.line(), line!() - 5);

    // Log: printed, and the program goes on.
    set_policy(Policy::Log);
    put(&mut [0; 4], 0);

    // Off: nothing is checked.
    set_enabled(false);
    assert!(collect(|| put(&mut [0; 4], 0)).is_empty());
    set_enabled(true);
    assert_eq!(collect(|| put(&mut [0; 4], 0)).len(), 2);
}
