//! The runtime half of the agreement on indexes kept in fields: `fixtures/rules/pad_to_null_block_fields.rs`
//! (whose `//~` markers the static checker is held to by `checker/tests/fixtures.rs`) is compiled
//! here with the shim on, its functions run on inputs that reach their bugs, and the violations
//! are compared, per function, with the markers.

#[allow(dead_code, unused_variables)]
#[path = "../../fixtures/rules/pad_to_null_block_fields.rs"]
mod fixture;

use reuse::runtime::testing::{by_function, check_agreement, check_shim, Expect, Shared};
use reuse::runtime::{collect, Violation};

const SRC: &str = include_str!("../../fixtures/rules/pad_to_null_block_fields.rs");
const FILE: &str = "fixtures/rules/pad_to_null_block_fields.rs";

/// The checker marks where the 0 is put (the helper); the shim sees it where the kernel is called.
const AT_THE_HELPER: &str = "the checker marks the helper that pads the metadata; the shim reports the kernel call its caller makes";
/// The checker marks the `From` impl that pads; the shim sees the kernel call of the caller of `.into()`.
const AT_THE_CONVERSION: &str = "the checker marks the From impl that pads the metadata; the shim reports the kernel call made by the caller of `.into()`";
/// An index field is checked where it is built or changed; at run time no kernel runs there.
const FIELD_ONLY: &str = "an index declared on a field is checked statically where the field is built or changed; the shim scans indexes at the kernel calls that name them";

const AGREEMENT: &[Expect] = &[
    Expect { function: "literal", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block"], why: "" },
    Expect { function: "pad_meta", static_rules: &["pad_to_null_block"], shim_rules: &[], why: AT_THE_HELPER },
    Expect { function: "through_helper", static_rules: &[], shim_rules: &["pad_to_null_block"], why: AT_THE_HELPER },
    Expect { function: "step", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block"], why: "" },
    Expect { function: "new_batch", static_rules: &["pad_to_null_block"], shim_rules: &[], why: FIELD_ONLY },
    Expect { function: "pad_batch", static_rules: &["pad_to_null_block"], shim_rules: &[], why: FIELD_ONLY },
    Expect { function: "pad_rows", static_rules: &["pad_to_null_block"], shim_rules: &[], why: FIELD_ONLY },
    Expect { function: "submit", static_rules: &["pad_to_null_block"], shim_rules: &[], why: FIELD_ONLY },
    Expect { function: "step_when", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block"], why: "" },
    Expect { function: "step_copied", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block"], why: "" },
    Expect { function: "step_reset_when", static_rules: &["pad_to_null_block"], shim_rules: &["pad_to_null_block"], why: "" },
    Expect { function: "from", static_rules: &["pad_to_null_block"], shim_rules: &[], why: AT_THE_CONVERSION },
    Expect { function: "meta_into", static_rules: &[], shim_rules: &["pad_to_null_block"], why: AT_THE_CONVERSION },
];

/// Every function of the fixture, bad forms and look-alikes, on inputs that reach their padding.
fn run_all() -> Vec<Violation> {
    let mut kv = vec![0.0f32; 8];
    collect(|| {
        fixture::literal(&mut kv, 3);
        fixture::through_helper(&mut kv, &[4, 5], 4);
        fixture::literal_right(&mut kv, &[4, 5], 4);
        let mut graph = fixture::GraphRunner::with_slots(8, 4);
        graph.step(&[4, 5], 4);
        let mut good = fixture::GoodRunner::new(4);
        good.step(&[4, 5], 4);
        let mut batch = fixture::new_batch(3);
        fixture::pad_batch(&mut batch, 5);
        batch.pad_rows(1);
        batch.pad_rows_right(1);
        let mut queue = Vec::new();
        fixture::submit(&mut queue, 3);
        fixture::submit_right(&mut queue, 3);
        let _ = (fixture::new_batch_right(2), &mut fixture::new_batch_right(2));
        let mut right = fixture::new_batch_right(2);
        fixture::pad_batch_right(&mut right, 4);
        // The static slot buffer: prepared by resetting helpers (quiet), then by the bad ones on
        // the paths that keep the allocation's zeros (`warm` false).
        let mut buffers = fixture::StaticBuffers::allocate(4);
        buffers.step(&[4, 5]);
        buffers.step_rebuilt(&[4, 5], 4);
        buffers.step_inline(&[4, 5], 4);
        let fresh = || fixture::StaticBuffers::allocate(4);
        fresh().step_when(&[4, 5], false);
        fresh().step_copied(&[4, 5]);
        fresh().step_reset_when(false);
        // Metadata made by `.into()`: a missing slot becomes 0 in one `From` impl, the sentinel
        // in the other.
        fixture::meta_into(&mut kv, &[fixture::WaitingSeq { slot: Some(4) }, fixture::WaitingSeq { slot: None }]);
        fixture::meta_into_padded(&mut kv, &[fixture::RunningSeq { slot: Some(4) }, fixture::RunningSeq { slot: None }]);
    })
}

#[test]
fn the_shim_reports_the_kernel_calls_that_receive_the_null_slot() {
    check_shim(AGREEMENT, &by_function(&run_all(), FILE, SRC));
}

#[test]
fn the_shim_and_the_markers_agree() {
    check_agreement(AGREEMENT, SRC, &by_function(&run_all(), FILE, SRC), Shared::Covered);
}
