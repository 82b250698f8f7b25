"""The checkout under test, for tests that read its files or run its scripts: one `ROOT` instead of
a copy in every file. It imports nothing of the library, so a fast-tier test may use it."""

import os

# tests/support/ is two levels below the root.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
