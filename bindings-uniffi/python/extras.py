# --- xborder: Python conveniences, appended by bindings-uniffi/python/package.py ------------------
# Conversion only (readable reprs, JSON text read into Python values); every rule is core's.
# This text runs at the end of the generated module, so the generated names are in scope.


def _xb_value_repr(value):
    if isinstance(value, enum.Enum):
        return "%s.%s" % (type(value).__name__, value.name)
    return repr(value)


def _xb_fields(cls):
    import inspect
    return [p.name for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self"]


def _xb_add_repr(cls, name):
    fields = _xb_fields(cls)

    def __repr__(self):
        return "%s(%s)" % (name, ", ".join(
            "%s=%s" % (f, _xb_value_repr(getattr(self, f))) for f in fields))
    cls.__repr__ = __repr__
    cls.__str__ = __repr__


# Records (uniffi gives them a __str__ but the default object repr, which hides every field: a
# list of issues printed as `[<xborder.Issue object at 0x...>]`), and the ClaimNeed variants.
for _xb_name in __all__:
    _xb_cls = globals()[_xb_name]
    if (isinstance(_xb_cls, type) and "__str__" in _xb_cls.__dict__
            and not issubclass(_xb_cls, (BaseException, enum.Enum))):
        _xb_add_repr(_xb_cls, _xb_name)
for _xb_name in ("LOAD", "COMPARE_AND_SET", "DONE"):
    _xb_add_repr(getattr(ClaimNeed, _xb_name), "ClaimNeed." + _xb_name)
del _xb_name, _xb_cls


def _xb_add_display(cls):
    """str() of an enum member is core's text (FORMAT.md's: "in_progress", "process", "live"),
    through the Display the Rust side exports; uniffi's Python enums print "Cls.NAME" instead."""
    ffi = getattr(_UniffiLib, "uniffi_xborder_ffi_fn_method_%s_uniffi_trait_display"
                  % cls.__name__.lower(), None)
    lower = getattr(globals().get("_UniffiFfiConverterType" + cls.__name__), "lower", None)
    if ffi is None or lower is None:
        raise ImportError("xborder: no Display for %s: the generated module changed" % cls.__name__)

    def __str__(self):
        return _UniffiFfiConverterString.lift(_uniffi_rust_call(ffi, lower(self)))
    cls.__str__ = __str__


# Enums: str() is core's text, repr() stays Python's (<ClaimOutcome.IN_PROGRESS: 1>).
for _xb_name in __all__:
    _xb_cls = globals()[_xb_name]
    if isinstance(_xb_cls, type) and issubclass(_xb_cls, enum.Enum):
        _xb_add_display(_xb_cls)
del _xb_name, _xb_cls


def _xb_envelope_data(self):
    """`entity.data` as Python values (`json.loads` of `data_json`), or None when absent."""
    return None if self.data_json is None else _xb_json_mod.loads(self.data_json)


def _xb_walk_records(self):
    """This page's records as Python values (`json.loads` of each of `records_json`)."""
    return [_xb_json_mod.loads(r) for r in self.records_json]


Envelope.data = property(_xb_envelope_data)
WalkStep.records = property(_xb_walk_records)


def _xb_require_async_store(store):
    for method in ("load", "compare_and_set"):
        if not callable(getattr(store, method, None)):
            raise TypeError("`store` must have async methods load(id) and compare_and_set(id, "
                            "expected, new, ttl_ms), not %s (for a sync store, subclass "
                            "ClaimStore and use Claims.with_store)" % type(store).__name__)


def _xb_store_failed(task, method, error):
    """The store's failure reported to the task: raises XborderError.Store (STORE_UNAVAILABLE),
    the store's exception as its cause."""
    try:
        task.failed("store: %s: %s: %s" % (method, type(error).__name__, error))
    except XborderError as failure:
        raise failure from error
    raise AssertionError("ClaimTask.failed returned")  # it always raises


async def claim_step_async(store, step, id, token, at_ms, *, lease_ms=30000, window_ms=None):
    """One claim step against an asyncio store: core's `ClaimTask` says which load or
    compare-and-set it needs, this awaits `store.load(id)` / `store.compare_and_set(id,
    expected, new, ttl_ms)` (the `ClaimStore` methods, as coroutines) and hands the answers
    back. Nothing blocks the event loop. An exception from the store, or an answer of the wrong
    kind (`load`: a str or None; `compare_and_set`: a bool), ends the step with
    `XborderError.Store` (`STORE_UNAVAILABLE`), the store's exception as its `__cause__`.
    Returns the `ClaimOutcome`; raises `XborderError.Claim` (`INVALID_STEP`) as `Claims.step`."""
    import inspect
    _xb_require_async_store(store)
    task = ClaimTask(step, id, token, at_ms, lease_ms=lease_ms, window_ms=window_ms)
    need = task.start()
    while not isinstance(need, ClaimNeed.DONE):
        load = isinstance(need, ClaimNeed.LOAD)
        method = "load" if load else "compare_and_set"
        try:
            if load:
                pending = store.load(need.id)
            else:
                pending = store.compare_and_set(need.id, need.expected, need.new, need.ttl_ms)
        except Exception as e:
            _xb_store_failed(task, method, e)
        if not inspect.isawaitable(pending):
            raise TypeError("`store`.%s must be async (return an awaitable), not return %s (for "
                            "a sync store, subclass ClaimStore and use Claims.with_store)"
                            % (method, type(pending).__name__))
        try:
            answer = await pending
        except Exception as e:
            _xb_store_failed(task, method, e)
        try:  # a wrong kind of answer (bytes, 1/0) is refused as from a sync store
            need = task.loaded(answer) if load else task.swapped(answer)
        except TypeError as e:
            _xb_store_failed(task, method, e)
    return need.outcome


__all__ += ["claim_step_async"]
# --- end of conveniences -------------------------------------------------------------------------
