//! The form model: the fields a beneficiary form renders for a country, payment type and owner
//! type, in order, with their inputs, options, account kinds and labels.

use std::fmt;

use xborder_core::beneficiary;

use crate::account::AccountKind;
use crate::beneficiary::{documents, BeneficiaryValidator};
use crate::XborderError;

/// Where a form field comes from. Text form: `fixed`, `rules`, `country`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum FormSource {
    /// A fixed rule of the payments API (`paymentInfo`, `bankId`, `routingNumber`): required.
    Fixed,
    /// The server's rules document: required.
    Rules,
    /// The country's account fields the rules do not list: not required.
    Country,
}

impl FormSource {
    fn of(s: beneficiary::FormSource) -> Self {
        match s {
            beneficiary::FormSource::Fixed => FormSource::Fixed,
            beneficiary::FormSource::Rules => FormSource::Rules,
            // Non-exhaustive in the core; `form_enums_round_trip` names every one.
            _ => FormSource::Country,
        }
    }
}

impl fmt::Display for FormSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormSource::Fixed => beneficiary::FormSource::Fixed.as_str(),
            FormSource::Rules => beneficiary::FormSource::Rules.as_str(),
            FormSource::Country => beneficiary::FormSource::Country.as_str(),
        })
    }
}

/// What to render. Text form: `group`, `text`, `choice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum FormInput {
    /// A field with sub-fields (`address`, `paymentInfo`): a heading, no input.
    Group,
    /// A text input.
    Text,
    /// A choice among `options` (the bank list's banks).
    Choice,
}

impl FormInput {
    fn of(i: beneficiary::FormInput) -> Self {
        match i {
            beneficiary::FormInput::Group => FormInput::Group,
            beneficiary::FormInput::Choice => FormInput::Choice,
            _ => FormInput::Text,
        }
    }
}

impl fmt::Display for FormInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormInput::Group => beneficiary::FormInput::Group.as_str(),
            FormInput::Text => beneficiary::FormInput::Text.as_str(),
            FormInput::Choice => beneficiary::FormInput::Choice.as_str(),
        })
    }
}

/// One option of a `Choice`: the value to send and what to show.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct FormOption {
    /// The value (a bank's `id`).
    pub value: String,
    /// What to show (the bank's `name`, else its `id`).
    pub label: String,
}

/// The count of characters of an account field in electronic form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct AccountLength {
    /// The fewest.
    pub min: u32,
    /// The most.
    pub max: u32,
}

/// A field a form renders.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct FormField {
    /// Dotted payload path (`paymentInfo.accountNumber`).
    pub path: String,
    /// Whether the payload needs it.
    pub required: bool,
    /// Where it comes from.
    pub source: FormSource,
    /// What to render.
    pub input: FormInput,
    /// The options of a `Choice` (empty otherwise).
    pub options: Vec<FormOption>,
    /// The account kind it holds, to check as the user types (`check_account`).
    pub account: Option<AccountKind>,
    /// The kind's count of characters, with `account`.
    pub length: Option<AccountLength>,
    /// What to show beside the input: the rules document's description, else English.
    pub label: String,
}

impl From<beneficiary::FormField> for FormField {
    fn from(f: beneficiary::FormField) -> Self {
        let length = f.length().map(|(min, max)| AccountLength {
            min: min.into(),
            max: max.into(),
        });
        FormField {
            required: f.required,
            source: FormSource::of(f.source),
            input: FormInput::of(f.input),
            options: f
                .options
                .into_iter()
                .map(|o| FormOption {
                    value: o.value,
                    label: o.label,
                })
                .collect(),
            account: f.account.and_then(AccountKind::of),
            length,
            label: f.label,
            path: f.path,
        }
    }
}

fn fields_of(
    v: &beneficiary::BeneficiaryValidator,
    country: &str,
    payment_type: &str,
    owner_type: Option<&str>,
) -> Result<Vec<FormField>, XborderError> {
    Ok(v.form(country, payment_type, owner_type)?
        .into_iter()
        .map(FormField::from)
        .collect())
}

#[uniffi::export]
impl BeneficiaryValidator {
    /// The fields a form renders for a country, payment type and (optionally) owner type, from
    /// the documents this validator read. Throws `INVALID_VALUE` (with the field),
    /// `RULES_UNREADABLE`, `RULES_MISMATCH`, `BANKS_UNREADABLE` or `BANKS_MISMATCH`: a form
    /// built on the wrong document is refused, never rendered.
    #[uniffi::method(default(owner_type = None))]
    pub fn form(
        &self,
        country: String,
        payment_type: String,
        owner_type: Option<String>,
    ) -> Result<Vec<FormField>, XborderError> {
        fields_of(self.core(), &country, &payment_type, owner_type.as_deref())
    }
}

/// The fields a beneficiary form renders, in order (the rules document's fields, `paymentInfo`,
/// the fixed bank field, the payment type's fields, the country's account fields), with the
/// rules document and bank list each the response text as received. Throws as
/// [`BeneficiaryValidator::form`].
#[uniffi::export(default(owner_type = None, rules_json = None, banks_country = None, banks_json = None))]
pub fn beneficiary_form(
    country: String,
    payment_type: String,
    owner_type: Option<String>,
    rules_json: Option<String>,
    banks_country: Option<String>,
    banks_json: Option<String>,
) -> Result<Vec<FormField>, XborderError> {
    let v = documents(rules_json, banks_country, banks_json);
    fields_of(&v, &country, &payment_type, owner_type.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_enums_round_trip() {
        for s in [
            beneficiary::FormSource::Fixed,
            beneficiary::FormSource::Rules,
            beneficiary::FormSource::Country,
        ] {
            assert_eq!(FormSource::of(s).to_string(), s.as_str());
        }
        for i in [
            beneficiary::FormInput::Group,
            beneficiary::FormInput::Text,
            beneficiary::FormInput::Choice,
        ] {
            assert_eq!(FormInput::of(i).to_string(), i.as_str());
        }
    }

    #[test]
    fn a_form_and_its_refusal() {
        let banks = r#"{"data": [{"id": "b1", "name": "Commerzbank"}]}"#.to_owned();
        let fields = beneficiary_form(
            "DE".into(),
            "bank_account".into(),
            None,
            None,
            Some("DE".into()),
            Some(banks),
        )
        .unwrap();
        let paths: Vec<&str> = fields.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "paymentInfo",
                "paymentInfo.bankId",
                "paymentInfo.accountNumber",
                "paymentInfo.bic"
            ]
        );
        assert_eq!(fields[1].input, FormInput::Choice);
        assert_eq!(fields[1].options[0].label, "Commerzbank");
        assert_eq!(fields[2].account, Some(AccountKind::Iban));
        assert_eq!(fields[2].length, Some(AccountLength { min: 15, max: 34 }));
        let e = beneficiary_form("de".into(), "bank_account".into(), None, None, None, None)
            .unwrap_err();
        assert_eq!(
            (e.error_code(), e.error_field()),
            ("INVALID_VALUE".to_owned(), Some("country".to_owned()))
        );
    }
}
