#![no_main]
libfuzzer_sys::fuzz_target!(|s: xborder_fuzz::Scenario| xborder_fuzz::receiver_scenario(&s));
