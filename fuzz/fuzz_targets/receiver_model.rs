//! libFuzzer entry for `xborder_fuzz::receiver_model` (see fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|s: xborder_fuzz::Scenario| xborder_fuzz::receiver_scenario(&s));
