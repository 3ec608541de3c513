// signature: `secrets \n header \n body`.

use xborder_core::signature::{self, SignatureError, Signer, Verifier};

/// Splits `secrets \n header \n body`: secrets separated by NUL bytes (at most 8), the header
/// line as text (lossy), the body the rest (raw bytes).
fn split_signature_input(data: &[u8]) -> (Vec<&[u8]>, Option<String>, &[u8]) {
    let mut parts = data.splitn(3, |b| *b == b'\n');
    let secrets_line = parts.next().unwrap_or_default();
    let header = parts
        .next()
        .map(|h| String::from_utf8_lossy(h).into_owned());
    let body = parts.next().unwrap_or_default();
    let secrets = secrets_line.split(|b| *b == 0).take(8).collect();
    (secrets, header, body)
}

/// The verdict FORMAT.md gives, computed independently of `Verifier`'s parsing and comparison.
fn model_verify(
    secrets: &[&[u8]],
    body: &[u8],
    header: Option<&str>,
) -> Result<(), SignatureError> {
    if secrets.is_empty() || secrets.iter().any(|s| s.is_empty()) {
        return Err(SignatureError::EmptySecret);
    }
    // Contract v3: a secret that begins or ends with ASCII whitespace is refused.
    let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    if secrets
        .iter()
        .any(|s| s.first().is_some_and(space) || s.last().is_some_and(space))
    {
        return Err(SignatureError::MalformedSecret);
    }
    let text = header
        .unwrap_or("")
        .trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c'));
    if text.is_empty() {
        return Err(SignatureError::MissingSignature);
    }
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SignatureError::MalformedSignature);
    }
    let wanted = text.to_ascii_lowercase();
    let ok = secrets
        .iter()
        .any(|s| signature::sign(s, body).expect("non-empty secret") == wanted);
    if ok {
        Ok(())
    } else {
        Err(SignatureError::SignatureMismatch)
    }
}

/// `Verifier::verify` on a signature header and body: it agrees with the model of FORMAT.md
/// (trim, 64 hex digits in either case, any key), `verify` and `Verifier` agree, an absent header
/// and an empty one are the same, and for every key sign → verify round-trips (also upper-cased
/// and padded) while a flipped digit, a truncated signature or one more body byte never verify.
pub fn signature(data: &[u8]) {
    let (secrets, header, body) = split_signature_input(data);
    let header = header.as_deref();
    let expected = model_verify(&secrets, body, header);
    assert_eq!(
        signature::verify(&secrets, body, header),
        expected,
        "verify vs model"
    );
    let verifier = match Verifier::new(&secrets) {
        Ok(v) => v,
        Err(e) => {
            assert!(matches!(
                e,
                SignatureError::EmptySecret | SignatureError::MalformedSecret
            ));
            assert_eq!(expected, Err(e));
            return;
        }
    };
    assert!(format!("{verifier:?}").contains("redacted"));
    assert_eq!(verifier.verify(body, header), expected, "Verifier vs model");
    if header.is_some_and(str::is_empty) {
        assert_eq!(
            verifier.verify(body, None),
            expected,
            "absent header != empty header"
        );
    }
    if let Err(e) = expected {
        assert!(e.to_string().starts_with(e.code()));
    }

    let mut longer = body.to_vec();
    longer.push(b'\n');
    for secret in &secrets {
        let sig = signature::sign(secret, body).expect("non-empty secret");
        assert_eq!(sig.len(), 64);
        assert!(
            sig.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{sig}"
        );
        assert_eq!(Signer::new(secret).expect("non-empty").sign(body), sig);
        assert_eq!(
            verifier.verify(body, Some(&sig)),
            Ok(()),
            "sign → verify failed"
        );
        assert_eq!(
            verifier.verify(body, Some(&sig.to_ascii_uppercase())),
            Ok(())
        );
        assert_eq!(
            verifier.verify(body, Some(&format!(" \t{sig}\r\n"))),
            Ok(())
        );
        let at = body.len() % 64;
        let mut flipped = sig.clone().into_bytes();
        flipped[at] = if flipped[at] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).expect("hex");
        assert_eq!(
            verifier.verify(body, Some(&flipped)),
            Err(SignatureError::SignatureMismatch),
            "a flipped digit verified"
        );
        let cut = &sig[..at];
        let want = if cut.is_empty() {
            SignatureError::MissingSignature
        } else {
            SignatureError::MalformedSignature
        };
        assert_eq!(
            verifier.verify(body, Some(cut)),
            Err(want),
            "a truncated signature"
        );
        assert_eq!(
            verifier.verify(&longer, Some(&sig)),
            Err(SignatureError::SignatureMismatch),
            "one more body byte verified"
        );
    }
}
