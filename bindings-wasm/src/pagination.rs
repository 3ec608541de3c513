//! Pagination: `listQuery`, `pageInfo` and the `PageWalker` class.

use serde_json::Value;
use wasm_bindgen::prelude::*;
use xborder_core::pagination::{self, Drift, ListParams, PageInfo, PageWalker};

use crate::errors::{coded, type_error};
use crate::json::{js_array, js_object, js_str, js_u64, text_in};

#[wasm_bindgen(module = "/js/imports/pagination.js")]
extern "C" {
    /// `{total, page, pageSize, totalPages, hasNext, hasNextConflict, hasPrevious, firstItem,
    /// lastItem, nextPage}` (`nextPage` `null` when absent).
    #[wasm_bindgen(js_name = makePageInfo)]
    #[allow(clippy::too_many_arguments)]
    fn make_page_info(
        total: f64,
        page: f64,
        page_size: f64,
        total_pages: f64,
        has_next: bool,
        has_next_conflict: bool,
        has_previous: bool,
        first_item: f64,
        last_item: f64,
        next_page: Option<f64>,
    ) -> JsValue;
}

/// `pagination.query`: the query string of a list call (without `?`); throws `INVALID_*`.
#[wasm_bindgen(js_name = listQuery)]
pub fn list_query(params: &str) -> Result<String, JsValue> {
    ListParams::from_value(&text_in(params)?)
        .map(|p| p.to_query())
        .map_err(|e| coded(&e))
}

/// `pagination.info`: the facts of one page, from any list envelope (`{data, total, page,
/// pageSize}`, `{data, total, hasNext}`, `{data, meta}`); `request` (the list parameters sent)
/// supplies what the response leaves out (core's defaults without it). Throws `MALFORMED_RESPONSE`,
/// `INVALID_PAGE_SIZE`, `OUT_OF_RANGE` (or the request's `INVALID_*`).
#[wasm_bindgen(js_name = pageInfo)]
pub fn page_info(response: &str, request: Option<String>) -> Result<JsValue, JsValue> {
    let request = page_request(request)?;
    pagination::page_info(&text_in(response)?, request)
        .map(|info| info_js(&info))
        .map_err(|e| coded(&e))
}

/// The `(page, pageSize)` of the list parameters sent (their JSON text), when given.
fn page_request(request: Option<String>) -> Result<Option<(u64, u64)>, JsValue> {
    match request {
        None => Ok(None),
        Some(text) => request_pair(&text_in(&text)?),
    }
}

fn request_pair(request: &Value) -> Result<Option<(u64, u64)>, JsValue> {
    let p = ListParams::from_value(request).map_err(|e| coded(&e))?;
    Ok(Some((p.page, p.page_size)))
}

/// `pagination.info` of a response whose `data` array holds `records` items
/// (`pagination::page_info_of`): `both` is `[fields, request]` (the response's page fields,
/// `total`, `page`, `pageSize`, `hasNext` and `meta` where it has them, and the list parameters
/// sent, `null` when none), crossed in one walk. The glue's path for a plain object, so a page's
/// records never cross into the module; core reads the fields as it reads the whole response.
#[wasm_bindgen(js_name = __pageInfoOf)]
pub fn page_info_of(records: f64, both: &str) -> Result<JsValue, JsValue> {
    let both = text_in(both)?;
    let (fields, request) = match both.as_array().map(Vec::as_slice) {
        Some([fields, request]) => (fields, request),
        _ => return Err(type_error("xborder: page fields and a request expected")),
    };
    let request = if request.is_null() {
        None
    } else {
        request_pair(request)?
    };
    pagination::page_info_of(records as u64, fields, request)
        .map(|info| info_js(&info))
        .map_err(|e| coded(&e))
}

/// The page facts as a JS object, made by the glue in one call (numbers within 2^53 − 1).
fn info_js(info: &PageInfo) -> JsValue {
    make_page_info(
        info.total as f64,
        info.page as f64,
        info.page_size as f64,
        info.total_pages as f64,
        info.has_next,
        info.has_next_conflict,
        info.has_previous,
        info.first_item as f64,
        info.last_item as f64,
        info.next_page.map(|n| n as f64),
    )
}

pub(crate) fn drift_js(d: &Drift) -> JsValue {
    let code = ("code", js_str(d.code()));
    match *d {
        Drift::TotalChanged { from, to } => {
            js_object(&[code, ("from", js_u64(from)), ("to", js_u64(to))])
        }
        Drift::RepeatedRecords { count } | Drift::PossiblySkipped { count } => {
            js_object(&[code, ("count", js_u64(count))])
        }
        Drift::HasNextConflict { has_next } => {
            js_object(&[code, ("hasNext", JsValue::from_bool(has_next))])
        }
        _ => js_object(&[code]),
    }
}

/// Walks every page of a list (`pagination::PageWalker`): which query to send next, each
/// record once, the drift between pages.
#[wasm_bindgen(js_name = PageWalker)]
pub struct WasmPageWalker {
    inner: PageWalker,
}

#[wasm_bindgen(js_class = PageWalker)]
impl WasmPageWalker {
    /// Starts at `params.page` with the list parameters (filters included); throws `INVALID_*`.
    #[wasm_bindgen(constructor)]
    pub fn new(params: &str) -> Result<WasmPageWalker, JsValue> {
        ListParams::from_value(&text_in(params)?)
            .map(|p| WasmPageWalker {
                inner: PageWalker::new(p),
            })
            .map_err(|e| coded(&e))
    }

    /// The query string of the next request (without `?`), `null` when the walk is over.
    #[wasm_bindgen(js_name = nextQuery)]
    pub fn next_query(&self) -> Option<String> {
        self.inner.next_request().map(|p| p.to_query())
    }

    /// Whether the last page was fed.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// Feeds the response to the last query: `{fresh, info, drifts}`, `fresh` the indices in
    /// `response.data` of the records the walker passes on (the glue hands the caller its own
    /// objects at those indices).
    #[wasm_bindgen(js_name = __feed)]
    pub fn feed(&mut self, response: &str) -> Result<JsValue, JsValue> {
        let response = text_in(response)?;
        let step = self.inner.feed(&response).map_err(|e| coded(&e))?;
        let fresh = step.fresh.iter().map(|i| JsValue::from_f64(*i as f64));
        Ok(js_object(&[
            ("fresh", js_array(fresh)),
            ("info", info_js(&step.info)),
            ("drifts", js_array(step.drift.iter().map(drift_js))),
        ]))
    }
}
