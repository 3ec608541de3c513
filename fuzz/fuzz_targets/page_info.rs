//! libFuzzer entry for `xborder_fuzz::page_info` (see fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xborder_fuzz::page_info(data));
