//! Integers every runtime holds exactly: up to [`MAX_SAFE_INTEGER`], read from JSON as
//! JavaScript reads them.

use serde_json::Value;

/// 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Reads a JSON number as an integer in 0..=2^53−1 (`2.0` counts as 2, as JavaScript reads it).
/// `Err(true)` when it is an integer above the range, `Err(false)` when it is not an integer.
pub(super) fn safe_uint(v: &Value) -> Result<u64, bool> {
    if let Some(n) = v.as_u64() {
        return if n <= MAX_SAFE_INTEGER {
            Ok(n)
        } else {
            Err(true)
        };
    }
    match v.as_f64() {
        Some(f) if f.is_finite() && f.fract() == 0.0 && f >= 0.0 => {
            if f <= MAX_SAFE_INTEGER as f64 {
                // Exact: an integral f64 at or below 2^53 − 1.
                Ok(f as u64)
            } else {
                Err(true)
            }
        }
        _ => Err(false),
    }
}
