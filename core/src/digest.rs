//! Digests of ids: what the windows of done ids, the claims' built-in store and the page walker
//! keep instead of an id's text, and the hasher their sets use.

use std::hash::Hasher;

use sha2::{Digest, Sha256};

/// A 128-bit digest of an id: what the windows and the walker keep instead of the id's text.
pub(crate) fn digest(id: &str) -> u128 {
    let d = Sha256::digest(id.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(d.get(..16).unwrap_or(&[0; 16]));
    u128::from_le_bytes(b)
}

/// The digests are already uniform: hashing them again would only cost time.
#[derive(Default)]
pub(crate) struct DigestHasher(u64);

impl Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes.iter().take(8) {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u128(&mut self, n: u128) {
        // Truncation is intended: the low 64 bits of a SHA-256 prefix are uniform.
        self.0 = n as u64;
    }
}
