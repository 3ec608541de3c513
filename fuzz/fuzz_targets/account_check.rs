//! libFuzzer entry for `xborder_fuzz::account_check` (see fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xborder_fuzz::account_check(data));
