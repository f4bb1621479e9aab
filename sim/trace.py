"""The trace recorder of ``eastindia replay``: ``None`` in normal play, so tracing costs one ``if`` per call site.

While a replay plays one game (a batch of one), ``recorder`` is an object the engine tells what happens, at points
that exist anyway: ``flow`` (the ledger's money flows into and out of the game), ``transfer`` (money moved between
holdings inside the game: the budget, dividends, firms' payments, notes), ``roll`` (the engine's dice), ``vote``
(a vote of Parliament) and ``phase`` (the end of setup, of every phase, of the game: offices, stability and events
are read there from the state). The recorder only reads what it is handed: a traced game plays exactly as an
untraced one. Every call site reads ``if trace.recorder is not None:``.
"""

from __future__ import annotations

from typing import Any

recorder: Any = None
