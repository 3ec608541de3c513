//! libFuzzer entry for `xborder_fuzz::event_names` (see fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xborder_fuzz::event_names(data));
