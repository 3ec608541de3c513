#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xborder_fuzz::banks(data));
