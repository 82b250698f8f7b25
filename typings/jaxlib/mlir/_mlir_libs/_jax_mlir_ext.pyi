# jaxlib is not in the project's environment: oracle_run imports it from the oracle's own folder
# (<sys.prefix>/oracle), which pyright does not search. Every name is Any, as the untyped
# bindings are.
from typing import Any

def __getattr__(name: str) -> Any: ...
