//! The uniffi-bindgen command, built from this crate so its version always matches the library's.
fn main() {
    uniffi::uniffi_bindgen_main()
}
