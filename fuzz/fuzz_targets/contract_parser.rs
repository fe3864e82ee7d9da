//! The contract grammar on arbitrary text: any input either parses into a contract whose canonical
//! form parses to the same contract, or is rejected with errors; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else { return };
    if let Ok(contract) = reuse_rules::parse_contract(tokens) {
        let printed = contract.to_string();
        let again = printed.parse::<proc_macro2::TokenStream>().expect("the canonical form lexes");
        let reparsed = reuse_rules::parse_contract(again).expect("the canonical form parses");
        assert_eq!(reparsed.to_string(), printed, "round trip of {text:?}");
    }
});
