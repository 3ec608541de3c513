// What the Rust side imports for pagination (a wasm-bindgen snippet; src/pagination.rs).

/** The facts of a page (core's PageInfo), made here in one call from the Rust side. */
function makePageInfo(total, page, pageSize, totalPages, hasNext, hasNextConflict, hasPrevious, firstItem, lastItem, nextPage) {
  return { total, page, pageSize, totalPages, hasNext, hasNextConflict, hasPrevious, firstItem, lastItem, nextPage: nextPage ?? null };
}

export { makePageInfo };
