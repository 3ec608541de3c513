//! [`normalize`]: the payload to send, its checked account details in electronic form.

use serde_json::Value;

use super::check::electronic;
use super::is_assigned_country;
use super::validate::{account_detail_of, is_missing};

/// The payload to send: every `paymentInfo` field that validation checks as an account detail
/// (a string that is not blank, for the draft's `country` and `paymentType`, the routing number
/// included) replaced by its electronic form (ASCII spaces and hyphens removed, ASCII letters
/// upper-cased), unless that form is empty (`--` stays `--`: normalizing never makes an invalid
/// draft valid). Nothing else is changed, added or removed; a draft that is not an object, or
/// lacks a string `country` or `paymentType`, comes back as it is. Normalizing twice changes
/// nothing more.
///
/// ```
/// use serde_json::json;
/// use xborder_core::beneficiary::normalize;
/// let draft = json!({"ownerType": "individual", "country": "GB", "paymentType": "bank_account",
///     "paymentInfo": {"bankId": "b1", "sortCode": "12-34-56", "accountNumber": "3192 6819",
///                     "bic": "hbuk gb 4b"}});
/// let sent = normalize(draft);
/// assert_eq!(sent["paymentInfo"], json!({"bankId": "b1", "sortCode": "123456",
///     "accountNumber": "3192 6819", "bic": "HBUKGB4B"}));
/// ```
pub fn normalize(mut draft: Value) -> Value {
    let Some(root) = draft.as_object_mut() else {
        return draft;
    };
    let (Some(country), Some(payment_type)) = (
        root.get("country").and_then(Value::as_str),
        root.get("paymentType").and_then(Value::as_str),
    ) else {
        return draft;
    };
    let country = is_assigned_country(country).then(|| country.to_owned());
    let payment_type = payment_type.to_owned();
    let Some(pi) = root.get_mut("paymentInfo").and_then(Value::as_object_mut) else {
        return draft;
    };
    for (field, value) in pi.iter_mut() {
        if is_missing(Some(value)) {
            continue;
        }
        let Some(text) = value.as_str() else {
            continue;
        };
        if account_detail_of(field, text, &payment_type, country.as_deref()).is_none() {
            continue;
        }
        let sent = electronic(text);
        if !sent.is_empty() {
            *value = Value::String(sent);
        }
    }
    draft
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Normalizing twice changes nothing more, and never changes whether a draft is valid.
        #[test]
        fn idempotent_and_verdict_preserving(
            country in proptest::sample::select(&["DE", "AR", "MX", "GB", "US", "CO", "de"][..]),
            payment_type in proptest::sample::select(&["bank_account", "spei"][..]),
            account in "[0-9A-Za-z .-]{0,30}",
            bic in "[0-9A-Za-z -]{0,12}",
            routing in "[0-9 -]{0,12}",
        ) {
            let draft = json!({"ownerType": "individual", "country": country,
                "paymentType": payment_type, "paymentInfo": {"bankId": "b", "accountNumber": account,
                "bic": bic, "routingNumber": routing, "sortCode": account}});
            let once = normalize(draft.clone());
            prop_assert_eq!(&normalize(once.clone()), &once);
            prop_assert_eq!(
                crate::beneficiary::validate(&once, None, None).valid(),
                crate::beneficiary::validate(&draft, None, None).valid()
            );
        }
    }
}
