//! Signatures: `sign`, and `verify` with one secret or several (a key rotation).

use crate::XborderError;

/// The `X-Webhook-Signature` of `body`: lowercase hex HMAC-SHA256 keyed with the UTF-8 bytes
/// of `secret`. Throws `EMPTY_SECRET`.
#[uniffi::export]
pub fn sign(secret: String, body: Vec<u8>) -> Result<String, XborderError> {
    Ok(xborder_core::signature::sign(secret.as_bytes(), &body)?)
}

/// Checks a signature header (`null` when absent) against the raw body with one secret (its
/// UTF-8 bytes are the key, used as given: never trimmed). Returns normally when it verifies;
/// throws `EMPTY_SECRET`, `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE` or `SIGNATURE_MISMATCH`.
/// During a key rotation use [`verify_with_secrets`].
#[uniffi::export]
pub fn verify(
    secret: String,
    body: Vec<u8>,
    signature: Option<String>,
) -> Result<(), XborderError> {
    Ok(xborder_core::signature::verify(
        &[secret],
        &body,
        signature.as_deref(),
    )?)
}

/// [`verify`] with several secrets, for a key rotation: passes when any of them signed the body.
/// Throws `EMPTY_SECRET` when the list is empty or a secret in it is empty.
#[uniffi::export]
pub fn verify_with_secrets(
    secrets: Vec<String>,
    body: Vec<u8>,
    signature: Option<String>,
) -> Result<(), XborderError> {
    Ok(xborder_core::signature::verify(
        &secrets,
        &body,
        signature.as_deref(),
    )?)
}
