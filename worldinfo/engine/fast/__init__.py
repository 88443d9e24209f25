"""What the fast path precomputes: the prepared plan, the key index and its matcher."""
