//! Account details as the user types them: `checkAccount(kind, value)`, cheap enough for every
//! keystroke (the kind and the value cross in, one text and a few numbers cross out).

use wasm_bindgen::prelude::*;
use xborder_core::beneficiary::{check_account as check, AccountDetail, AccountState};

use crate::errors::coded;
use crate::json::utf16_len;

#[wasm_bindgen(module = "/js/imports/beneficiary.js")]
extern "C" {
    /// `{state, electronic, display}`, and for an invalid value `code`, `reason`, `params`
    /// (`{expected?, actual?, country?}`) and `message`, from their texts written one after the
    /// other in `text`, the UTF-16 length of each given (the country's plus one, 0 when absent;
    /// `code` 0: not invalid), and the two figures (`None`: absent). One call for the whole
    /// answer, its lengths as plain numbers (no array to copy).
    #[wasm_bindgen(js_name = makeAccountCheck)]
    #[allow(clippy::too_many_arguments)]
    fn make_account_check(
        text: &str,
        state: u32,
        electronic: u32,
        display: u32,
        code: u32,
        reason: u32,
        message: u32,
        country: u32,
        expected: Option<u32>,
        actual: Option<u32>,
    ) -> JsValue;
}

fn len(s: &str) -> u32 {
    u32::try_from(utf16_len(s)).unwrap_or(u32::MAX)
}

/// `account.check`: core's `check_account` of `value` as the account kind named `kind` (`iban`,
/// `sort_code`, ...); another name throws `UNKNOWN_ACCOUNT_KIND`.
#[wasm_bindgen(js_name = checkAccount)]
pub fn check_account(kind: &str, value: &str) -> Result<JsValue, JsValue> {
    let kind: AccountDetail = kind.parse().map_err(|e| coded(&e))?;
    let c = check(kind, value);
    let state = c.state.as_str();
    let mut text = String::with_capacity(state.len() + c.electronic.len() + c.display.len());
    text.push_str(state);
    text.push_str(&c.electronic);
    text.push_str(&c.display);
    let mut lengths = [len(state), len(&c.electronic), len(&c.display), 0, 0, 0, 0];
    let (mut expected, mut actual) = (None, None);
    if let AccountState::Invalid(e) = &c.state {
        let message = e.to_string();
        let (code, reason, params) = (e.code(), e.reason().as_str(), e.params());
        let country = params.country.as_ref().map(|c| c.as_str().to_owned());
        for s in [code, reason, &message] {
            text.push_str(s);
        }
        lengths[3] = len(code);
        lengths[4] = len(reason);
        lengths[5] = len(&message);
        if let Some(c) = &country {
            text.push_str(c);
            lengths[6] = len(c).saturating_add(1);
        }
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        expected = params.expected.map(count);
        actual = params.actual.map(count);
    }
    let [state, electronic, display, code, reason, message, country] = lengths;
    Ok(make_account_check(
        &text, state, electronic, display, code, reason, message, country, expected, actual,
    ))
}
