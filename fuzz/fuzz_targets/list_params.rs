//! libFuzzer entry for `xborder_fuzz::list_params` (see fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xborder_fuzz::list_params(data));
