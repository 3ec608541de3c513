"""uniffi's generated module for the ``xborder`` package, as uniffi-bindgen writes it
(``xborder.py``, put here by ``bindings-uniffi/build.sh``), beside the native library it loads.
Not an API: import ``xborder``. It sits beside the package, not in it, so that the package's
own modules are all hand-written and typed (``stubtest xborder`` checks them), and the library
is not taken for an extension module of it."""
