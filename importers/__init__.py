"""Importers: shared lorebook formats -> worldinfo books (being built; see issue 4)."""
