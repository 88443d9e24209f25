"""``worldinfo serve``: the engine as a long-running HTTP service (the ``[server]`` extra).

Books are prepared once per worker (cached by content hash), sessions and memory stores
live in a database (SQLite by default, PostgreSQL for several workers or machines), and
requests for one session are serialised. ``storage`` is the contract, ``service`` the
operations, ``app`` the HTTP layer (Starlette on uvicorn), ``openapi.json`` the document.
"""
